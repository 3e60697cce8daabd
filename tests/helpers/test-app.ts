/**
 * Builds the real Hono app on a fresh database for API tests, with helpers
 * to call it like a client would. One context per test file and backend.
 */
import type { Database } from "../../db/client.ts";
import { createApp } from "../../server/app.ts";
import { setLogLevel } from "../../server/log.ts";
import { type Config, loadConfig } from "../../server/config.ts";
import { LocalDiskStorage } from "../../server/storage/local-disk-storage.ts";
import { JobRunner } from "../../server/generation/job-runner.ts";
import type { ImageModel } from "../../server/imaging/image-model.ts";
import type { AuthResponse } from "../../server/auth/auth.schemas.ts";
import type { Backend } from "./backends.ts";
import { succeedingModel } from "./test-models.ts";

/** A parsed JSON answer: tests assert on its shape, so it is deliberately loose. */
// deno-lint-ignore no-explicit-any
export type Json = any;

export interface TestContext {
  app: ReturnType<typeof createApp>;
  database: Database;
  storage: LocalDiskStorage;
  runner: JobRunner;
  model: ImageModel;
  /** Runs queued jobs until none is runnable. */
  drain(): Promise<number>;
  config: Config;
  jwtSecret: string;
  dataDir: string;
  /** JSON request; `token` adds a bearer header. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; token?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: Json; headers: Headers }>;
  /** Registers a new user with a unique email and returns the auth response. */
  register(
    overrides?: { email?: string; password?: string; full_name?: string },
  ): Promise<AuthResponse>;
  close(): Promise<void>;
}

export const PASSWORD = "Sup3r$ecret";

export interface TestOptions {
  /** The image model the job runner uses (default: a succeeding test model). */
  model?: ImageModel;
  /** Runner timeout per model call. */
  timeoutMs?: number;
}

export async function openTestContext(
  backend: Backend,
  env: Record<string, string> = {},
  opts: TestOptions = {},
): Promise<TestContext> {
  const dataDir = await Deno.makeTempDir({ prefix: "styletwin-test-" });
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "error", ...env });
  setLogLevel(config.logLevel); // expected failures (refunds, retries) would otherwise log warnings
  const database = await backend.open();
  const jwtSecret = "test-secret-0123456789abcdef0123456789";
  const storage = new LocalDiskStorage(`${dataDir}/uploads`);
  const model = opts.model ?? succeedingModel();
  // The runner is not started: tests drive it with runOnce()/drain() to make job order deterministic.
  const runner = new JobRunner({
    db: database.db,
    storage,
    model,
    workers: 1,
    timeoutMs: opts.timeoutMs ?? 5_000,
    backoffBaseMs: 0,
  });
  const app = createApp({ db: database.db, config, jwtSecret, storage, model });

  const call = callApp(app);

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
    return res.body as AuthResponse;
  };

  return {
    app,
    database,
    storage,
    runner,
    model,
    drain: async () => {
      let n = 0;
      // Bounded: a runner that kept finding work (a bug) fails the test instead of hanging it.
      while (await runner.runOnce()) {
        if (++n > 1000) throw new Error("drain: more than 1000 jobs ran; the queue never emptied");
      }
      return n;
    },
    config,
    jwtSecret,
    dataDir,
    call,
    register,
    close: async () => {
      await runner.stop();
      await database.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

export type Call = TestContext["call"];

/** The JSON calling convention of TestContext.call, for any app (see app-variant.ts). */
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
    return await readResponse(res);
  };
}

/** Status, headers and the body: parsed JSON, or the text when it is not JSON. */
export async function readResponse(res: Response): Promise<{ status: number; body: Json; headers: Headers }> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, body, headers: res.headers };
}
