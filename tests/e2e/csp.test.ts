/**
 * The Content-Security-Policy against the built client in Chromium: the main journey (landing,
 * sign up, camera, upload, studio, generate, result, download) runs with zero CSP violations,
 * counted from `securitypolicyviolation` events and from the console.
 */
import assert from "node:assert/strict";
import { type LiveServer, startLiveServer } from "../helpers/live-server.ts";
import { HAS_CHROMIUM, launchBrowser, openPage, waitForImageLoaded } from "./browser.ts";
import { writePortrait } from "./fixtures.ts";
import { PASSWORD, toast, uniqueEmail } from "./harness.ts";

/** Where the page collects `securitypolicyviolation` events. */
type Collector = { __cspViolations?: string[] };

Deno.test({
  name: "[browser] CSP: landing -> sign up -> camera -> upload -> studio -> result with zero violations",
  ignore: !HAS_CHROMIUM,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const tmp = await Deno.makeTempDir({ prefix: "styletwin-csp-" });
  let server: LiveServer | undefined;
  // A synthetic camera that needs no permission prompt.
  const browser = await launchBrowser([
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
  ]);
  try {
    const [live, portrait] = await Promise.all([startLiveServer(), writePortrait(tmp)]);
    server = live;
    const head = await fetch(server.url + "/");
    await head.body?.cancel();
    const policy = head.headers.get("Content-Security-Policy") ?? "";
    assert.match(policy, /script-src 'self'(;|$)/);
    assert.ok(!policy.includes("unsafe-inline") && !policy.includes("unsafe-eval"), policy);

    const g = await openPage(browser, server.url, { permissions: ["camera"] });
    const { page } = g;
    const consoleViolations: string[] = [];
    page.on("console", (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) consoleViolations.push(msg.text());
    });
    await page.addInitScript(() => {
      (globalThis as Collector).__cspViolations = [];
      document.addEventListener("securitypolicyviolation", (e) => {
        (globalThis as Collector).__cspViolations!.push(
          `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
        );
      });
    });
    const violations = async () => [
      ...await page.evaluate(() => (globalThis as Collector).__cspViolations ?? []),
      ...consoleViolations,
    ];

    try {
      // Landing.
      await page.goto("/");
      await page.getByRole("heading", { name: "Create Your Digital Human" }).waitFor();

      // Sign up through the dialog.
      await page.getByRole("button", { name: "Sign Up" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByLabel("Full Name").fill("Csp Tester");
      await dialog.getByLabel("Email").fill(uniqueEmail("csp"));
      await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await dialog.getByLabel("Confirm Password").fill(PASSWORD);
      await dialog.getByRole("button", { name: "Create Account" }).click();
      await toast(page, "Registration Successful").waitFor();
      await dialog.waitFor({ state: "detached" });

      // The camera: a live preview, a capture shown from a blob: URL.
      await page.getByRole("button", { name: "Use Camera" }).click();
      const camera = page.getByRole("dialog", { name: "Take a Photo" });
      await camera.waitFor();
      const capture = camera.getByRole("button", { name: "Capture" });
      await page.waitForFunction(
        () => {
          const b = [...document.querySelectorAll("button")].find((x) => x.textContent?.includes("Capture"));
          return !!b && !b.disabled;
        },
        undefined,
        { timeout: 20_000 },
      );
      await capture.click();
      await waitForImageLoaded(page, 'img[alt="Captured photo"]');
      assert.match(await page.locator('img[alt="Captured photo"]').getAttribute("src") ?? "", /^blob:/);
      await page.keyboard.press("Escape");
      await camera.waitFor({ state: "detached" });

      // Upload a portrait, the studio, a generation, the result and its download.
      await page.getByTestId("landing-file-input").setInputFiles(portrait);
      await page.waitForURL(/\/studio\?photo=/);
      await page.getByText("1 image(s) provided").waitFor();
      await page.getByRole("tab", { name: "Scene Composer" }).click();
      await page.getByRole("radiogroup", { name: "Lighting", exact: true }).waitFor();
      await page.getByRole("tab", { name: "Appearance Studio" }).click();
      await page.getByRole("button", { name: "Generate Avatar" }).click();
      await toast(page, "Generation Complete!").waitFor({ timeout: 90_000 });
      await waitForImageLoaded(page, 'img[alt="Your styled avatar"]');
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Download image" }).click(),
      ]);
      assert.ok((await Deno.stat(await download.path())).size > 1000);

      // Reload (the whole app boots again under the policy).
      await page.reload();
      await waitForImageLoaded(page, 'img[alt="Your styled avatar"]').catch(() => {});

      assert.deepEqual(await violations(), []);
      g.assertNoErrors();
    } finally {
      await g.close();
    }
  } finally {
    await browser.close().catch(() => {});
    await server?.close().catch(() => {});
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
});
