/**
 * POST /api/generate, GET /api/generation/:id/status and its server-sent
 * event stream /api/generation/:id/events, GET /api/generations,
 * DELETE /api/generations/:id.
 */
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { validate } from "../http/validate.ts";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { AppError } from "../http/errors.ts";
import type { BlobStorage } from "../storage/storage.ts";
import { waitForChange } from "./generation-events.ts";
import { generateSchema, historyQuerySchema } from "./generation.schemas.ts";
import {
  deleteGeneration,
  type GenerationDeps,
  generationHistory,
  generationStatus,
  startGeneration,
} from "./generation.service.ts";

/** Printable ASCII, bounded: the length is checked before the pattern runs. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]+$/;
const MAX_IDEMPOTENCY_KEY = 255;

function idempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header.length === 0 || header.length > MAX_IDEMPOTENCY_KEY || !IDEMPOTENCY_KEY.test(header)) {
    throw new AppError(
      422,
      `Idempotency-Key must be 1-${MAX_IDEMPOTENCY_KEY} printable ASCII characters without spaces`,
      { code: "invalid_idempotency_key" },
    );
  }
  return header;
}

/** How often an open stream re-reads the status without a wake-up (a job finished by another process). */
export const EVENTS_RECHECK_MS = 1000;
/** A stream ends after this; the client reconnects (or polls) for a job still running. */
export const EVENTS_MAX_MS = 120_000;

export function generationRoutes(
  deps: GenerationDeps & { db: Db; config: Config; jwtSecret: string; storage: BlobStorage },
) {
  const requireAuth = authMiddleware(deps, "required");
  return new Hono<AuthEnv>()
    .post("/generate", requireAuth, validate("json", generateSchema), async (c) => {
      const key = idempotencyKey(c.req.header("Idempotency-Key"));
      return c.json(
        await startGeneration(deps, caller(c).user, c.req.valid("json"), { idempotencyKey: key }),
        202,
      );
    })
    .get("/generation/:id/status", requireAuth, async (c) => {
      return c.json(await generationStatus(deps, caller(c).user.id, c.req.param("id")));
    })
    // The status as server-sent events: `status` events (the same JSON as /status) on every change,
    // the last one completed or failed, then the stream ends. Owner-only like /status (404 before
    // the stream opens); a comment line each recheck keeps proxies from closing an idle stream.
    .get("/generation/:id/events", requireAuth, async (c) => {
      const userId = caller(c).user.id;
      const id = c.req.param("id");
      let status = await generationStatus(deps, userId, id);
      return streamSSE(c, async (stream) => {
        const closed = new AbortController();
        stream.onAbort(() => closed.abort());
        const deadline = Date.now() + EVENTS_MAX_MS;
        let sent = JSON.stringify(status);
        await stream.writeSSE({ event: "status", data: sent });
        while (status.status !== "completed" && status.status !== "failed") {
          if (closed.signal.aborted || Date.now() >= deadline) return;
          await waitForChange(id, EVENTS_RECHECK_MS, closed.signal);
          if (closed.signal.aborted) return;
          try {
            status = await generationStatus(deps, userId, id);
          } catch {
            return; // deleted meanwhile: the client's fallback poll reports it
          }
          const json = JSON.stringify(status);
          if (json !== sent) await stream.writeSSE({ event: "status", data: sent = json });
          else await stream.write(": waiting\n\n");
        }
      });
    })
    .get("/generations", requireAuth, validate("query", historyQuerySchema), async (c) => {
      return c.json(await generationHistory(deps, caller(c).user.id, c.req.valid("query")));
    })
    .delete("/generations/:id", requireAuth, async (c) => {
      await deleteGeneration(deps, caller(c).user.id, c.req.param("id"));
      return c.body(null, 204);
    });
}
