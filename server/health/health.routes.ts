/** GET /api/health: the report of health.service.ts; 503 when the product cannot generate. */
import { Hono } from "hono";
import { type HealthDeps, healthReport } from "./health.service.ts";

export function healthRoutes(deps: HealthDeps) {
  return new Hono().get("/health", async (c) => {
    const report = await healthReport(deps);
    // no-store: a cached "ok" would hide an outage from the next probe.
    c.header("Cache-Control", "no-store");
    return c.json(report, report.status === "ok" ? 200 : 503);
  });
}
