/**
 * Browser-test suite plumbing shared by the e2e files: one live server and one
 * Chromium per file (setup/teardown), accounts made through the API, and
 * locators for toasts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import { hashPassword } from "../../server/auth/password.ts";
import { insertUser } from "../../server/users/users.repository.ts";
import type { Browser, Page } from "playwright-core";
import { type LiveServer, startLiveServer } from "../helpers/live-server.ts";
import { HAS_CHROMIUM, launchBrowser } from "./browser.ts";
import { writeLandscape, writePortrait } from "./fixtures.ts";

// Not on the common-password list (the server refuses those at sign-up).
export const PASSWORD = "Styl3d&Ready!";
export const opts = {
  ignore: !HAS_CHROMIUM,
  sanitizeOps: false,
  sanitizeResources: false,
};

export interface Shared {
  server: LiveServer;
  browser: Browser;
  tmp: string;
  portrait: string;
  landscape: string;
}

/**
 * An account written straight into a stopped server's embedded database, with its email
 * verified: ADMIN_EMAILS makes an account admin only once its address is verified, and
 * there is no verification flow to click through. Sign in with `PASSWORD`.
 */
export async function seedVerifiedAccount(dataDir: string, email: string, fullName: string): Promise<void> {
  const database = await openDatabase({ dataDir: join(dataDir, "db") });
  try {
    const user = await insertUser(database.db, {
      email,
      passwordHash: await hashPassword(PASSWORD),
      fullName,
    });
    assert.ok(user, `could not seed ${email}`);
    await database.db.update(users).set({ isVerified: true }).where(eq(users.id, user.id));
  } finally {
    await database.close();
  }
}

/** One server (PGlite, local model) and one browser for a test file; `teardown` in the last test. */
export function createSuite(
  env: Record<string, string>,
  /** Runs on the server's DATA_DIR before it starts (seedVerifiedAccount, ...). */
  opts: { seed?: (dataDir: string) => Promise<void> } = {},
) {
  let shared: Promise<Shared> | undefined;
  function setup(): Promise<Shared> {
    shared ??= (async () => {
      const tmp = await Deno.makeTempDir({ prefix: "styletwin-e2e-" });
      const dataDir = opts.seed ? join(tmp, "data") : undefined;
      if (dataDir) await opts.seed!(dataDir);
      const [server, browser, portrait, landscape] = await Promise.all([
        startLiveServer({ env, dataDir }),
        launchBrowser(),
        writePortrait(tmp),
        writeLandscape(tmp),
      ]);
      return { server, browser, tmp, portrait, landscape };
    })();
    return shared;
  }
  async function teardown() {
    if (!shared) return;
    const s = await shared.catch(() => undefined);
    shared = undefined;
    if (!s) return;
    await s.browser.close().catch(() => {});
    await s.server.close().catch(() => {});
    await Deno.remove(s.tmp, { recursive: true }).catch(() => {});
  }
  // If a run stops early, never leave the server process behind.
  globalThis.addEventListener("unload", () => {
    shared?.then((s) => s.server.close()).catch(() => {});
  });
  return { setup, teardown };
}

let n = 0;
export const uniqueEmail = (tag: string) => `${tag}-${Date.now().toString(36)}-${++n}@example.com`;

export interface Tokens {
  access_token: string;
  refresh_token: string;
}

export async function registerViaApi(base: string, name: string): Promise<Tokens> {
  const res = await fetch(`${base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: uniqueEmail("api"),
      password: PASSWORD,
      full_name: name,
    }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json() as Tokens;
}

export async function signInWithTokens(page: Page, tokens: Tokens) {
  await page.goto("/");
  await page.evaluate((t) => {
    localStorage.setItem("access_token", t.access_token);
    localStorage.setItem("refresh_token", t.refresh_token);
  }, tokens);
  await page.reload();
}

/** Uploads a photo as the account (from "another device"): the photo id. */
export async function uploadViaApi(base: string, token: string, path: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([await Deno.readFile(path)], "portrait.jpg", { type: "image/jpeg" }));
  const res = await fetch(`${base}/api/upload-photo`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  assert.equal(res.ok, true, await res.clone().text());
  return (await res.json() as { photoId: string }).photoId;
}

/** Starts a generation as the account (spends its credits on the server). */
export async function generateViaApi(base: string, token: string, photoId: string) {
  const res = await fetch(`${base}/api/generate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ photoId, studioType: "makeup", view360: false }),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json() as { generationId: string }).generationId;
}

export const toast = (page: Page, title: string) =>
  page.locator("[data-variant]").filter({ hasText: title }).first();
/** Text inside the toast viewport (Radix also copies it into a live region). */
export const toastText = (page: Page, text: string) =>
  page.locator("[data-variant]").getByText(text, { exact: false }).first();
