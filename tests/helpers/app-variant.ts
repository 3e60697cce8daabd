/**
 * A second app over a test context's database with a different environment
 * (TRUST_PROXY, ADMIN_EMAILS, ...): each variant also starts with fresh rate
 * limiters. Reuses the context's database, so a test file still opens one.
 */
import { createApp } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";
import { callApp, type TestContext } from "./test-app.ts";

export function appVariant(ctx: TestContext, env: Record<string, string>) {
  const config = loadConfig({ DATA_DIR: ctx.dataDir, LOG_LEVEL: "error", ...env });
  const app = createApp({
    db: ctx.database.db,
    config,
    jwtSecret: ctx.jwtSecret,
    storage: ctx.storage,
    model: ctx.model,
  });
  return { app, config, call: callApp(app) };
}
