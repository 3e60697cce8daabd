/**
 * Keeps the session and rate-limit tables bounded: every `intervalMs` it
 * deletes refresh-token rows nobody can use any more (expired, revoked
 * families, rotated long ago) and rate-limit windows that have ended. Safe to
 * run in several processes at once (plain deletes of dead rows).
 */
import type { DbOrTx } from "../../db/client.ts";
import { sweepRateLimits } from "../http/db-rate-limit-store.ts";
import { log } from "../log.ts";
import { deleteDeadRefreshTokens } from "./sessions.repository.ts";

/** Past this age a rotated token is forgotten: a replay is then just an unknown token (401). */
export const ROTATED_TOKEN_RETENTION_MS = 7 * 86_400_000;

export async function sweepSessions(
  db: DbOrTx,
  now = new Date(),
): Promise<{ tokens: number; limits: number }> {
  const tokens = await deleteDeadRefreshTokens(db, now, new Date(now.getTime() - ROTATED_TOKEN_RETENTION_MS));
  const limits = await sweepRateLimits(db, now);
  return { tokens, limits };
}

export function startSessionSweeper(
  db: DbOrTx,
  opts: { intervalMs?: number } = {},
): { stop(): Promise<void> } {
  const intervalMs = opts.intervalMs ?? 10 * 60_000;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const run = async () => {
    try {
      const removed = await sweepSessions(db);
      if (removed.tokens + removed.limits > 0) log.info("sessions swept", removed);
    } catch (error) {
      if (!stopped) log.error("session sweep failed", { error });
    }
  };
  const timer = setInterval(() => {
    running = running.then(run);
  }, intervalMs);
  Deno.unrefTimer(timer);
  running = run();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
