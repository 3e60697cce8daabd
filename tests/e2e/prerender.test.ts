/**
 * The landing page is rendered at build time into index.html and hydrated in the browser: its
 * headline paints before any script has run, hydration adopts the markup (no React hydration
 * error, the same DOM nodes), a signed-in account never sees the signed-out buttons, and every
 * other route gets an empty root, so it never shows the landing page first.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { openPage, withPage } from "./browser.ts";
import { createSuite, opts, registerViaApi } from "./harness.ts";

const { setup, teardown } = createSuite({});

const HEADLINE = "Create Your Digital Human";
const SUBTITLE = "Build a consistent AI avatar from one photo and let it handle your content.";
/** The whole browser part of a test: every wait inside is shorter still. */
const TEST_MS = 60_000;

async function bounded<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: over ${TEST_MS} ms`)), TEST_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function fetchPage(url: string): Promise<{ status: number; html: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, html: await res.text() };
}

/** Records, from the first byte of the document on, whether a signed-out button ever existed. */
function watchForSignedOutButtons(page: Page) {
  return page.addInitScript(() => {
    const w = globalThis as unknown as { __signedOutSeen?: boolean };
    w.__signedOutSeen = false;
    new MutationObserver(() => {
      for (const b of document.querySelectorAll("button")) {
        if (b.textContent === "Login" || b.textContent === "Sign Up") w.__signedOutSeen = true;
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
}

Deno.test("[browser] index.html holds the landing page's text before any script runs", opts, async () => {
  const { server, browser } = await setup();
  await bounded(
    "prerendered landing",
    (async () => {
      const home = await fetchPage(`${server.url}/`);
      assert.equal(home.status, 200);
      const root = /<div id="root">([\s\S]*)<\/div>\s*<noscript>/.exec(home.html)?.[1] ?? "";
      for (const text of ["Create Your", "Digital Human", SUBTITLE, "Provide Photo(s)", "Upload Photo(s)"]) {
        assert.ok(root.includes(text), `the served root holds "${text}"`);
      }
      // Under the page's policy: no inline script, no style attribute.
      assert.doesNotMatch(home.html, /<script(?![^>]*\bsrc=)/);
      assert.doesNotMatch(root, /\sstyle="/);

      // With scripts off the page still shows the headline, the upload card and its buttons.
      const context = await browser.newContext({ baseURL: server.url, javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(20_000);
        await page.goto("/");
        await page.getByRole("heading", { name: HEADLINE }).waitFor();
        await page.getByRole("heading", { name: "Provide Photo(s)" }).waitFor();
        await page.getByRole("button", { name: "Upload Photo(s)" }).waitFor();
        // The account area is a neutral placeholder until the browser's session is known.
        assert.equal(await page.getByRole("button", { name: "Login" }).count(), 0);
      } finally {
        await context.close();
      }
    })(),
  );
});

Deno.test(
  "[browser] the landing page hydrates: same nodes, no hydration error, then works",
  opts,
  async () => {
    const { server, browser } = await setup();
    await bounded(
      "hydration",
      withPage(browser, server.url, async ({ page }) => {
        // Hold the entry script back until the painted page's nodes are marked.
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        await page.route(/\/assets\/app-[^/]+\.js$/, async (route) => {
          await held;
          await route.continue();
        });
        await page.goto("/", { waitUntil: "commit" }); // a held module script holds DOMContentLoaded back too
        await page.getByRole("heading", { name: HEADLINE }).waitFor();
        await page.evaluate(() => {
          const w = globalThis as unknown as { __painted?: Element[] };
          w.__painted = [document.querySelector("h1")!, document.querySelector("main")!];
        });
        release();

        // Hydrated: the account buttons replace the placeholder, and the nodes are the ones painted.
        await page.getByRole("button", { name: "Sign Up" }).waitFor();
        const same = await page.evaluate(() => {
          const w = globalThis as unknown as { __painted?: Element[] };
          const [h1, main] = w.__painted!;
          return h1.isConnected && main.isConnected && document.querySelector("h1") === h1;
        });
        assert.ok(same, "hydration kept the prerendered nodes (no client re-render of the page)");

        // The page works: the sign-up dialog opens from the hydrated header.
        await page.getByRole("button", { name: "Sign Up" }).click();
        await page.getByRole("dialog", { name: "Create your account" }).waitFor();
        // withPage fails on any console error: a hydration mismatch or a CSP violation is one.
      }),
    );
  },
);

Deno.test(
  "[browser] a signed-in account never sees the signed-out buttons on the landing page",
  opts,
  async () => {
    const { server, browser } = await setup();
    const tokens = await registerViaApi(server.url, "Grace Hopper");
    await bounded(
      "signed-in landing",
      withPage(browser, server.url, async ({ page, context }) => {
        await context.addInitScript((t) => {
          localStorage.setItem("access_token", t.access_token);
          localStorage.setItem("refresh_token", t.refresh_token);
        }, tokens);
        await watchForSignedOutButtons(page);
        await page.goto("/");
        await page.getByTestId("user-label").filter({ hasText: "Grace" }).waitFor();
        await page.getByRole("heading", { name: HEADLINE }).waitFor();
        const seen = await page.evaluate(() =>
          (globalThis as unknown as { __signedOutSeen?: boolean }).__signedOutSeen
        );
        assert.equal(seen, false, "Login / Sign Up never appeared for a signed-in account");
      }),
    );
  },
);

Deno.test("[browser] other routes get an empty root: never the landing page first", opts, async () => {
  const { server, browser } = await setup();
  await bounded(
    "other routes",
    (async () => {
      for (const route of ["/studio", "/dashboard", "/credit-purchase-success", "/no-such-page"]) {
        const { status, html } = await fetchPage(`${server.url}${route}`);
        assert.equal(status, 200, route);
        assert.match(html, /<div id="root"><\/div>/, `${route} is the empty shell`);
        assert.ok(!html.includes("Digital Human"), route);
      }
      const g = await openPage(browser, server.url);
      try {
        await g.page.addInitScript(() => {
          const w = globalThis as unknown as { __landingSeen?: boolean };
          w.__landingSeen = false;
          new MutationObserver(() => {
            if (document.querySelector("h1")?.textContent?.includes("Digital Human")) w.__landingSeen = true;
          }).observe(document, { childList: true, subtree: true });
        });
        await g.page.goto("/no-such-page");
        await g.page.getByRole("heading", { name: "Page not found" }).waitFor();
        const seen = await g.page.evaluate(() =>
          (globalThis as unknown as { __landingSeen?: boolean }).__landingSeen
        );
        assert.equal(seen, false, "the landing page never showed on another route");
        // Client-side navigation home renders the landing page without a reload.
        await g.page.getByRole("link", { name: "Go to Home" }).click();
        await g.page.getByRole("heading", { name: HEADLINE }).waitFor();
        g.assertNoErrors();
      } finally {
        await g.close();
      }
    })(),
  );
});

Deno.test("[browser] prerender suite teardown", opts, async () => {
  await teardown();
});
