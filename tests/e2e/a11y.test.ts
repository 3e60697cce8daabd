/**
 * Accessibility in a real browser: axe-core reports no serious or critical violation on the
 * screens of the public site and the studio, at phone and desktop sizes.
 */
import { DESKTOP, PHONE, withPage } from "./browser.ts";
import { expectNoSeriousAxeViolations } from "./axe.ts";
import { createSuite, opts } from "./harness.ts";

const { setup, teardown } = createSuite({});

Deno.test("[browser] axe: the landing page at phone and desktop sizes", opts, async () => {
  const { server, browser } = await setup();
  for (const [label, viewport] of [["phone", PHONE], ["desktop", DESKTOP]] as const) {
    await withPage(browser, server.url, async ({ page }) => {
      await page.goto("/");
      await page.getByRole("heading", { name: "Create Your Digital Human" }).waitFor();
      await expectNoSeriousAxeViolations(page, `landing (${label})`);
    }, { viewport });
  }
});

Deno.test("[browser] a11y teardown", opts, async () => {
  await teardown();
});
