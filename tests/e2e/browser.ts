/** Shared browser-test plumbing: Chromium launch, console-error guard, screenshots. */
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const HAS_CHROMIUM = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();

export const SCREENSHOT_DIR = new URL(
  "../../test-results/screenshots/",
  import.meta.url,
);
export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1440, height: 900 };

/** Headless Chromium with this machine's flags; `extraArgs` adds more (a fake camera, for example). */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

export interface GuardedPage {
  page: Page;
  context: BrowserContext;
  /** Unexpected console errors / page errors so far. */
  errors: string[];
  /** console.error texts matching these are expected (e.g. a 401 on a wrong password). */
  allow(pattern: RegExp): void;
  assertNoErrors(): void;
  close(): Promise<void>;
}

export async function openPage(
  browser: Browser,
  baseURL: string,
  /** Extra context options (a phone's user agent and viewport, for example). */
  options: BrowserContextOptions = {},
): Promise<GuardedPage> {
  const context = await browser.newContext({
    baseURL,
    viewport: DESKTOP,
    acceptDownloads: true,
    ...options,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  const allowed: RegExp[] = [];
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    const text = msg.text();
    if (!allowed.some((re) => re.test(text))) errors.push(text);
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  // A live preview the server could not render in time (503 on a machine loaded by the other test files) is
  // the studio's designed "No preview right now. Generate still works.", not a fault of the page. The console
  // does not say which request failed, so as many 503 messages as the preview answered 503 are expected.
  let preview503 = 0;
  page.on("response", (r) => {
    if (r.status() === 503 && new URL(r.url()).pathname === "/api/preview") preview503++;
  });
  const expectPreview503 = () => {
    for (let i = errors.length - 1; i >= 0 && preview503 > 0; i--) {
      if (/status of 503/.test(errors[i])) errors.splice(i, 1), preview503--;
    }
  };
  return {
    page,
    context,
    errors,
    allow: (re) => allowed.push(re),
    assertNoErrors() {
      expectPreview503();
      if (errors.length) {
        throw new Error(`Unexpected console errors:\n${errors.join("\n")}`);
      }
    },
    close: () => context.close(),
  };
}

/** Opens a guarded page, runs `fn`, then asserts no unexpected console errors; always closes it. */
export async function withPage(
  browser: Browser,
  baseURL: string,
  fn: (g: GuardedPage) => Promise<void>,
  options: BrowserContextOptions = {},
): Promise<void> {
  const g = await openPage(browser, baseURL, options);
  try {
    await fn(g);
    g.assertNoErrors();
  } catch (err) {
    await describeFailure(g);
    throw err;
  } finally {
    await g.close();
  }
}

export const FAILURE_DIR = new URL("../../test-results/failures/", import.meta.url);

/**
 * What the page showed when a test failed: a screenshot under test-results/failures/, and its address,
 * title, the start of its text and the console errors so far on stderr. A wait that times out says only
 * what it waited for; this says what was there instead (a flake seen once on a loaded CI machine cannot
 * be run again to look).
 */
async function describeFailure({ page, errors }: GuardedPage): Promise<void> {
  try {
    await Deno.mkdir(FAILURE_DIR, { recursive: true });
    const file = new URL(`failure-${Date.now()}-${crypto.randomUUID().slice(0, 8)}.png`, FAILURE_DIR);
    await page.screenshot({ path: file.pathname, timeout: 5_000 });
    const text = await page.evaluate(() => document.body?.innerText ?? "", undefined).catch(() => "");
    console.error(
      `browser test failed on ${page.url()} ("${await page.title().catch(() =>
        ""
      )}"), screenshot ${file.pathname}\n` +
        `page text: ${text.replace(/\s+/g, " ").slice(0, 400)}\n` +
        `console errors: ${errors.length ? errors.join(" | ") : "none"}`,
    );
  } catch (e) {
    console.error(`browser test failed; the page could not be described: ${e}`);
  }
}

/**
 * Resolves once the page has laid out and painted its current state: two animation frames, then every
 * finite animation (a toast's slide-in, a dialog's fade) finished; or after `ms`, whichever is first. A
 * spinner's infinite animation never finishes and is not waited on. The bound is kept here, not in the
 * page: a test that installs Playwright's fake clock and pauses it stops the page's animation frames and
 * timers. A fixed pause here cost 0.6 s per screenshot pair on an idle machine and could still be too
 * short on a loaded one.
 */
export async function settled(page: Page, ms = 3_000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const painted = page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    await frame();
    await frame();
    const moving = () =>
      document.getAnimations().some((a) =>
        a.playState === "running" && a.effect?.getTiming().iterations !== Infinity
      );
    while (moving()) await frame();
  }).catch(() => {}); // the page closed, or navigated, while it waited
  await Promise.race([painted, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** Saves `<name>-desktop.png` and `<name>-phone.png`, then restores the desktop size. */
export async function screenshots(page: Page, name: string) {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await settled(page);
  await page.screenshot({
    path: new URL(`${name}-desktop.png`, SCREENSHOT_DIR).pathname,
  });
  await page.setViewportSize(PHONE);
  await settled(page);
  await page.screenshot({
    path: new URL(`${name}-phone.png`, SCREENSHOT_DIR).pathname,
  });
  await page.setViewportSize(DESKTOP);
  await settled(page);
}

/** Waits until an <img> has loaded real pixels. */
export async function waitForImageLoaded(page: Page, selector: string) {
  await page.waitForFunction(
    (sel) => {
      const img = document.querySelector(sel) as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth > 0;
    },
    selector,
    { timeout: 30_000 },
  );
}
