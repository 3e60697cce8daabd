/**
 * Independent API tests: `apiTest(name, fn)` registers one test per backend
 * (`[pglite] name`, `[postgres] name`), each with its own database (a clone of
 * the migrated PGlite template, or a fresh Postgres database), its own app and its own
 * users and photos, so every test runs alone (`deno test --filter`) and in any
 * order. `only: "postgres"` registers a test on Postgres alone (it is then
 * reported as ignored, not passed, where Postgres is not configured). Every
 * test ends with the ledger audit: each balance equals the sum of its rows.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { ImageModel } from "../../server/imaging/image-model.ts";
import { type Backend, backends } from "./backends.ts";
import { ledgerMismatches } from "./ledger.ts";
import { openTestContext, type TestContext, type TestOptions } from "./test-app.ts";

/** Limits high enough that only rate-limit tests meet them; X-Forwarded-For is honoured. */
export const TEST_ENV: Record<string, string> = {
  AUTH_RATE_LIMIT_PER_MINUTE: "100000",
  AUTH_IP_RATE_LIMIT_PER_MINUTE: "100000",
  AUTH_EMAIL_RATE_LIMIT_PER_HOUR: "100000",
  TRUST_PROXY: "true",
};

export interface ApiTestOptions {
  env?: Record<string, string>;
  /** Builds the model the context's runner uses (a fresh one per test). */
  model?: () => ImageModel;
  timeoutMs?: TestOptions["timeoutMs"];
  only?: Backend["name"];
}

export function apiTest(
  name: string,
  fn: (ctx: TestContext, backend: Backend) => Promise<void>,
  opts: ApiTestOptions = {},
) {
  for (const backend of backends()) {
    if (opts.only && backend.name !== opts.only) continue;
    Deno.test({ name: `[${backend.name}] ${name}`, ignore: backend.skip }, async () => {
      const ctx = await openTestContext(backend, { ...TEST_ENV, ...opts.env }, {
        model: opts.model?.(),
        timeoutMs: opts.timeoutMs,
      });
      try {
        await fn(ctx, backend);
        assert.deepEqual(
          (await ledgerMismatches(ctx.database.db)).mismatches,
          [],
          "the ledger explains every balance",
        );
      } finally {
        await ctx.close();
      }
    });
  }
}

/** Polls `check` every `intervalMs` until it returns a truthy value; fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

const photoBytes = await sharp({
  create: { width: 300, height: 400, channels: 3, background: { r: 180, g: 140, b: 120 } },
}).jpeg().toBuffer();

let ipCounter = 0;

/** A fresh client address per call (TRUST_PROXY is on), so per-IP limits are never what a test meets. */
export function freshIp(): string {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

/** A signed-up user: its id and tokens. */
export async function signUp(ctx: TestContext, overrides: { email?: string } = {}) {
  const session = await ctx.register(overrides);
  return { id: session.user.id, token: session.access_token, session };
}

/** Uploads a small JPEG (anonymously without `token`); returns its id and URL. */
export async function uploadPhoto(
  ctx: TestContext,
  token?: string,
  bytes: Uint8Array = new Uint8Array(photoBytes),
): Promise<{ photoId: string; url: string }> {
  const form = new FormData();
  form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], "me.jpg", { type: "image/jpeg" }));
  const headers: Record<string, string> = { "X-Forwarded-For": freshIp() };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await ctx.app.request("/api/upload-photo", { method: "POST", body: form, headers });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body;
}

/** POST /api/generate with a makeup default body. */
export function generate(
  ctx: TestContext,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return ctx.call("POST", "/api/generate", {
    token,
    body: { studioType: "makeup", view360: false, ...body },
    headers,
  });
}
