/**
 * The studio in a real browser at phone (375x812) and desktop (1440x900) sizes: the phone journey
 * without scrolling past the catalogue, toasts that never cover the primary actions, Escape order,
 * icon sizes, the live preview (only the latest is shown), options the model cannot render, the
 * catalogue's failed state, reduced motion and keyboard focus, and axe on every screen.
 * Screenshots: test-results/screenshots/studio-*-{phone,desktop}.png.
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { expectNoSeriousAxeViolations } from "./axe.ts";
import {
  DESKTOP,
  type GuardedPage,
  PHONE,
  SCREENSHOT_DIR,
  settled,
  waitForImageLoaded,
  withPage,
} from "./browser.ts";
import {
  createSuite,
  holdGenerationStatus,
  opts,
  PASSWORD,
  registerViaApi,
  signInWithTokens,
  toast,
  toastText,
} from "./harness.ts";

const { setup, teardown, pageTest, bothSizesTest } = createSuite({});

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(l: Locator): Promise<Box> {
  const b = await l.boundingBox();
  assert.ok(b, "the element is rendered");
  return b;
}

async function shot(page: Page, name: string) {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  await settled(page); // a toast or popover has finished its entrance
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname });
}

/** The preview endpoint may not exist on this server yet: its 404 is then expected in the console. */
async function allowMissingPreview(g: GuardedPage, base: string) {
  const res = await fetch(`${base}/api/preview`, { method: "POST" });
  await res.body?.cancel();
  if (res.status === 404) g.allow(/status of 404/);
  g.allow(/status of 422/); // "these choices change nothing" is an answer, not a failure
}

async function openStudio(g: GuardedPage, base: string, portrait: string, name = "Ada Lovelace") {
  const { page } = g;
  await allowMissingPreview(g, base);
  await signInWithTokens(page, await registerViaApi(base, name));
  await page.getByTestId("user-label").filter({ hasText: name.split(" ")[0] }).waitFor();
  await page.getByTestId("landing-file-input").setInputFiles(portrait);
  await page.waitForURL(/\/studio\?photo=/);
  await page.getByRole("heading", { name: "AI Makeup Studio" }).waitFor();
}

/** Phones: opens a collapsible option group unless it is open already. */
async function openGroup(page: Page, key: string) {
  const header = page.locator(`[data-group="${key}"] button[aria-expanded]`);
  if (await header.count() && await header.getAttribute("aria-expanded") === "false") await header.click();
}

/** The first option of a group that the active model can render (not the default). */
const renderable = (page: Page, key: string, n = 1) =>
  page.locator(`[data-group="${key}"] [role=radio]:not([data-unavailable])`).nth(n);

pageTest(
  "[browser] phone 375x812: upload, style, generate and download without scrolling past the catalogue",
  async (g, { server, portrait }) => {
    const { page } = g;
    await openStudio(g, server.url, portrait);
    await page.locator('main[data-layout="phone"]').waitFor();

    // The photo is pinned at the top and Generate is on screen without scrolling.
    const stage = await box(page.getByTestId("phone-stage"));
    assert.ok(Math.abs(stage.y - 65) <= 1, `the photo sits right under the header (y ${stage.y})`);
    const bar = await box(page.getByTestId("sticky-generate"));
    assert.ok(
      bar.y + bar.height <= PHONE.height + 0.5 && bar.y > PHONE.height - 120,
      "the Generate bar is on screen",
    );
    await page.getByTestId("sticky-generate").getByText("2 credits").waitFor();
    // Before any generation the stage says where the avatar will appear, as the desktop's result panel does.
    await page.getByTestId("phone-stage").getByText("Your AI Avatar Awaits").waitFor();
    await expectNoSeriousAxeViolations(page, "studio options (phone)");
    await shot(page, "studio-options-phone");

    // Compact groups: one open at a time. Open Lips, pick a shade; Look Style closes.
    await openGroup(page, "lips");
    assert.equal(
      await page.locator('[data-group="lips"] button[aria-expanded]').getAttribute("aria-expanded"),
      "true",
    );
    assert.equal(
      await page.locator('[data-group="lookStyle"] button[aria-expanded]').getAttribute("aria-expanded"),
      "false",
    );
    // Every shade's whole name shows under its swatch (none cut to "Classic Red...").
    const cutNames = await page.locator('[data-group="lips"] [data-option-label]').evaluateAll((all) =>
      all.filter((el) => el.scrollHeight > el.clientHeight + 1).map((el) => el.textContent)
    );
    assert.deepEqual(cutNames, [], "no lip shade's name is cut on a phone");
    const lip = renderable(page, "lips");
    const lipName = (await lip.getAttribute("aria-label"))!;
    await lip.click();
    assert.equal(await lip.getAttribute("aria-checked"), "true");
    // The whole catalogue is a few screens, not one 3,600 px column; the bar stays put.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(height < 2 * PHONE.height, `the styled page is ${height} px tall`);
    const barNow = await box(page.getByTestId("sticky-generate"));
    assert.ok(barNow.y + barNow.height <= PHONE.height + 0.5);
    await shot(page, "studio-lips-open-phone");

    // Generate from the bar: the result takes the screen, with progress and an estimate in view.
    const release = await holdGenerationStatus(page);
    await page.getByTestId("generate-bar-button").click();
    const progress = page.getByTestId("generation-progress");
    await progress.waitFor();
    const p = await box(progress);
    assert.ok(p.y >= 64 && p.y + 60 < PHONE.height, "progress is where the user looks");
    assert.match(
      (await page.getByTestId("generation-estimate").textContent()) ?? "",
      /About \d+ s left|Almost done/,
    );
    await page.getByText("Generating your styled image in 9:16 format...").waitFor();
    await expectNoSeriousAxeViolations(page, "generating (phone)");
    await shot(page, "studio-generating-phone");
    release();

    // Done: the toast covers neither Download nor Edit look.
    const done = toast(page, "Generation Complete!");
    await done.waitFor({ timeout: 90_000 });
    await waitForImageLoaded(page, 'img[alt="Your styled avatar"]');
    await settled(page); // the toast's entrance
    const toastBox = await box(done);
    for (const name of ["Download image", "Edit look"]) {
      const b = await box(page.getByRole("button", { name }));
      assert.ok(b.y + b.height <= PHONE.height + 0.5, `${name} is on screen`);
      assert.ok(!overlaps(toastBox, b), `the toast does not cover ${name}`);
    }
    assert.ok(!overlaps(toastBox, await box(page.getByRole("tab", { name: "Before / After" }))));
    await expectNoSeriousAxeViolations(page, "result (phone)");
    await shot(page, "studio-result-phone");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download image" }).click(),
    ]);
    assert.ok((await Deno.stat(await download.path())).size > 1000, "the downloaded file arrives");
    await page.getByRole("tab", { name: "Before / After" }).click();
    await page.getByTestId("compare").waitFor();
    await shot(page, "studio-compare-phone");

    // Edit look: back to the options with the choice kept.
    await page.getByRole("button", { name: "Edit look" }).click();
    await page.getByTestId("phone-stage").waitFor();
    await openGroup(page, "lips");
    const kept = page.locator('[data-group="lips"]').getByRole("radio", { name: lipName, exact: true });
    assert.equal(await kept.getAttribute("aria-checked"), "true", "the lipstick is still chosen");
    await page.getByRole("button", { name: "View result" }).waitFor();

    // Another shade: the stage previews it; View result still shows the paid result with its Download (it
    // showed the preview, with no control on the screen at all).
    const other = page.locator('[data-group="lips"]').getByRole("radio").filter({ hasNot: kept }).nth(2);
    const previewed = page.waitForResponse((r) => r.url().endsWith("/api/preview") && r.status() === 200);
    await other.click();
    await previewed;
    await page.getByRole("button", { name: "View result" }).click();
    await waitForImageLoaded(page, 'img[alt="Your styled avatar"]');
    await page.getByRole("button", { name: "Download image" }).waitFor();
    await page.getByRole("button", { name: "Edit look" }).click();

    // A generation that fails keeps the way back to the options (the screen had no control but the header's).
    await page.route(/\/api\/generation\/[^/]+\/events$/, (route) =>
      route.fulfill({
        status: 200,
        headers: { "content-type": "text/event-stream" },
        body: `event: status\ndata: ${JSON.stringify({ status: "failed", resultUrl: null })}\n\n`,
      }));
    await page.getByTestId("generate-bar-button").click();
    await toast(page, "Generation Failed").waitFor();
    await shot(page, "studio-failed-phone");
    await page.getByRole("button", { name: "Edit look" }).click();
    await page.getByTestId("phone-stage").waitFor();
    await page.getByTestId("generate-bar-button").waitFor();
  },
  { viewport: PHONE },
);

pageTest(
  "[browser] desktop 1440x900: two columns, a look shows what it includes, toasts clear the result's buttons",
  async (g, { server, portrait }) => {
    const { page } = g;
    await openStudio(g, server.url, portrait, "Grace Hopper");
    await page.locator('main[data-layout="desktop"]').waitFor();
    const left = await box(page.getByRole("region", { name: "Reference Photo" }));
    const right = await box(page.getByRole("region", { name: "Generate" }));
    assert.ok(right.x > left.x + left.width, "Generate is in the right-hand column");

    // A default category's slider is disabled and shows no value.
    assert.equal(await page.getByTestId("intensity-eyeshadow").textContent(), "");
    assert.notEqual(
      await page.getByRole("slider", { name: "Eyeshadow intensity" }).getAttribute("data-disabled"),
      null,
      "the slider is disabled",
    );

    // In the user's terms; the model's name only in the details popover.
    const notice = page.getByTestId("model-notice");
    assert.doesNotMatch((await notice.textContent()) ?? "", /Image model:|can't render/);
    await page.getByRole("button", { name: "Image model details" }).click();
    await page.getByText(/Image model: \w+/).waitFor();
    await shot(page, "studio-model-details-desktop");
    await page.keyboard.press("Escape");

    // Soft Glam: what it includes, and the categories say they come from the look.
    await page.getByRole("radio", { name: "Soft Glam", exact: true }).click();
    const summary = page.getByTestId("look-summary");
    await summary.getByText("Soft Glam includes").waitFor();
    await summary.getByText("Lips:").waitFor();
    assert.match((await page.getByTestId("value-lips").textContent()) ?? "", /\(Soft Glam\)$/);
    assert.match((await page.getByTestId("intensity-eyeshadow").textContent()) ?? "", /^\d+%$/);
    await expectNoSeriousAxeViolations(page, "studio with a look (desktop)");
    await shot(page, "studio-look-desktop");

    // Keyboard: arrows move between shades with a visible focus ring.
    const lips = page.getByRole("radiogroup", { name: "Lips", exact: true });
    await lips.getByRole("radio").first().focus();
    await page.keyboard.press("ArrowRight");
    const ring = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { role: el.getAttribute("role"), outline: getComputedStyle(el).outlineStyle };
    });
    assert.equal(ring.role, "radio");
    assert.notEqual(ring.outline, "none", "the focused swatch shows a focus ring");

    // The result appears whole: its image was downloaded before it was shown (no empty frame that
    // fills in), and fetched once.
    await page.evaluate(() => {
      const SELECTOR = 'img[alt="Your styled avatar"]';
      const before = document.querySelector<HTMLImageElement>(SELECTOR)?.src;
      const w = globalThis as unknown as { resultShownLoaded?: boolean };
      performance.clearResourceTimings();
      new MutationObserver((_, observer) => {
        const img = document.querySelector<HTMLImageElement>(SELECTOR);
        if (!img || img.src === before) return;
        w.resultShownLoaded = img.complete && img.naturalWidth > 0;
        observer.disconnect();
      }).observe(document.body, { childList: true, subtree: true, attributes: true });
    });
    // Generation Complete! sits clear of Download and the Generate button.
    const release = await holdGenerationStatus(page);
    await page.getByTestId("generate-card-button").click();
    await page.getByTestId("generation-progress").waitFor();
    await shot(page, "studio-generating-desktop");
    release();
    const done = toast(page, "Generation Complete!");
    await done.waitFor({ timeout: 90_000 });
    await waitForImageLoaded(page, 'img[alt="Your styled avatar"]');
    const shown = await page.evaluate(() => {
      const img = document.querySelector<HTMLImageElement>('img[alt="Your styled avatar"]')!;
      return {
        loaded: (globalThis as unknown as { resultShownLoaded?: boolean }).resultShownLoaded,
        requests: performance.getEntriesByName(img.src).length,
      };
    });
    assert.deepEqual(
      shown,
      { loaded: true, requests: 1 },
      "the result image is loaded once, before it shows",
    );
    // Focus is back on Generate (disabling it while generating dropped it to the page).
    await page.waitForFunction(() =>
      document.activeElement?.getAttribute("data-testid") === "generate-card-button"
    );
    await settled(page); // the toast's entrance
    const toastBox = await box(done);
    for (
      const target of [
        page.getByRole("button", { name: "Download image" }),
        page.getByTestId("generate-card-button"),
      ]
    ) {
      assert.ok(!overlaps(toastBox, await box(target)), "the toast covers no primary action");
    }
    await expectNoSeriousAxeViolations(page, "result (desktop)");
    await shot(page, "studio-result-desktop");
    await page.getByRole("tab", { name: "Before / After" }).click();
    await page.getByTestId("compare").waitFor();
    await shot(page, "studio-compare-desktop");

    // Another shade: the panel previews it; the paid result (and its Download) is one click away, not only
    // by choosing the exact same options again.
    const previewed = page.waitForResponse((r) => r.url().endsWith("/api/preview") && r.status() === 200);
    await page.keyboard.press("Escape");
    await lips.getByRole("radio").nth(3).click();
    await previewed;
    await shot(page, "studio-preview-after-result-desktop");
    await page.getByRole("button", { name: "View last result" }).click();
    await page.getByRole("button", { name: "Download image" }).waitFor();
    await page.getByRole("button", { name: "Back to preview" }).click();
    await page.getByRole("button", { name: "View last result" }).waitFor();
  },
  { viewport: DESKTOP },
);

bothSizesTest(
  "[browser] the offline model: options it cannot render are unavailable with the reason; instructions and 360° off",
  async (g, { server, portrait }, label) => {
    const { page } = g;
    await openStudio(g, server.url, portrait, "Barbara Liskov");
    await page.getByRole("tab", { name: "Hair Studio" }).click();
    await page.getByRole("heading", { name: "AI Hair Studio" }).waitFor();
    const group = page.locator('[data-group="hairStyle"]');
    await openGroup(page, "hairStyle");
    const pixie = group.getByRole("radio", { name: "Pixie Cut (unavailable)" });
    assert.equal(await pixie.isDisabled(), true, "an unrenderable haircut cannot be chosen");
    await pixie.click({ force: true });
    assert.equal(await pixie.getAttribute("aria-checked"), "false");
    await group.getByText(/generative image model/).waitFor();
    // Hair colour is rendered: selectable.
    await openGroup(page, "hairColor");
    const shade = renderable(page, "hairColor");
    await shade.click();
    assert.equal(await shade.getAttribute("aria-checked"), "true");

    const view360 = page.getByRole("checkbox", { name: "360° View" });
    assert.equal(await view360.isDisabled(), true);
    await page.getByRole("button", { name: "Why the 360° view is off" }).click();
    await page.getByRole("dialog").getByText(/360° view needs a generative image model/).waitFor();
    await page.keyboard.press("Escape");
    await page.getByLabel("Additional Instructions").scrollIntoViewIfNeeded();
    assert.equal(await page.getByLabel("Additional Instructions").isDisabled(), true);
    await page.getByText(/Additional instructions need a generative image model/).first().waitFor();
    await expectNoSeriousAxeViolations(page, `hair studio (${label})`);
    await shot(page, `studio-unavailable-${label}`);
  },
);

// At desktop size only: a tile is 4.75 rem wide on every screen, and there every group is open at once.
pageTest(
  "[browser] every option's name shows whole in its tile, in all four studios",
  async (g, { server, portrait }) => {
    const { page } = g;
    await openStudio(g, server.url, portrait, "Grace Hopper");
    const cut: string[] = [];
    let names = 0;
    const measure = async () => {
      for (
        const key of await page.locator("[data-group]").evaluateAll((all) =>
          all.map((el) => el.getAttribute("data-group")!)
        )
      ) {
        await openGroup(page, key);
        // Inside the tile's border, and not clamped: "Natural (as photographed)" stuck 4 px out of its tile
        // at every screen size.
        const found = await page.locator(`[data-group="${key}"] [data-option-label]`).evaluateAll((all) =>
          all.map((el) => {
            const r = el.getBoundingClientRect();
            const t = el.closest("[role=radio]")!.getBoundingClientRect();
            const inside = r.left >= t.left + 1.5 && r.right <= t.right - 1.5 &&
              el.scrollHeight <= el.clientHeight + 1;
            return { name: el.textContent ?? "", inside };
          })
        );
        names += found.length;
        cut.push(...found.filter((f) => !f.inside).map((f) => `${key}: ${f.name}`));
      }
    };
    await measure();
    for (const studio of ["Hair Studio", "Barber Shop"]) {
      await page.getByRole("tab", { name: studio }).click();
      await measure();
    }
    await page.getByRole("tab", { name: "Scene Composer" }).click();
    await measure();
    assert.ok(names > 100, `${names} option names measured`);
    assert.deepEqual(cut, [], "every option's name inside its tile");
  },
);

bothSizesTest(
  "[browser] a photo with no face: the photo card says why at once, the live preview gives the reason, Generate is refused without a charge",
  async (g, { server, landscape }, label) => {
    const { page } = g;
    await openStudio(g, server.url, landscape, "Mary Jackson");
    // Before anything is chosen, the reference photo's card says the photo cannot be styled.
    const reason = "No face found: use a front-facing photo with one person";
    const problem = page.getByTestId("photo-problem");
    await problem.filter({ hasText: reason }).waitFor({ timeout: 30_000 });
    assert.equal(await problem.getAttribute("role"), "alert");
    await shot(page, `studio-photo-problem-${label}`);
    await openGroup(page, "lips");
    if (label === "phone") {
      // The card above the stage says it already: once the preview has answered, the stage's note
      // (shown while it renders) goes rather than repeat it.
      const answered = page.waitForResponse((r) => r.url().endsWith("/api/preview"), { timeout: 30_000 });
      await renderable(page, "lips").click();
      assert.equal((await answered).status(), 422);
      await page.getByTestId("stage-note").waitFor({ state: "detached" });
    } else {
      await renderable(page, "lips").click();
      const where = page.getByTestId("preview");
      await where.getByText(reason).waitFor({ timeout: 30_000 });
      assert.equal(await where.getByText("These choices would not change your photo.").count(), 0);
    }
    assert.equal(await problem.count(), 1);
    // Generate says the same and charges nothing: the server refuses the photo before any charge.
    const pill = page.getByTestId("credits-pill");
    const credits = ((await pill.textContent()) ?? "").trim();
    const refused = page.waitForResponse((r) => r.url().endsWith("/api/generate"), { timeout: 30_000 });
    await (label === "phone"
      ? page.getByTestId("generate-bar-button")
      : page.getByRole("button", { name: "Generate Avatar" })).click();
    assert.equal((await refused).status(), 422);
    await toast(page, "Generation Failed").waitFor({ timeout: 30_000 });
    await toastText(page, reason).waitFor();
    assert.equal(((await pill.textContent()) ?? "").trim(), credits);
  },
);

const PREVIEW_REFUSED =
  "None of these choices can be applied to this photo, so Generate would make nothing (and charge nothing). Try another choice.";

bothSizesTest(
  "[browser] a shade the photo cannot take: the live preview says so; Generate is refused with the reason, nothing charged",
  async (g, { server, portrait }, label) => {
    // The portrait's dark hair would need bleaching for Platinum Blonde: the real local model refuses it.
    const { page } = g;
    g.allow(/status of 4\d\d/);
    await openStudio(g, server.url, portrait, "Grace Hopper");
    const pill = page.getByTestId("credits-pill");
    const credits = ((await pill.textContent()) ?? "").trim();
    await page.getByRole("tab", { name: "Hair Studio" }).click();
    await page.getByRole("heading", { name: "AI Hair Studio" }).waitFor();
    await openGroup(page, "hairColor");
    await page.locator('[data-group="hairColor"]').getByRole("radio", { name: "Platinum Blonde" }).click();
    if (label === "phone") {
      await page.getByTestId("stage-note").getByText(
        "These choices cannot be applied to this photo: try another choice.",
      ).waitFor({ timeout: 30_000 });
    } else {
      const preview = page.getByTestId("preview");
      await preview.getByText(PREVIEW_REFUSED).waitFor({ timeout: 30_000 });
      await preview.getByTestId("preview-notes").getByText('Hair Color "Platinum Blonde" was not applied', {
        exact: false,
      }).waitFor();
    }
    await expectNoSeriousAxeViolations(page, `refused preview (${label})`);
    await shot(page, `studio-preview-refused-${label}`);

    const previewsAsked: string[] = [];
    page.on("request", (r) => r.url().endsWith("/api/preview") && previewsAsked.push(r.url()));
    await (label === "phone"
      ? page.getByTestId("generate-bar-button")
      : page.getByRole("button", { name: "Generate Avatar" })).click();
    // The preview taught the server: Generate on these choices is refused before any charge, with the reason.
    await toast(page, "Generation Failed").waitFor({ timeout: 30_000 });
    await toastText(
      page,
      'Nothing could be changed on this photo: Hair Color "Platinum Blonde" was not applied',
    )
      .waitFor();
    await toastText(page, "Try another choice; you were not charged.").waitFor();
    assert.equal(((await pill.textContent()) ?? "").trim(), credits);
    // The refused preview is shown again as it was, not asked for again.
    await (label === "phone"
      ? page.getByTestId("stage-note").getByText(
        "These choices cannot be applied to this photo: try another choice.",
      )
      : page.getByTestId("preview").getByText(PREVIEW_REFUSED)).waitFor();
    assert.deepEqual(previewsAsked, []);
    await shot(page, `studio-generate-refused-${label}`);
  },
);

/** A solid JPEG `width` px wide (9:16), so a test can tell which preview the page shows. */
function jpeg(width: number, r: number): Promise<Buffer> {
  return sharp({
    create: { width, height: Math.round(width * 16 / 9), channels: 3, background: { r, g: 90, b: 120 } },
  }).jpeg().toBuffer();
}

Deno.test(
  "[browser] live preview: debounced, stale requests cancelled, only the latest shown; 429, 422 and hosted texts",
  opts,
  async () => {
    const { server, browser, portrait } = await setup();
    await withPage(browser, server.url, async (g) => {
      const { page } = g;
      g.allow(/status of 429|status of 422/);
      // The preview endpoint as the browser sees it: request 1 answers late, the others at once.
      const bodies: unknown[] = [];
      const failed: string[] = [];
      let mode: "ok" | "429" | "422" = "ok";
      page.on(
        "requestfailed",
        (r) => r.url().endsWith("/api/preview") && failed.push(r.failure()?.errorText ?? ""),
      );
      await page.route("**/api/preview", async (route) => {
        const n = bodies.push(route.request().postDataJSON());
        if (mode === "429") return route.fulfill({ status: 429, json: { detail: "Too many requests" } });
        if (mode === "422") {
          return route.fulfill({
            status: 422,
            json: { detail: "These choices would not change your photo." },
          });
        }
        if (n === 1) await new Promise((r) => setTimeout(r, 1500));
        await route.fulfill({ status: 200, contentType: "image/jpeg", body: await jpeg(100 + n, 40 * n) })
          .catch(() => {}); // aborted by the page: nothing to answer
      });
      await openStudio(g, server.url, portrait, "Edsger Dijkstra");

      const lips = page.getByRole("radiogroup", { name: "Lips", exact: true });
      const shades = lips.locator("[role=radio]:not([data-unavailable])");
      await shades.nth(1).click();
      await page.waitForFunction(() => true);
      // Wait until request 1 is on its way, then change the choice.
      for (let i = 0; i < 50 && bodies.length < 1; i++) await page.waitForTimeout(100);
      assert.equal(bodies.length, 1, "the first preview was requested");
      await shades.nth(2).click();
      const img = page.getByTestId("preview-image");
      await page.waitForFunction(
        () =>
          (document.querySelector('[data-testid="preview-image"]') as HTMLImageElement | null)
            ?.naturalWidth === 102,
        undefined,
        { timeout: 10_000 },
      );
      // Past the time request 1 would have answered: still the latest preview, and request 1 was cancelled.
      await page.waitForTimeout(1800);
      assert.equal(await img.evaluate((el) => (el as HTMLImageElement).naturalWidth), 102);
      assert.equal(failed.length, 1, "the stale request was aborted");
      await page.getByTestId("preview").getByText("Preview", { exact: true }).waitFor();
      assert.equal((bodies[1] as { options: { lips: string } }).options.lips.length > 0, true);

      // Debounced: five slider steps in a row make one request.
      const before = bodies.length;
      const slider = page.getByRole("slider", { name: "Lips intensity" });
      await slider.focus();
      for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
      await page.waitForFunction(
        () =>
          (document.querySelector('[data-testid="preview-image"]') as HTMLImageElement | null)
            ?.naturalWidth === 103,
        undefined,
        { timeout: 10_000 },
      );
      assert.equal(bodies.length - before, 1, "one request for a burst of slider moves");
      assert.equal((bodies.at(-1) as { intensity: { lips: number } }).intensity.lips, 85);
      await expectNoSeriousAxeViolations(page, "preview (desktop)");
      await shot(page, "studio-preview-desktop");

      mode = "429";
      await slider.focus();
      await page.keyboard.press("ArrowLeft");
      await page.getByText("Preview paused for a moment: too many changes in a minute.").waitFor();
      assert.equal(
        await img.evaluate((el) => (el as HTMLImageElement).naturalWidth),
        103,
        "the last image stays",
      );
      mode = "422";
      await page.keyboard.press("ArrowLeft");
      await page.getByTestId("preview").getByText("These choices would not change your photo.").waitFor();
    });

    // With a hosted model active the preview says the final image will be generated.
    await withPage(browser, server.url, async (g) => {
      const { page } = g;
      await page.route("**/api/styling-options", async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        body.models = {
          active: "gemini-2.5-flash-image",
          angles: ["front", "right", "left", "back"],
          supported: {},
        };
        for (const [studio, groups] of Object.entries(body)) {
          if (studio === "models" || studio === "defaults" || studio === "presentation") continue;
          for (const list of Object.values(groups as Record<string, { id: string }[]>)) {
            for (const key of Object.keys(body.defaults)) {
              body.models.supported[key] = [...(body.models.supported[key] ?? []), ...list.map((e) => e.id)];
            }
          }
        }
        await route.fulfill({ response: res, json: body });
      });
      await page.route(
        "**/api/preview",
        async (route) =>
          route.fulfill({ status: 200, contentType: "image/jpeg", body: await jpeg(120, 200) }),
      );
      await openStudio(g, server.url, portrait, "Alan Kay");
      await page.getByRole("radiogroup", { name: "Lips", exact: true }).getByRole("radio").nth(1).click();
      await page.getByText("the final image will be generated by the AI model").first().waitFor();
      assert.equal(await page.getByRole("checkbox", { name: "360° View" }).isDisabled(), false);
      assert.equal(await page.getByLabel("Additional Instructions").isDisabled(), false);
      await shot(page, "studio-preview-hosted-desktop");
    });
  },
);

Deno.test(
  "[browser] first visit: Generate says why an account is needed and offers sign-up; Escape closes the dialog, not the toast",
  opts,
  async () => {
    const { server, browser, portrait } = await setup();
    const { email: taken } = await registerViaApi(server.url, "Taken");
    for (const [label, viewport] of [["phone", PHONE], ["desktop", DESKTOP]] as const) {
      await withPage(browser, server.url, async (g) => {
        const { page } = g;
        g.allow(/status of 409|status of 400|status of 422/);
        await page.goto("/");
        await page.getByTestId("landing-file-input").setInputFiles(portrait);
        await page.waitForURL(/\/studio\?photo=/);
        await page.getByRole("button", { name: "Generate Avatar" }).click();
        const dialog = page.getByRole("dialog", { name: "Create your account" });
        await dialog.getByTestId("auth-reason").getByText("it needs a free account").waitFor();
        await expectNoSeriousAxeViolations(page, `sign-up dialog (${label})`);
        await shot(page, `studio-signup-reason-${label}`);

        // A toast over the dialog (the email is taken), then Escape: the dialog closes, the toast stays.
        await dialog.getByLabel("Full Name").fill("Second Taken");
        await dialog.getByLabel("Email").fill(taken);
        await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
        await dialog.getByLabel("Confirm Password").fill(PASSWORD);
        await dialog.getByRole("button", { name: "Create Account" }).click();
        const failed = toast(page, "Registration Failed");
        await failed.waitFor();
        await settled(page); // the toast's entrance
        // Over a dialog the toast covers neither its primary action nor its close button.
        const over = await box(failed);
        for (const name of ["Create Account", "Close"]) {
          assert.ok(
            !overlaps(over, await box(dialog.getByRole("button", { name, exact: true }))),
            `${name} is clear`,
          );
        }
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "detached" });
        assert.ok(await failed.isVisible(), "the toast is still there");
        // Phone: the toast is not over the Generate bar.
        if (label === "phone") {
          assert.ok(!overlaps(await box(failed), await box(page.getByTestId("sticky-generate"))));
        }
      }, { viewport });
    }
  },
);

Deno.test(
  "[browser] icons keep their size: Upload Photo(s) and logout, phone and desktop",
  opts,
  async () => {
    const { server, browser } = await setup();
    for (const viewport of [PHONE, DESKTOP]) {
      await withPage(browser, server.url, async ({ page }) => {
        await page.goto("/");
        const upload = await box(page.getByRole("button", { name: "Upload Photo(s)" }).locator("svg"));
        assert.ok(
          upload.width >= 19 && upload.height >= 19,
          `Upload Photo(s) icon ${upload.width}x${upload.height}`,
        );
        await signInWithTokens(page, await registerViaApi(server.url, "Icon Tester"));
        const logout = await box(page.getByRole("button", { name: "Logout" }).locator("svg"));
        assert.ok(
          Math.abs(logout.width - 20) < 0.5 && Math.abs(logout.height - 20) < 0.5,
          `logout icon ${logout.width}x${logout.height}`,
        );
      }, { viewport });
    }
  },
);

Deno.test(
  "[browser] the catalogue failed to load: a retry, not a blank panel; reduced motion is honoured",
  opts,
  async () => {
    const { server, browser, portrait } = await setup();
    for (const [label, viewport] of [["phone", PHONE], ["desktop", DESKTOP]] as const) {
      await withPage(browser, server.url, async (g) => {
        const { page } = g;
        g.allow(/status of 500/);
        await page.route(
          "**/api/styling-options",
          (route) => route.fulfill({ status: 500, json: { detail: "down" } }),
        );
        await openStudioNoCatalog(g, server.url, portrait);
        await page.getByText("Styling options could not be loaded.").waitFor({ timeout: 15_000 });
        await expectNoSeriousAxeViolations(page, `catalogue failed (${label})`);
        await shot(page, `studio-catalogue-failed-${label}`);
        await page.unroute("**/api/styling-options");
        await page.getByRole("button", { name: "Try Again" }).click();
        await page.getByRole("heading", { name: "AI Makeup Studio" }).waitFor();

        // prefers-reduced-motion: toasts, dialogs and transitions do not move.
        const durations = await page.evaluate(() =>
          ["toast", "overlay-anim", "dialog-anim"].map((cls) => {
            const el = document.createElement("div");
            el.className = cls;
            el.setAttribute("data-state", "open");
            document.body.append(el);
            const d = parseFloat(getComputedStyle(el).animationDuration);
            el.remove();
            return d;
          })
        );
        for (const d of durations) assert.ok(d < 0.01, `animation ${d}s under reduced motion`);
      }, { viewport, reducedMotion: "reduce" });
    }
  },
);

async function openStudioNoCatalog(g: GuardedPage, base: string, portrait: string) {
  const { page } = g;
  await allowMissingPreview(g, base);
  await signInWithTokens(page, await registerViaApi(base, "Katherine Johnson"));
  await page.getByTestId("landing-file-input").setInputFiles(portrait);
  await page.waitForURL(/\/studio\?photo=/);
}

Deno.test("[browser] studio teardown", opts, async () => {
  await teardown();
});
