/**
 * Browser tests: real headless Chromium (playwright-core) against the real
 * server (main.ts on PGlite, the local image model). One server and one
 * browser for the file; each test uses its own browser context.
 * Screenshots: test-results/screenshots/<screen>-{phone,desktop}.png.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  DESKTOP,
  type GuardedPage,
  openPage,
  PHONE,
  screenshots,
  waitForImageLoaded,
  withPage,
} from "./browser.ts";
import {
  createSuite,
  expectInsufficientCredits,
  holdGenerationStatus,
  opts,
  PASSWORD,
  registerViaApi,
  signInWithTokens,
  toast,
  toastText,
  uniqueEmail,
} from "./harness.ts";

// Two credits: exactly one generation per account (insufficient-credits path).
const { setup, teardown, pageTest } = createSuite({ WELCOME_CREDITS: "2" });

async function expectFieldError(page: Page, message: string) {
  await page.getByRole("alert").filter({ hasText: message }).first()
    .waitFor();
}

Deno.test("[browser] landing, sign-up validation, register, log out and in", opts, async () => {
  const { server, browser } = await setup();
  await withPage(browser, server.url, async (g) => {
    const { page } = g;
    await page.goto("/");
    await page.getByRole("heading", { name: "Create Your Digital Human" })
      .waitFor();
    await page.getByText(
      "Build a consistent AI avatar from one photo and let it handle your content.",
    ).waitFor();
    await page.getByRole("heading", { name: "Provide Photo(s)" }).waitFor();
    await page.getByRole("button", { name: "Upload Photo(s)" }).waitFor();
    await page.getByRole("button", { name: "Use Camera" }).waitFor();
    await screenshots(page, "landing");

    // Use Camera: headless Chromium has no camera, so getUserMedia is refused (asynchronously,
    // after the tap): a toast, and an Upload Photo(s) button in the camera dialog that
    // opens the file picker with a real click (browsers block a picker opened outside a gesture).
    await page.getByRole("button", { name: "Use Camera" }).click();
    // Headless Chromium has no camera device: the toast and the dialog say so.
    await toast(page, "No Camera Found").waitFor();
    await toastText(page, "This device has no camera the browser can use. Choose a photo instead.").waitFor();
    const camera = page.getByRole("dialog", { name: "Take a Photo" });
    await camera.getByText("No Camera Found").waitFor();
    await screenshots(page, "camera-unavailable");
    const [chooser] = await Promise.all([
      page.waitForEvent("filechooser"),
      camera.getByRole("button", { name: "Upload Photo(s)" }).click(),
    ]);
    assert.ok(chooser.isMultiple());
    await camera.waitFor({ state: "detached" });

    // Sign-in dialog, login-mode validation.
    await page.getByRole("button", { name: "Login", exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Sign In" }).click();
    await expectFieldError(page, "Email is required");
    await expectFieldError(page, "Password is required");
    await screenshots(page, "sign-in-dialog");
    await dialog.getByLabel("Email").fill("x");
    assert.equal(
      await page.getByRole("alert").filter({ hasText: "Email is required" })
        .count(),
      0,
      "an error clears when the field is edited",
    );

    // Register mode: every validation message.
    await dialog.getByRole("button", { name: "Sign up" }).click();
    await dialog.getByLabel("Email").fill("");
    await dialog.getByRole("button", { name: "Create Account" }).click();
    for (
      const m of [
        "Full name is required",
        "Email is required",
        "Password is required",
        "Please confirm your password",
      ]
    ) await expectFieldError(page, m);
    // The first field in error as the form shows them has the focus.
    assert.equal(await page.evaluate(() => document.activeElement?.id), "auth-full_name");
    await screenshots(page, "sign-up-dialog");
    await dialog.getByLabel("Full Name").fill("Ada Lovelace");
    await dialog.getByLabel("Email").fill("not-an-email");
    await dialog.getByLabel("Password", { exact: true }).fill("Ab1!");
    await dialog.getByLabel("Confirm Password").fill("Ab1!");
    await dialog.getByRole("button", { name: "Create Account" }).click();
    await expectFieldError(page, "Email is invalid");
    await expectFieldError(page, "Password must be at least 8 characters");
    await dialog.getByLabel("Password", { exact: true }).fill("alllowercase1!");
    await dialog.getByRole("button", { name: "Create Account" }).click();
    await expectFieldError(
      page,
      "Password must contain uppercase, lowercase, number, and special character",
    );
    const email = uniqueEmail("ada");
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await dialog.getByLabel("Confirm Password").fill("Secret123?");
    await dialog.getByRole("button", { name: "Create Account" }).click();
    await expectFieldError(page, "Passwords do not match");
    await dialog.getByLabel("Confirm Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Create Account" }).click();

    await toast(page, "Registration Successful").waitFor();
    await dialog.waitFor({ state: "detached" });
    await page.getByTestId("user-label").filter({ hasText: "Ada" }).waitFor();
    assert.equal(
      (await page.getByTestId("credits-pill").textContent())?.trim(),
      "2credits",
    );
    await page.getByRole("button", { name: "Subscription" }).waitFor();
    assert.ok(await page.evaluate(() => !!localStorage.getItem("access_token")));

    // Reload keeps the session.
    await page.reload();
    await page.getByTestId("user-label").filter({ hasText: "Ada" }).waitFor();

    // Log out.
    await page.getByRole("button", { name: "Logout" }).click();
    await toast(page, "Logged Out").waitFor();
    await toastText(page, "You have been successfully logged out.").waitFor();
    await page.getByRole("button", { name: "Sign Up" }).waitFor();
    assert.equal(
      await page.evaluate(() => localStorage.getItem("refresh_token")),
      null,
    );

    // Wrong password, then log in.
    g.allow(/status of 401/);
    await page.getByRole("button", { name: "Login", exact: true }).click();
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Password").fill("Wrong123!");
    await dialog.getByRole("button", { name: "Sign In" }).click();
    await toast(page, "Login Failed").waitFor();
    await dialog.getByLabel("Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Sign In" }).click();
    await toast(page, "Login Successful").waitFor();
    await toastText(page, "Welcome back, Ada Lovelace!").waitFor();
    await page.getByTestId("user-label").filter({ hasText: "Ada" }).waitFor();

    // An expired access token is refreshed (rotating the refresh token) on reload.
    const before = await page.evaluate(() => localStorage.getItem("refresh_token"));
    await page.evaluate(() => localStorage.setItem("access_token", "expired"));
    await page.reload();
    await page.getByTestId("user-label").filter({ hasText: "Ada" }).waitFor();
    await page.waitForFunction(
      () => localStorage.getItem("access_token") !== "expired",
    );
    assert.notEqual(
      await page.evaluate(() => localStorage.getItem("refresh_token")),
      before,
    );

    // Dashboard placeholder is reachable from the header.
    await page.getByRole("button", { name: "Subscription" }).click();
    await page.waitForURL(/\/dashboard$/);
  });
});

pageTest(
  "[browser] upload, studio tabs, generate, result, compare, downloads, no credits, reload",
  async (g, { server, portrait }) => {
    const { page } = g;
    await signInWithTokens(page, await registerViaApi(server.url, "Grace Hopper"));
    await page.getByTestId("user-label").filter({ hasText: "Grace" }).waitFor();

    // Going to /studio with no photo goes home.
    await page.goto("/studio");
    await page.waitForURL((u) => u.pathname === "/");

    await page.getByTestId("landing-file-input").setInputFiles(portrait);
    await page.waitForURL(/\/studio\?photo=/);
    await page.getByText("1 image(s) provided").waitFor();
    await page.getByRole("button", { name: "Back to Home" }).waitFor();
    await page.getByRole("button", { name: "Buy Credits" }).waitFor(); // 2 < 10

    // Every tab, with the option groups from the API.
    await page.getByRole("heading", { name: "AI Makeup Studio" }).waitFor();
    await page.getByRole("radiogroup", { name: "Lips", exact: true }).waitFor();
    await page.getByRole("slider", { name: "Lips intensity" }).waitFor();
    await screenshots(page, "studio-glam");
    await page.getByRole("tab", { name: "Hair Studio" }).click();
    await page.getByRole("heading", { name: "AI Hair Studio" }).waitFor();
    await page.getByRole("radiogroup", { name: "Hair Color", exact: true }).waitFor();
    await screenshots(page, "studio-hair");
    await page.getByRole("tab", { name: "Barber Shop" }).click();
    await page.getByRole("heading", { name: "AI Barber Shop" }).waitFor();
    await page.getByRole("radiogroup", { name: "Facial Hair", exact: true }).waitFor();
    await screenshots(page, "studio-barber");
    await page.getByRole("tab", { name: "Scene Composer" }).click();
    await page.getByRole("radiogroup", { name: "Lighting", exact: true }).waitFor();
    // The open tab survives a window resized across the phone breakpoint (the two layouts are different
    // trees: the tab was lost and a phone showed the Barber Shop instead).
    await page.setViewportSize(PHONE);
    await page.locator('main[data-layout="phone"]').waitFor();
    assert.equal(
      await page.getByRole("tab", { name: "Scene Composer" }).getAttribute("aria-selected"),
      "true",
    );
    await page.setViewportSize(DESKTOP);
    await page.getByRole("radiogroup", { name: "Lighting", exact: true }).waitFor();
    await screenshots(page, "studio-scene");

    // Style it: Glam Studio, a lipstick that the model honours when it says so.
    await page.getByRole("tab", { name: "Appearance Studio" }).click();
    await page.getByRole("tab", { name: "Glam Studio" }).click();
    const lips = page.getByRole("radiogroup", { name: "Lips", exact: true });
    const supportedLip = lips.locator(
      "[role=radio]:not([data-unsupported])",
    ).nth(1);
    const pick = await supportedLip.count() ? supportedLip : lips.getByRole("radio").nth(1);
    await pick.click();
    assert.equal(await pick.getAttribute("aria-checked"), "true");
    const slider = page.getByRole("slider", { name: "Lips intensity" });
    await slider.focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await slider.getAttribute("aria-valuenow"), "65");
    // The offline model cannot follow instructions or render other angles: both are off, with the reason.
    assert.equal(await page.getByLabel("Additional Instructions").isDisabled(), true);
    await page.getByText("Additional instructions need a generative image model").first().waitFor();
    const view360 = page.getByRole("checkbox", { name: "360° View" }).first();
    assert.equal(await view360.isDisabled(), true);

    const release = await holdGenerationStatus(page);
    await page.getByRole("button", { name: "Generate Avatar" }).first().click();
    await page.getByText("Generating your styled image in 9:16 format...")
      .waitFor();
    release();
    await toast(page, "Generation Complete!").waitFor({ timeout: 90_000 });

    // Result panel: the image, its download, the 360° View button, compare.
    await waitForImageLoaded(page, 'img[alt="Your styled avatar"]');
    await screenshots(page, "result");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download image" }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^styletwin-result\.(png|jpg|webp)$/);
    const bytes = await Deno.readFile(await download.path());
    assert.ok(bytes.byteLength > 1000, "the downloaded file arrives");
    await toast(page, "Download Started").waitFor();

    await page.getByRole("tab", { name: "Before / After" }).click();
    const divider = page.getByRole("slider", { name: "Compare before and after" });
    await divider.focus();
    await page.keyboard.press("ArrowLeft");
    assert.equal(await divider.getAttribute("aria-valuenow"), "45");
    const box = (await page.getByTestId("compare").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, {
      steps: 4,
    });
    await page.mouse.up();
    assert.ok(Number(await divider.getAttribute("aria-valuenow")) >= 75);
    await screenshots(page, "compare");
    // On a short phone (360x640) the image is 225 px wide; the switch under it stays wider, one line each.
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: 360, height: 640 });
    const views = await page.getByRole("tablist", { name: "Result view" }).getByRole("tab").evaluateAll((
      all,
    ) =>
      all.map((el) => {
        const text = document.createRange();
        text.selectNodeContents(el);
        const css = getComputedStyle(el);
        const room = el.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight);
        return {
          name: el.textContent,
          lines: text.getClientRects().length,
          fits: text.getBoundingClientRect().width <= room,
        };
      })
    );
    assert.deepEqual(views, [
      { name: "Result", lines: 1, fits: true },
      { name: "Before / After", lines: 1, fits: true },
    ]);
    await page.setViewportSize(size);

    // Credits refreshed after completion: 2 - 2 = 0. Next generate: Insufficient Credits.
    await page.getByTestId("credits-pill").filter({ hasText: /^0/ }).waitFor();
    await page.getByRole("button", { name: "Generate Avatar" }).click();
    const buy = await expectInsufficientCredits(page); // its packages are the store's own tests' concern
    await page.keyboard.press("Escape");
    await buy.waitFor({ state: "detached" });

    // Reload keeps the session, the photo and the result.
    const studioUrl = page.url();
    await page.reload();
    assert.equal(page.url(), studioUrl);
    await page.getByText("1 image(s) provided").waitFor();
    await page.getByTestId("user-label").filter({ hasText: "Grace" }).waitFor();
    await waitForImageLoaded(page, 'img[alt="Your styled avatar"]');

    // Back and forward behave.
    await page.goBack();
    await page.getByRole("heading", { name: "Create Your Digital Human" })
      .waitFor();
    await page.goForward();
    await page.getByText("1 image(s) provided").waitFor();

    // Back to Home clears the photo: /studio then goes home.
    await page.getByRole("button", { name: "Back to Home" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await page.goto("/studio");
    await page.waitForURL((u) => u.pathname === "/");
  },
);

/** How the page fits the window's width (320 px phones up to desktops): how far the page is wider than the
 * window, the header logo's width, the header's right margin, whether the wordmark beside the logo is cut,
 * and the named controls whose text overflows them. */
async function narrowFit(page: Page, controls: string[]) {
  return await page.evaluate((names) => ({
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    logo: document.querySelector("header img")?.getBoundingClientRect().width ?? 0,
    // Between the header's last control and the screen's right edge.
    margin: document.documentElement.clientWidth -
      Math.max(
        ...[...document.querySelectorAll("header > div > *")].map((el) => el.getBoundingClientRect().right),
      ),
    // The home link (logo and wordmark) shows whole or the logo alone, never a wordmark cut short.
    brandCut: [...document.querySelectorAll('header a[aria-label="StyleTwin home"] *')]
      .some((el) => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 1),
    cut: [...document.querySelectorAll("button, [role=tab]")]
      .filter((el) => names.includes((el.textContent ?? "").trim()))
      .filter((el) => el.scrollWidth > el.clientWidth + 1)
      .map((el) => (el.textContent ?? "").trim()),
  }), controls);
}

pageTest(
  "[browser] a 320 px phone: landing, studio, the store and dashboard fit the width; the logo, the labels and the tabs are whole",
  async (g, { server, portrait }) => {
    const { page } = g;
    const fits = async (where: string, controls: string[] = []) => {
      const f = await narrowFit(page, controls);
      assert.equal(f.overflow, 0, `${where}: the page is ${f.overflow} px wider than the screen`);
      assert.equal(f.logo, 32, `${where}: the logo keeps its 32 px`);
      assert.ok(f.margin >= 7.5, `${where}: the header keeps its 8 px margin (${f.margin} px)`);
      assert.equal(f.brandCut, false, `${where}: the wordmark is not cut`);
      assert.deepEqual(f.cut, [], `${where}: no label overflows its control`);
    };
    await page.goto("/");
    await page.getByRole("button", { name: "Sign Up" }).first().waitFor();
    await fits("landing, signed out", ["Login", "Sign Up"]);
    await signInWithTokens(page, await registerViaApi(server.url, "Ada Lovelace"));
    await page.getByTestId("credits-pill").waitFor();
    await fits("landing, signed in", ["Subscription"]);
    await page.getByTestId("landing-file-input").setInputFiles(portrait);
    await page.waitForURL(/\/studio\?photo=/);
    await page.getByRole("heading", { name: "AI Makeup Studio" }).waitFor();
    // Two credits: the studio's header shows Buy Credits too.
    await page.getByRole("button", { name: "Buy Credits" }).waitFor();
    await fits("studio", ["Buy Credits", "Appearance Studio", "Scene Composer", "Generate Avatar"]);
    // And at 359 px, the widest the narrow layout covers (Tailwind's max-[360px] is "narrower than 360").
    await page.setViewportSize({ width: 359, height: 640 });
    await fits("studio at 359 px", ["Buy Credits", "Appearance Studio", "Scene Composer", "Generate Avatar"]);
    await page.setViewportSize({ width: 320, height: 640 });
    // The packs stack their price over Buy Now: side by side the button stuck out of its card, past
    // the dialog's edge.
    g.allow(/Applying inline style violates the following Content Security Policy directive/);
    await page.getByRole("button", { name: "Buy Credits" }).click();
    const store = page.getByRole("dialog", { name: "Buy Credits" });
    await store.getByTestId("package-large").waitFor();
    const packs = await store.evaluate((dialog) =>
      [...dialog.querySelectorAll("li[data-testid^=package-]")].map((card) => ({
        pack: card.getAttribute("data-testid"),
        out: Math.max(
          card.getBoundingClientRect().right - dialog.getBoundingClientRect().right,
          card.querySelector("button")!.getBoundingClientRect().right - card.getBoundingClientRect().right,
        ),
      }))
    );
    assert.equal(packs.length, 3);
    assert.deepEqual(
      packs.filter((p) => p.out > 0),
      [],
      "every card inside the dialog, every Buy Now inside its card",
    );
    assert.equal(
      await store.evaluate((el) => el.scrollWidth - el.clientWidth),
      0,
      "the dialog does not scroll sideways",
    );
    // The promotion code's placeholder is whole, here and on a 375 px phone (beside Apply it read
    // "Enter promoti" and "Enter promotion co").
    for (const width of [320, PHONE.width]) {
      await page.setViewportSize({ width, height: 640 });
      const promo = await store.getByTestId("promo-input").evaluate((el: HTMLInputElement) => {
        const css = getComputedStyle(el);
        const ctx = document.createElement("canvas").getContext("2d")!;
        ctx.font = `${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
        return {
          text: Math.ceil(ctx.measureText(el.placeholder).width),
          room: el.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight),
          // The layout's height: a bounding box is scaled while the dialog's entrance animation runs (43.997).
          height: el.offsetHeight,
        };
      });
      assert.ok(
        promo.text <= promo.room,
        `${width} px: the placeholder needs ${promo.text} px, the field has ${promo.room}`,
      );
      assert.equal(promo.height, 44, `${width} px: the field keeps its 44 px height`);
    }
    await page.setViewportSize({ width: 320, height: 640 });
    // The sandbox checkout: "Expiry (MM / YY)" takes two lines here; its field still lines up with CVC's.
    await store.getByTestId("package-small").getByRole("button", { name: "Buy Now" }).click();
    await page.waitForURL(/\/checkout\/sandbox\//);
    const expiry = await page.getByLabel("Expiry (MM / YY)").boundingBox();
    const cvc = await page.getByLabel("CVC").boundingBox();
    assert.equal(expiry?.y, cvc?.y, "the expiry and CVC fields line up");
    assert.equal((await narrowFit(page, ["Cancel"])).overflow, 0, "the checkout page fits the width");
    await page.goto("/dashboard");
    await page.getByRole("heading", { name: /^Welcome back, / }).waitFor();
    await fits("dashboard", ["Subscription"]);
    // The four section tabs show at once (two rows), none scrolled out of sight.
    const tabs = page.getByRole("tablist", { name: "Dashboard sections" });
    assert.equal(await tabs.evaluate((el) => el.scrollWidth - el.clientWidth), 0, "the tabs do not scroll");
    const right = await tabs.evaluate((el) => el.getBoundingClientRect().right);
    for (const name of ["Profile", "Subscription", "History", "Settings"]) {
      const tab = await page.getByRole("tab", { name, exact: true }).boundingBox();
      assert.ok(tab && tab.x >= 0 && tab.x + tab.width <= right + 0.5, `${name} is whole on the screen`);
    }
    g.assertNoErrors();
  },
  { viewport: { width: 320, height: 640 } },
);

pageTest(
  "[browser] tablets and narrow windows: the studio's full header fits every width from 640 to 1280 px",
  async (g, { server, portrait }) => {
    const { page } = g;
    await signInWithTokens(page, await registerViaApi(server.url, "Maximiliana Wolfeschlegelstein"));
    await page.getByTestId("landing-file-input").setInputFiles(portrait);
    await page.waitForURL(/\/studio\?photo=/);
    // The most the header holds: Back to Home, credits, Buy Credits (two credits), Dashboard, a long name.
    await page.getByRole("button", { name: "Buy Credits" }).waitFor();
    // In full (text on every button, the whole name) it needed 854 px: 640-899 px scrolled sideways.
    for (const width of [640, 700, 768, 820, 899, 900, 1024, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const f = await narrowFit(page, ["Buy Credits"]);
      assert.equal(f.overflow, 0, `${width} px: the page is ${f.overflow} px wider than the window`);
      assert.ok(f.margin >= 23.5, `${width} px: the header keeps its 24 px margin (${f.margin} px)`);
      assert.deepEqual(f.cut, [], `${width} px: Buy Credits is whole`);
      // Each control is reachable by its name however it is drawn.
      for (const name of ["Back to Home", "Dashboard"]) {
        assert.ok(await page.getByRole("button", { name }).isVisible(), `${width} px: ${name}`);
      }
    }
    g.assertNoErrors();
  },
);

Deno.test("[browser] anonymous generate asks to sign in, then a failed generation toast", opts, async () => {
  const { server, browser, landscape } = await setup();
  let g: GuardedPage | undefined;
  try {
    g = await openPage(browser, server.url);
    const { page } = g;
    await page.goto("/");
    // Anonymous upload is allowed; a landscape has no face.
    await page.getByTestId("landing-file-input").setInputFiles(landscape);
    await page.waitForURL(/\/studio\?photo=/);
    await page.getByRole("button", { name: "Generate Avatar" }).click();

    // A first visit: why an account is needed, and sign-up first.
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Create your account" }).waitFor();
    await dialog.getByTestId("auth-reason").getByText("it needs a free account").waitFor();
    await dialog.getByLabel("Full Name").fill("Alan Turing");
    await dialog.getByLabel("Email").fill(uniqueEmail("alan"));
    await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await dialog.getByLabel("Confirm Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Create Account" }).click();

    // It continues where it was: the generation starts, then fails.
    await toast(page, "Generation Failed").waitFor({ timeout: 90_000 });
    // Exactly the product's text: the server's reason goes to the result panel, not the toast.
    const failed = toast(page, "Generation Failed");
    assert.equal(
      (await failed.locator("div.min-w-0 > div").nth(1).textContent())?.trim(),
      "The AI generation encountered an error. Please try again.",
    );
    await page.getByText("Your AI Avatar Awaits").waitFor();
    const reason = page.getByTestId("generation-problem");
    await reason.getByText("Why the generation failed").waitFor();
    assert.ok(((await reason.textContent()) ?? "").length > "Why the generation failed".length + 5);
    // The failed generation's credits come back.
    await page.getByTestId("credits-pill").filter({ hasText: /^2/ }).waitFor();
    await screenshots(page, "generation-failed");
    g.assertNoErrors();
  } finally {
    await g?.close();
    await teardown();
  }
});
