/**
 * The studio in Chromium with IMAGE_MODEL=gemini, the product's real server
 * pointed at the fake Gemini server (GEMINI_BASE_URL): the options a
 * generative model honours are enabled, and a 360° set fills its grid angle by
 * angle while it is generated.
 */
import assert from "node:assert/strict";
import { screenshots, withPage } from "./browser.ts";
import { createSuite, opts, registerViaApi, signInWithTokens, toast } from "./harness.ts";
import { startFakeGemini } from "../helpers/fake-gemini.ts";

const fake = await startFakeGemini();
// The fake outlives every test of this file, whatever order they run in (the teardown test may run first).
globalThis.addEventListener("unload", () => void fake.close());
const { setup, teardown } = createSuite({
  IMAGE_MODEL: "gemini",
  GEMINI_API_KEY: fake.apiKey,
  GEMINI_BASE_URL: fake.url,
});

const states = (page: import("playwright-core").Page) =>
  page.locator("li[data-angle]").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.state ?? ""));

Deno.test("[browser] hosted model: the 360° grid fills angle by angle", opts, async () => {
  const { server, browser, portrait } = await setup();
  // Each answer takes a while, as a real model's does: the grid has a state between angles (the
  // page records each one, so a second is plenty).
  fake.setDelay(1000);
  await withPage(browser, server.url, async (g) => {
    const { page } = g;
    const refused: string[] = [];
    page.on("response", (r) => {
      if (r.status() === 422) refused.push(new URL(r.url()).pathname);
    });
    // The free live preview is the local model's: it refuses (422) a beard it cannot draw.
    g.allow(/status of 422/);
    await signInWithTokens(page, await registerViaApi(server.url, "Ada Lovelace"));
    await page.getByTestId("landing-file-input").setInputFiles(portrait);
    await page.waitForURL(/\/studio\?photo=/);

    // A generative model: a new beard and the 360 view are available.
    await page.getByRole("tab", { name: "Barber Shop" }).click();
    const beard = page.getByRole("radiogroup", { name: "Facial Hair", exact: true });
    const full = beard.getByRole("radio", { name: /Full Beard/ });
    assert.equal(await full.getAttribute("data-unsupported"), null);
    await full.click();
    const view360 = page.getByRole("checkbox", { name: "360° View" }).first();
    assert.equal(await view360.isDisabled(), false);
    await view360.check();
    // The grid's states are recorded in the page at every change, so the order is read whatever the
    // test's own pace (a screenshot on a loaded machine outlasted an angle's 2.5 s in CI).
    await page.evaluate(() => {
      const w = globalThis as unknown as { seen360: string[]; backLabelShown: boolean; captions: string[] };
      w.seen360 = [];
      w.backLabelShown = false;
      w.captions = [];
      new MutationObserver(() => {
        const tiles = [...document.querySelectorAll<HTMLElement>("li[data-angle]")];
        const now = tiles.map((e) => e.dataset.state ?? "").join(",");
        if (now && now !== w.seen360.at(-1)) w.seen360.push(now);
        const back = tiles.find((e) => e.dataset.angle === "back" && e.dataset.state === "pending");
        if (back?.textContent?.includes("Generating the BACK view…")) w.backLabelShown = true;
        const caption = document.getElementById("view360-caption")?.textContent ?? "";
        if (caption && caption !== w.captions.at(-1)) w.captions.push(caption);
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await page.getByRole("button", { name: "Generate Avatar" }).first().click();

    // The grid opens with the front while the other angles are still being made.
    const dialog = page.getByRole("dialog", { name: "360° View - Final Look" });
    await dialog.waitFor({ timeout: 60_000 });
    await page.locator('li[data-angle="front"][data-state="ready"]').waitFor();
    // Watched from now: the toast shows for 5 s, and the screenshots below can take seconds on a loaded machine.
    const completed = toast(page, "Generation Complete!").waitFor({ timeout: 60_000 });
    await screenshots(page, "hosted-360-filling");
    // Then right, left and back arrive in that order, each labelled while it is made.
    await completed;
    const recorded = await page.evaluate(() => {
      const w = globalThis as unknown as { seen360: string[]; backLabelShown: boolean; captions: string[] };
      return { seen360: w.seen360, backLabelShown: w.backLabelShown, captions: w.captions };
    });
    assert.deepEqual(recorded.seen360, [
      "ready,pending,pending,pending",
      "ready,ready,pending,pending",
      "ready,ready,ready,pending",
      "ready,ready,ready,ready",
    ], `fill order: ${recorded.seen360.join(" | ")}`);
    assert.ok(recorded.backLabelShown, "the back tile said it was being generated");
    // The caption counts the angles still being made; "All angles generated" only once they are.
    assert.deepEqual(recorded.captions, [
      "Generating 3 more angles in 9:16 aspect ratio…",
      "Generating 2 more angles in 9:16 aspect ratio…",
      "Generating 1 more angle in 9:16 aspect ratio…",
      "All angles generated in 9:16 aspect ratio.",
    ]);
    const srcs = await dialog.locator("img").evaluateAll((els) =>
      els.map((e) => (e as HTMLImageElement).src)
    );
    assert.equal(srcs.length, 4);
    assert.equal(new Set(srcs).size, 4, "four different views, no copies of the front");
    await page.waitForFunction(() =>
      [...document.querySelectorAll("li[data-angle] img")].every((i) =>
        (i as HTMLImageElement).naturalWidth > 0
      )
    );
    await screenshots(page, "hosted-360-complete");
    assert.ok(refused.every((p) => p.startsWith("/api/preview")), `only previews refused: ${refused}`);
    const sent = fake.requests.filter((r) => /Facial Hair: Full Beard/.test(r.prompt));
    assert.equal(sent.length, 4, "four calls to the model, one per angle");
  });
});

Deno.test("[browser] hosted model: a partial 360 set names the missing view", opts, async () => {
  const { server, browser, portrait } = await setup();
  fake.setDelay(0);
  // The front is made; the right view is declined (not asked again); left and back are made.
  fake.enqueue("success", "output_blocked");
  await withPage(browser, server.url, async (g) => {
    const { page } = g;
    g.allow(/status of 422/); // the local live preview refuses what it cannot draw
    await signInWithTokens(page, await registerViaApi(server.url, "Grace Hopper"));
    await page.getByTestId("landing-file-input").setInputFiles(portrait);
    await page.waitForURL(/\/studio\?photo=/);
    await page.getByRole("tab", { name: "Barber Shop" }).click();
    await page.getByRole("radiogroup", { name: "Facial Hair", exact: true }).getByRole("radio", {
      name: /Goatee/,
    })
      .click();
    await page.getByRole("checkbox", { name: "360° View" }).first().check();
    await page.getByRole("button", { name: "Generate Avatar" }).first().click();
    await toast(page, "Generation Complete!").waitFor({ timeout: 90_000 });
    const dialog = page.getByRole("dialog", { name: "360° View - Final Look" });
    await dialog.waitFor();
    const right = page.locator('li[data-angle="right"]');
    assert.equal(await right.getAttribute("data-state"), "missing");
    await right.getByText("RIGHT view could not be generated: front view shown").waitFor();
    assert.deepEqual(await states(page), ["ready", "missing", "ready", "ready"]);
    assert.equal(
      await right.getByRole("button", { name: "Download RIGHT view" }).count(),
      0,
      "no copy saved as RIGHT",
    );
    await screenshots(page, "hosted-360-partial");
  });
});

Deno.test("[browser] hosted model: teardown", opts, async () => {
  await teardown();
});
