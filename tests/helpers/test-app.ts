/**
 * Builds the real Hono app on a fresh database for API tests, with helpers
 * to call it like a client would. One context per test file and backend.
 */
import type { Database } from "../../db/client.ts";
import { createApp } from "../../server/app.ts";
import { type Config, loadConfig } from "../../server/config.ts";
import { LocalDiskStorage } from "../../server/storage/local-disk-storage.ts";
import type { Backend } from "./backends.ts";

export interface TestContext {
  app: ReturnType<typeof createApp>;
  database: Database;
  storage: LocalDiskStorage;
  config: Config;
  jwtSecret: string;
  dataDir: string;
  /** JSON request; `token` adds a bearer header. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; token?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** Registers a new user with a unique email and returns the auth response. */
  register(
    overrides?: { email?: string; password?: string; full_name?: string },
  ): Promise<any>;
  close(): Promise<void>;
}

export const PASSWORD = "Sup3r$ecret";

export async function openTestContext(
  backend: Backend,
  env: Record<string, string> = {},
): Promise<TestContext> {
  const dataDir = await Deno.makeTempDir({ prefix: "styletwin-test-" });
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "error", ...env });
  const database = await backend.open();
  const jwtSecret = "test-secret-0123456789abcdef0123456789";
  const storage = new LocalDiskStorage(`${dataDir}/uploads`);
  const app = createApp({ db: database.db, config, jwtSecret, storage });

  const call: TestContext["call"] = async (method, path, opts = {}) => {
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

  const register: TestContext["register"] = async (overrides = {}) => {
    const res = await call("POST", "/api/auth/register", {
      body: {
        email: overrides.email ?? `user-${crypto.randomUUID()}@example.com`,
        password: overrides.password ?? PASSWORD,
        full_name: overrides.full_name ?? "Test User",
      },
    });
    if (res.status !== 201) {
      throw new Error(
        `register failed: ${res.status} ${JSON.stringify(res.body)}`,
      );
    }
    return res.body;
  };

  return {
    app,
    database,
    storage,
    config,
    jwtSecret,
    dataDir,
    call,
    register,
    close: async () => {
      await database.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
