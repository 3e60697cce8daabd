/**
 * GET /api/metrics (Prometheus text). Mounted only when METRICS_TOKEN is set
 * (otherwise /api/metrics is a plain 404) and answered only to
 * `Authorization: Bearer <METRICS_TOKEN>`.
 */
import { timingSafeEqual } from "node:crypto";
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../../db/client.ts";
import { generations } from "../../db/schema.ts";
import { AppError } from "../http/errors.ts";
import { renderMetrics } from "./metrics.ts";

function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function metricsRoutes(deps: { db: Db; metricsToken: string }) {
  return new Hono().get("/metrics", async (c) => {
    const header = c.req.header("Authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!sameSecret(token, deps.metricsToken)) {
      throw new AppError(401, "Not authenticated", { headers: { "WWW-Authenticate": "Bearer" } });
    }
    const rows = await deps.db.select({ status: generations.status, n: sql<number>`count(*)::int` })
      .from(generations).groupBy(generations.status);
    const jobs = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    return c.body(renderMetrics(jobs), 200, {
      "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
      "Cache-Control": "no-store",
    });
  });
}
