/**
 * Accessibility in a real browser: axe-core reports no serious or critical violation on the
 * screens of the public site and the studio, at phone and desktop sizes.
 */
import { DESKTOP, PHONE, withPage } from "./browser.ts";
import { expectNoSeriousAxeViolations } from "./axe.ts";
import { createSuite, opts } from "./harness.ts";

const { setup, teardown } = createSuite({});

Deno.test(
  "[browser] axe: the landing page, the sign-in and sign-up dialogs and the camera dialog, phone and desktop",
  opts,
  async () => {
    const { server, browser } = await setup();
    for (const [label, viewport] of [["phone", PHONE], ["desktop", DESKTOP]] as const) {
      await withPage(browser, server.url, async ({ page }) => {
        await page.goto("/");
        await page.getByRole("heading", { name: "Create Your Digital Human" }).waitFor();
        await expectNoSeriousAxeViolations(page, `landing (${label})`);

        await page.getByRole("button", { name: "Login", exact: true }).click();
        const dialog = page.getByRole("dialog");
        await dialog.getByRole("button", { name: "Sign In" }).waitFor();
        await expectNoSeriousAxeViolations(page, `sign-in dialog (${label})`);
        await dialog.getByRole("button", { name: "Sign up" }).click();
        await dialog.getByRole("button", { name: "Create Account" }).click(); // empty: field errors
        await dialog.getByRole("alert").first().waitFor();
        await expectNoSeriousAxeViolations(page, `sign-up dialog with errors (${label})`);
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "detached" });

        await page.getByRole("button", { name: "Use Camera" }).click();
        const camera = page.getByRole("dialog", { name: "Take a Photo" });
        await camera.getByRole("button", { name: "Upload Photo(s)" }).waitFor();
        await expectNoSeriousAxeViolations(page, `camera dialog (${label})`);
      }, { viewport });
    }
  },
);

Deno.test("[browser] a11y teardown", opts, async () => {
  await teardown();
});
