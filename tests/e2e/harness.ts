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
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { type LiveServer, startLiveServer } from "../helpers/live-server.ts";
import { DESKTOP, type GuardedPage, HAS_CHROMIUM, launchBrowser, PHONE, withPage } from "./browser.ts";
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
 * verified (there is no verification flow to click through), there before the server starts, as
 * an operator's admin account is before its address goes into ADMIN_EMAILS. Sign in with `PASSWORD`.
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
  suite: { seed?: (dataDir: string) => Promise<void> } = {},
) {
  let shared: Promise<Shared> | undefined;
  function setup(): Promise<Shared> {
    shared ??= (async () => {
      const tmp = await Deno.makeTempDir({ prefix: "styletwin-e2e-" });
      const dataDir = suite.seed ? join(tmp, "data") : undefined;
      if (dataDir) await suite.seed!(dataDir);
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
  /** Registers a browser test on a fresh guarded page of this suite's server; `fn` drives it. */
  function pageTest(
    name: string,
    fn: (g: GuardedPage, s: Shared) => Promise<void>,
    page: BrowserContextOptions = {},
  ) {
    Deno.test(name, opts, async () => {
      const s = await setup();
      await withPage(s.browser, s.server.url, (g) => fn(g, s), page);
    });
  }
  /** Registers a browser test run at phone and then at desktop size, each on a fresh page. */
  function bothSizesTest(
    name: string,
    fn: (g: GuardedPage, s: Shared, label: "phone" | "desktop") => Promise<void>,
  ) {
    Deno.test(name, opts, async () => {
      const s = await setup();
      for (const [label, viewport] of [["phone", PHONE], ["desktop", DESKTOP]] as const) {
        await withPage(s.browser, s.server.url, (g) => fn(g, s, label), { viewport });
      }
    });
  }
  return { setup, teardown, pageTest, bothSizesTest };
}

let n = 0;
export const uniqueEmail = (tag: string) => `${tag}-${Date.now().toString(36)}-${++n}@example.com`;

export interface Tokens {
  access_token: string;
  refresh_token: string;
}

/** A signed-up account: its tokens, its address and the user the server answered. */
export interface Account extends Tokens {
  email: string;
  user: { id: string; email: string; full_name: string; credits: number };
}

/** Signs up through the API (a fresh address unless `email` is given), password `PASSWORD`. */
export async function registerViaApi(
  base: string,
  name: string,
  email = uniqueEmail("api"),
): Promise<Account> {
  const res = await fetch(`${base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD, full_name: name }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return { ...await res.json(), email };
}

export async function signInWithTokens(page: Page, tokens: Tokens) {
  await page.goto("/");
  await page.evaluate((t) => {
    localStorage.setItem("access_token", t.access_token);
    localStorage.setItem("refresh_token", t.refresh_token);
  }, tokens);
  await page.reload();
}

/** Signs in as a user would: the header's Login, the dialog's email and password, Sign In. */
export async function signInThroughDialog(page: Page, email: string, password = PASSWORD) {
  await page.getByRole("button", { name: "Login", exact: true }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Password").fill(password);
  await dialog.getByRole("button", { name: "Sign In" }).click();
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

/**
 * Holds the client's status stream for generations (/api/generation/:id/events) until the returned
 * `release` is called: the studio stays in its "generating" state for as long as a test looks at it.
 * The local model can finish a render before a loaded machine's test has read the progress, and the
 * client learns of the result only through this stream (polling is its fallback when the stream fails,
 * and a held request has not failed). Requests after `release` pass straight through.
 */
export async function holdGenerationStatus(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(/\/api\/generation\/[^/]+\/events$/, async (route) => {
    await released;
    await route.continue().catch(() => {}); // the page may have closed meanwhile
  });
  return release;
}

export const toast = (page: Page, title: string) =>
  page.locator("[data-variant]").filter({ hasText: title }).first();
/** Text inside the toast viewport (Radix also copies it into a live region). */
export const toastText = (page: Page, text: string) =>
  page.locator("[data-variant]").getByText(text, { exact: false }).first();

/**
 * What a user with fewer than 2 credits sees after Generate: the Insufficient Credits toast, then
 * the Buy Credits dialog (returned).
 */
export async function expectInsufficientCredits(page: Page) {
  await toast(page, "Insufficient Credits").waitFor();
  await toastText(
    page,
    "You need at least 2 credits to generate an image. Click 'Buy Credits' to purchase more.",
  ).waitFor();
  const buy = page.getByRole("dialog", { name: "Buy Credits" });
  await buy.waitFor();
  return buy;
}
