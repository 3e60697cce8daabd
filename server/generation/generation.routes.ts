/** POST /api/generate, GET /api/generation/:id/status, GET /api/generations. */
import { Hono } from "hono";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { validate } from "../http/validate.ts";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { generateSchema, historyQuerySchema } from "./generation.schemas.ts";
import {
  type GenerationDeps,
  generationHistory,
  generationStatus,
  startGeneration,
} from "./generation.service.ts";

export function generationRoutes(deps: GenerationDeps & { db: Db; config: Config; jwtSecret: string }) {
  const requireAuth = authMiddleware(deps, "required");
  return new Hono<AuthEnv>()
    .post("/generate", requireAuth, validate("json", generateSchema), async (c) => {
      return c.json(await startGeneration(deps, caller(c).user, c.req.valid("json")), 202);
    })
    .get("/generation/:id/status", requireAuth, async (c) => {
      return c.json(await generationStatus(deps, caller(c).user.id, c.req.param("id")));
    })
    .get("/generations", requireAuth, validate("query", historyQuerySchema), async (c) => {
      return c.json(await generationHistory(deps, caller(c).user.id, c.req.valid("query")));
    });
}
