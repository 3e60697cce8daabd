/**
 * A second app over a test context's database with a different environment
 * (TRUST_PROXY, ADMIN_EMAILS, ...): each variant also starts with fresh rate
 * limiters. Reuses the context's database, so a test file still opens one.
 */
import { createApp } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";
import type { Json, TestContext } from "./test-app.ts";

export type Call = (
  method: string,
  path: string,
  opts?: { body?: unknown; token?: string; headers?: Record<string, string> },
) => Promise<{ status: number; body: Json; headers: Headers }>;

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

/** The same JSON calling convention as TestContext.call, for any app. */
export function callApp(app: ReturnType<typeof createApp>): Call {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.body !== undefined) headers["Content-Type"] ??= "application/json";
    if (opts.token) headers["Authorization"] = `Bearer ${opts.token}`;
    const res = await app.request(path, {
      method,
      headers,
      body: opts.body === undefined
        ? undefined
        : typeof opts.body === "string"
        ? opts.body
        : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON */ }
    return { status: res.status, body, headers: res.headers };
  };
}
