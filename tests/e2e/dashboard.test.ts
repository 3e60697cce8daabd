/**
 * The dashboard in real Chromium against the real server (main.ts, PGlite,
 * the local image model): access rule, every tab (deep links, back button,
 * screenshots at phone and desktop size), profile editing, password change,
 * data export, history (downloads, a processing item completing by itself)
 * and account deletion. Each test makes its own account through the API.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DESKTOP, PHONE, screenshots, waitForImageLoaded, withPage } from "./browser.ts";
import { expectNoSeriousAxeViolations } from "./axe.ts";
import {
  createSuite,
  opts,
  PASSWORD,
  registerViaApi,
  signInThroughDialog,
  signInWithTokens,
  toast,
  toastText,
  uploadViaApi,
} from "./harness.ts";

const { setup, teardown, pageTest } = createSuite({
  WELCOME_CREDITS: "20",
  AUTH_RATE_LIMIT_PER_MINUTE: "200",
});

async function generate(base: string, token: string, photoId: string, body: Record<string, unknown>) {
  const res = await fetch(`${base}/api/generate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ photoId, ...body }),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json() as { generationId: string }).generationId;
}

/** Polls the API until the generation has finished (bounded). */
async function waitFinished(base: string, token: string, id: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${base}/api/generation/${id}/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = await res.json();
    if (body.status === "completed" || body.status === "failed") return body.status as string;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`generation ${id} did not finish in ${timeoutMs} ms`);
}

const LOOK = {
  lips: "classic-red-matte",
  eyeshadow: "champagne",
  cheeks: "soft-peach",
  extras: "highlighter",
};

async function openDashboard(page: Page, tab?: string) {
  await page.goto(tab ? `/dashboard?tab=${tab}` : "/dashboard");
  await page.getByRole("heading", { name: /^Welcome back, / }).waitFor();
}

const tabButton = (page: Page, name: string) => page.getByRole("tab", { name, exact: true });

async function expectTab(page: Page, name: string) {
  await page.waitForFunction(
    (n) =>
      [...document.querySelectorAll('[role="tab"]')].some((t) =>
        t.textContent === n && t.getAttribute("aria-selected") === "true"
      ),
    name,
  );
}

pageTest(
  "[browser] dashboard: access rule, stats, every tab, deep links and the back button",
  async (g, { server, portrait }) => {
    const { page } = g;
    // Signed out.
    await page.goto("/dashboard");
    await page.getByRole("heading", { name: "Access Denied" }).waitFor();
    await page.getByText("Please log in to access your dashboard.").waitFor();
    await screenshots(page, "dashboard-access-denied");
    await page.getByRole("button", { name: "Go to Home" }).click();
    await page.waitForURL((u) => u.pathname === "/");

    // A known history: one completed makeup look.
    const me = await registerViaApi(server.url, "Grace Hopper");
    const photoId = await uploadViaApi(server.url, me.access_token, portrait);
    const id = await generate(server.url, me.access_token, photoId, {
      studioType: "makeup",
      options: LOOK,
    });
    assert.equal(await waitFinished(server.url, me.access_token, id), "completed");
    await signInWithTokens(page, me);

    await openDashboard(page);
    await page.getByRole("heading", { name: "Welcome back, Grace Hopper!" }).waitFor();
    await page.getByRole("button", { name: "Back to Home" }).waitFor();
    await page.getByRole("button", { name: "Create Avatar" }).first().waitFor();
    await expectTab(page, "Profile");
    const cards = page.getByTestId("stat-card");
    assert.equal(await cards.count(), 4);
    await cards.filter({ hasText: "Total Generations" }).filter({ hasText: "1 completed" }).waitFor();
    await cards.filter({ hasText: "Available Credits" }).filter({ hasText: String(me.user.credits - 2) })
      .waitFor();
    await cards.filter({ hasText: "Favorite Styles" }).filter({ hasText: "Champagne Shimmer" }).waitFor();
    await cards.filter({ hasText: "Profile Complete" }).filter({ hasText: "0%" }).waitFor();
    await page.getByRole("button", { name: "Save Changes" }).waitFor();
    await screenshots(page, "dashboard-profile");
    await expectNoSeriousAxeViolations(page, "dashboard profile tab");
    // On a phone each card is half the width: the fixed details wrap instead of being cut ("2 credits per
    // gener..."). (A long list of favourite styles is clamped at two lines on purpose.)
    await page.setViewportSize(PHONE);
    const cut = await cards.filter({ hasNotText: "Favorite Styles" }).evaluateAll((all) =>
      all.flatMap((card) => [...card.querySelectorAll("p")].slice(2))
        .filter((p) => p.scrollWidth > p.clientWidth || p.scrollHeight > p.clientHeight + 1)
        .map((p) => p.textContent)
    );
    assert.deepEqual(cut, [], "no card's detail is cut at 375 px");
    // The four tabs fit on one line at 375 px and on the many 360 px Android phones (320 px: client.test.ts).
    for (const width of [PHONE.width, 360]) {
      await page.setViewportSize({ ...PHONE, width });
      const tabs = await page.getByRole("tablist", { name: "Dashboard sections" }).evaluate((el) => ({
        scroll: el.scrollWidth,
        width: el.clientWidth,
        rows: new Set([...el.querySelectorAll("[role=tab]")].map((t) => t.getBoundingClientRect().top)).size,
      }));
      assert.ok(
        tabs.scroll <= tabs.width && tabs.rows === 1,
        `the four tabs fit one line ${width} px wide (${tabs.scroll} > ${tabs.width} px, ${tabs.rows} rows)`,
      );
    }
    await page.setViewportSize(DESKTOP);

    // Each tab changes the URL; the back button walks back through them.
    await tabButton(page, "Subscription").click();
    await page.waitForURL(/tab=subscription/);
    await page.getByRole("heading", { name: "Current Subscription" }).waitFor();
    await page.getByTestId("current-plan").filter({ hasText: "none" }).waitFor();
    await page.getByTestId("subscription-status").filter({ hasText: "inactive" }).waitFor();
    await page.getByRole("heading", { name: "Available Plans" }).waitFor();
    await page.getByTestId("plan-card").nth(2).waitFor();
    assert.equal(await page.getByTestId("plan-card").count(), 3);
    await screenshots(page, "dashboard-subscription");
    await expectNoSeriousAxeViolations(page, "dashboard subscription tab");
    await page.getByTestId("plan-card").filter({
      has: page.getByRole("heading", { name: "PRO", exact: true }),
    }).getByRole("button", { name: "Upgrade" })
      .click();
    const dialog = page.getByRole("dialog", { name: "Choose Your Plan" });
    await dialog.waitFor();
    await screenshots(page, "dashboard-upgrade-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });

    await tabButton(page, "History").click();
    await page.waitForURL(/tab=history/);
    const item = page.getByTestId("history-item").first();
    await item.waitFor();
    assert.equal(await item.getAttribute("data-id"), id);
    await item.getByTestId("history-status").filter({ hasText: "completed" }).waitFor();
    await item.getByText("+1 more").waitFor();
    await item.getByTestId("history-credits").filter({ hasText: "2 credits" }).waitFor();
    await waitForImageLoaded(page, '[data-testid="history-item"] img');
    await screenshots(page, "dashboard-history");
    await expectNoSeriousAxeViolations(page, "dashboard history tab");

    await tabButton(page, "Settings").click();
    await page.waitForURL(/tab=settings/);
    await page.getByRole("heading", { name: "Change Password" }).waitFor();
    await page.getByRole("heading", { name: "Account Information" }).waitFor();
    await page.getByText(me.email).first().waitFor();
    await page.getByText("Active", { exact: true }).waitFor();
    await page.getByText("Pending", { exact: true }).waitFor();
    await screenshots(page, "dashboard-settings");
    await expectNoSeriousAxeViolations(page, "dashboard settings tab");

    await page.goBack();
    await page.waitForURL(/tab=history/);
    await expectTab(page, "History");
    await page.goBack();
    await page.waitForURL(/tab=subscription/);
    await expectTab(page, "Subscription");

    // A deep link opens its tab directly; an unknown tab falls back to Profile.
    await openDashboard(page, "history");
    await expectTab(page, "History");
    await page.getByTestId("history-item").first().waitFor();
    await openDashboard(page, "nonsense");
    await expectTab(page, "Profile");

    // Open the result in the result view.
    await openDashboard(page, "history");
    await page.getByTestId("history-item").first().getByRole("button", { name: "View" }).click();
    await waitForImageLoaded(page, '[data-testid="result-viewer-image"]');
    await page.keyboard.press("Escape");

    // A 360 item opens its set in the 360° overlay. The local model makes only the front, so
    // the list answer is given four angles here (distinct URLs of the same stored image).
    await page.route("**/api/generations?*", async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      const first = body.items[0];
      first.view360 = true;
      first.result_urls = Object.fromEntries(
        ["front", "right", "left", "back"].map((
          a,
          i,
        ) => [a, i === 0 ? first.result_url : `${first.result_url}?${a}`]),
      );
      await route.fulfill({ response: res, json: body });
    });
    await openDashboard(page, "history");
    await page.getByTestId("history-item").first().getByRole("button", { name: "360° View" }).click();
    const overlay = page.getByRole("dialog", { name: "360° View - Final Look" });
    await overlay.waitFor();
    for (const label of ["FRONT", "RIGHT", "LEFT", "BACK"]) {
      await overlay.getByText(label, { exact: true }).first().waitFor();
    }
    await screenshots(page, "dashboard-history-360");
    // On phones down to 320 px the overlay's two buttons keep their whole names.
    for (const width of [375, 360, 320]) {
      await page.setViewportSize({ width, height: 640 });
      const cutButtons = await overlay.getByRole("button", { name: /^(Download All Views|Close 360° View)$/ })
        .evaluateAll((all) =>
          all.map((el) =>
            `${el.textContent?.trim()}: ${el.scrollWidth > el.clientWidth + 1 ? "cut" : "whole"}`
          )
        );
      assert.deepEqual(cutButtons, ["Download All Views: whole", "Close 360° View: whole"], `at ${width} px`);
    }
    await page.setViewportSize(DESKTOP);
    await page.keyboard.press("Escape");
    await overlay.waitFor({ state: "detached" });
    await page.unroute("**/api/generations?*");
  },
);

Deno.test(
  "[browser] dashboard: the next account in the tab sees none of the last one's profile, history or figures",
  opts,
  async () => {
    const { server, browser, portrait } = await setup();
    const ann = await registerViaApi(server.url, "Ann Former");
    const saved = await fetch(`${server.url}/api/users/profile`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ann.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({
        first_name: "Ann",
        last_name: "Former",
        location: "Lisbon",
        bio: "Ann's own words",
      }),
    });
    assert.equal(saved.status, 200, await saved.text());
    const photoId = await uploadViaApi(server.url, ann.access_token, portrait);
    const id = await generate(server.url, ann.access_token, photoId, { studioType: "makeup", options: LOOK });
    assert.equal(await waitFinished(server.url, ann.access_token, id), "completed");
    const bea = await registerViaApi(server.url, "Bea Next");
    await withPage(browser, server.url, async (g) => {
      const { page } = g;
      await signInWithTokens(page, ann);
      await openDashboard(page, "profile");
      const form = page.getByRole("form", { name: "Profile" });
      await form.getByLabel("Location").and(page.locator(":enabled")).waitFor();
      assert.equal(await form.getByLabel("Location").inputValue(), "Lisbon");
      await tabButton(page, "History").click();
      await page.getByTestId("history-item").first().waitFor();

      // Ann signs out; Bea signs in through the dialog in the same tab (no reload).
      await page.getByRole("button", { name: "Logout" }).click();
      await signInThroughDialog(page, bea.email);
      await toast(page, "Login Successful").waitFor();
      await page.getByRole("button", { name: "Subscription" }).click();
      await page.getByRole("heading", { name: "Welcome back, Bea Next!" }).waitFor();
      await tabButton(page, "Profile").click();
      await form.getByLabel("Location").and(page.locator(":enabled")).waitFor();
      // Ann's details were shown to Bea, and Save wrote them into Bea's profile.
      assert.equal(await form.getByLabel("Location").inputValue(), "");
      assert.equal(await form.getByLabel("Bio").inputValue(), "");
      assert.equal(await form.getByLabel("First Name").inputValue(), "Bea");
      await page.getByTestId("stat-card").filter({ hasText: "Total Generations" }).filter({
        hasText: /^Total Generations0/,
      })
        .waitFor();
      await tabButton(page, "History").click();
      await page.getByRole("heading", { name: "No Generations Yet" }).waitFor();
      assert.equal(await page.getByTestId("history-item").count(), 0);

      // A profile that failed to load is not a blank form Save would write over the stored one.
      await page.route(
        "**/api/users/profile",
        (route) =>
          route.request().method() === "GET"
            ? route.fulfill({ status: 500, json: { detail: "Internal error", code: "internal" } })
            : route.fallback(),
      );
      g.allow(/status of 500/);
      await page.reload();
      await page.getByRole("heading", { name: "Welcome back, Bea Next!" }).waitFor();
      await tabButton(page, "Profile").click();
      await page.getByRole("alert").filter({ hasText: "Your profile could not be loaded." }).waitFor();
      assert.equal(await form.getByRole("button", { name: "Save Changes" }).isDisabled(), true);
      await page.unroute("**/api/users/profile");
      await page.getByRole("button", { name: "Retry" }).click();
      await form.getByLabel("First Name").and(page.locator(":enabled")).waitFor();
      assert.equal(await form.getByLabel("First Name").inputValue(), "Bea");
    });
  },
);

Deno.test(
  "[browser] dashboard: empty history, then editing the profile and the picture on a phone",
  opts,
  async () => {
    const { server, browser, portrait } = await setup();
    const me = await registerViaApi(server.url, "Katherine Coleman Johnson");
    await withPage(browser, server.url, async (g) => {
      const { page } = g;
      await signInWithTokens(page, me);
      await openDashboard(page, "history");
      await page.getByRole("heading", { name: "No Generations Yet" }).waitFor();
      await screenshots(page, "dashboard-history-empty");

      // The saved profile is answered before anything is typed and held until the form has been
      // looked at (as a slow network would): until it arrives the form cannot be typed into, or
      // its arrival would replace what was typed and Save would store empty fields.
      let deliver!: () => void;
      const held = new Promise<void>((resolve) => (deliver = resolve));
      await page.route("**/api/users/profile", async (route) => {
        if (route.request().method() !== "GET") return await route.fallback();
        const answer = await route.fetch();
        await held;
        await route.fulfill({ response: answer });
      });
      await tabButton(page, "Profile").click();
      const form = page.getByRole("form", { name: "Profile" });
      await form.getByLabel("First Name").waitFor();
      assert.equal(
        await form.getByLabel("First Name").isDisabled(),
        true,
        "editable before the profile came",
      );
      assert.equal(await form.getByRole("button", { name: "Save Changes" }).isDisabled(), true);
      deliver();
      // A profile never saved shows the name given at sign-up: its first word, then the rest.
      await form.getByLabel("First Name").and(page.locator(":enabled")).waitFor();
      assert.equal(await form.getByLabel("First Name").inputValue(), "Katherine");
      assert.equal(await form.getByLabel("Last Name").inputValue(), "Coleman Johnson");
      await page.unroute("**/api/users/profile");
      await form.getByLabel("Last Name").fill("Johnson");
      await form.getByLabel("Phone Number").fill("+1 757 555 0100");
      await form.getByLabel("Date of Birth").fill("1990-08-26");
      await form.getByLabel("Gender").selectOption("female");
      await form.getByLabel("Location").fill("Hampton, Virginia");
      await form.getByLabel("Bio").fill("Computes trajectories.");
      await form.getByRole("button", { name: "Save Changes" }).click();
      await toast(page, "Profile Updated").waitFor();

      // The picture: the camera control takes any image file.
      await page.getByTestId("profile-image-input").setInputFiles(portrait);
      await toast(page, "Profile Image Updated").waitFor();
      await waitForImageLoaded(page, 'img[data-testid="profile-avatar"]');
      const size = await page.locator('img[data-testid="profile-avatar"]').evaluate((img) => [
        (img as HTMLImageElement).naturalWidth,
        (img as HTMLImageElement).naturalHeight,
      ]);
      assert.deepEqual(size, [512, 512]);
      await page.getByTestId("stat-card").filter({ hasText: "Profile Complete" }).filter({ hasText: "100%" })
        .waitFor();
      await screenshots(page, "dashboard-profile-filled");

      // Saved on the server: a reload shows the same values.
      await page.reload();
      await page.getByRole("heading", { name: /^Welcome back/ }).waitFor();
      await page.waitForFunction(() =>
        (document.querySelector('input[name="first_name"]') as HTMLInputElement | null)?.value === "Katherine"
      );
      assert.equal(await form.getByLabel("Date of Birth").inputValue(), "1990-08-26");
      assert.equal(await form.getByLabel("Gender").inputValue(), "female");
      assert.equal(await form.getByLabel("Bio").inputValue(), "Computes trajectories.");

      // A refused value shows the server's detail.
      g.allow(/status of 422/);
      await form.getByLabel("Date of Birth").fill("2020-01-01");
      await form.getByRole("button", { name: "Save Changes" }).click();
      await toast(page, "Update Failed").waitFor();
      await toastText(page, "date_of_birth must give an age between 13 and 120").waitFor();
    }, { viewport: PHONE, isMobile: true, hasTouch: true });
  },
);

Deno.test("[browser] dashboard: change the password, then sign in with the new one", opts, async () => {
  const { server, browser } = await setup();
  const me = await registerViaApi(server.url, "Alan Turing");
  const NEW = "Enigma!1912x";
  await withPage(browser, server.url, async (g) => {
    const { page } = g;
    await signInWithTokens(page, me);
    await openDashboard(page, "settings");
    const submit = page.getByRole("button", { name: "Update Password" });
    // Each label names its field alone (its Show toggle is "Show password"), so a label finds one element.
    const current = page.getByLabel("Current Password");
    assert.equal(await current.count(), 1);
    const next = page.getByLabel("New Password", { exact: true });
    const confirm = page.getByLabel("Confirm New Password");
    assert.equal(await confirm.count(), 1);
    assert.equal(await submit.isDisabled(), true);
    await current.fill(PASSWORD);
    await next.fill(NEW);
    assert.equal(await submit.isDisabled(), true, "disabled until all three are filled");

    // Show/hide on each field.
    assert.equal(await next.getAttribute("type"), "password");
    // The toggle beside each field controls that field (aria-controls).
    const toggleOf = async (field: typeof next) =>
      page.locator(`button[aria-controls="${await field.getAttribute("id")}"]`);
    await (await toggleOf(next)).click();
    assert.equal(await next.getAttribute("type"), "text");
    assert.equal(await (await toggleOf(next)).getAttribute("aria-label"), "Hide password");
    await (await toggleOf(next)).click();
    assert.equal(await next.getAttribute("type"), "password");
    await (await toggleOf(current)).click();
    assert.equal(await current.getAttribute("type"), "text");

    await confirm.fill("Different!1");
    await submit.click();
    await toast(page, "Password Mismatch").waitFor();
    await toastText(page, "New passwords do not match.").waitFor();
    await next.fill("Ab1!");
    await confirm.fill("Ab1!");
    await submit.click();
    await toast(page, "Password Too Short").waitFor();
    await toastText(page, "Password must be at least 8 characters long.").waitFor();

    g.allow(/status of 400/);
    await current.fill("Not-the-password1!");
    await next.fill(NEW);
    await confirm.fill(NEW);
    await submit.click();
    await toast(page, "Password Change Failed").waitFor();
    await toastText(page, "Current password is incorrect").waitFor();

    await current.fill(PASSWORD);
    await submit.click();
    await toast(page, "Password Changed").waitFor();
    await screenshots(page, "dashboard-password-changed");
    assert.equal(await current.inputValue(), "");

    // Still signed in here; then out, and in again with the new password.
    await page.reload();
    await page.getByRole("heading", { name: "Welcome back, Alan Turing!" }).waitFor();
    await page.getByRole("button", { name: "Logout" }).click();
    await page.getByRole("button", { name: "Login", exact: true }).click();
    const dialog = page.getByRole("dialog");
    g.allow(/status of 401/);
    await dialog.getByLabel("Email").fill(me.email);
    await dialog.getByLabel("Password").fill(PASSWORD);
    await dialog.getByRole("button", { name: "Sign In" }).click();
    await toast(page, "Login Failed").waitFor();
    await dialog.getByLabel("Password").fill(NEW);
    await dialog.getByRole("button", { name: "Sign In" }).click();
    await toast(page, "Login Successful").waitFor();
  });
});

Deno.test("[browser] dashboard: the data export downloads as JSON with the user's data", opts, async () => {
  const { server, browser } = await setup();
  const me = await registerViaApi(server.url, "Hedy Lamarr");
  await withPage(browser, server.url, async (g) => {
    const { page } = g;
    await signInWithTokens(page, me);
    await openDashboard(page, "settings");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export My Data" }).click(),
    ]);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(download.suggestedFilename(), `styletwin-data-export-${today}.json`);
    const path = await download.path();
    const text = await Deno.readTextFile(path!);
    assert.match(text, /\n {2}"account"/, "pretty-printed");
    const data = JSON.parse(text);
    assert.equal(data.account.email, me.email);
    assert.equal(data.account.full_name, "Hedy Lamarr");
    assert.equal(data.subscription.plan, "none");
    assert.deepEqual(data.credit_ledger.map((r: { reason: string }) => r.reason), ["welcome"]);
    await toast(page, "Data Export Complete").waitFor();
  });
});

Deno.test(
  "[browser] dashboard: history downloads, and processing items complete by themselves",
  opts,
  async () => {
    const { server, browser, portrait } = await setup();
    const me = await registerViaApi(server.url, "Ada Lovelace");
    const photoId = await uploadViaApi(server.url, me.access_token, portrait);
    await withPage(browser, server.url, async (g) => {
      const { page } = g;
      await signInWithTokens(page, me);
      await openDashboard(page, "history");
      await page.getByRole("heading", { name: "No Generations Yet" }).waitFor();
      // Queue three jobs at once; the list shows them waiting first. The local model can finish
      // all three before the page has reloaded, so until the test has seen the newest one
      // processing, the browser's copy of the history holds it at "processing" (the server's
      // jobs run and finish for real; only that one item's status is held back).
      const ids: string[] = [];
      let hold = true;
      await page.route("**/api/generations?*", async (route) => {
        if (route.request().method() !== "GET" || !hold) return route.fallback();
        const res = await route.fetch();
        const body = await res.json() as { items: Record<string, unknown>[] };
        for (const item of body.items) {
          if (item.id !== ids[2]) continue;
          Object.assign(item, { status: "processing", result_url: null, result_urls: {} });
        }
        return route.fulfill({ response: res, json: body });
      });
      for (const studioType of ["makeup", "hair", "makeup"]) {
        ids.push(await generate(server.url, me.access_token, photoId, { studioType, options: LOOK }));
      }
      await page.reload();
      await page.getByTestId("history-item").nth(2).waitFor();
      const newest = page.locator(`[data-testid="history-item"][data-id="${ids[2]}"]`);
      // Newest first.
      assert.deepEqual(
        await page.getByTestId("history-item").evaluateAll((els) =>
          els.map((e) => e.getAttribute("data-id"))
        ),
        [...ids].reverse(),
      );
      await newest.getByTestId("history-status").filter({ hasText: "processing" }).waitFor({
        timeout: 5_000,
      });
      const colour = await newest.getByTestId("history-status").evaluate((el) =>
        getComputedStyle(el).backgroundColor
      );
      await screenshots(page, "dashboard-history-processing");
      hold = false;
      // No reload: the list updates itself until every item is completed (green).
      for (const id of ids) {
        await page.locator(`[data-testid="history-item"][data-id="${id}"][data-status="completed"]`)
          .waitFor({ timeout: 90_000 });
      }
      // The stat cards follow without a reload.
      await page.getByTestId("stat-card").filter({ hasText: "Total Generations" }).filter({
        hasText: "3 completed",
      })
        .waitFor();
      // The status filter asks the server for one status only.
      await page.getByRole("button", { name: "Failed", exact: true }).click();
      await page.getByText("No failed generations.").waitFor();
      await page.getByRole("button", { name: "Completed", exact: true }).click();
      await page.getByTestId("history-item").nth(2).waitFor();
      assert.equal(await page.locator('[data-testid="history-item"][data-status="completed"]').count(), 3);
      await page.getByRole("button", { name: "All", exact: true }).click();
      const done = await newest.getByTestId("history-status").evaluate((el) =>
        getComputedStyle(el).backgroundColor
      );
      assert.notEqual(done, colour, "the badge colour changes from processing to completed");
      await waitForImageLoaded(page, `[data-id="${ids[2]}"] img`);
      await screenshots(page, "dashboard-history-completed");

      // Download a completed item under its history name.
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        newest.getByRole("button", { name: "Download" }).click(),
      ]);
      // styletwin-{studio_type}-{id}.png, and the file is a PNG (the JPEG result re-encoded by the server).
      const name = download.suggestedFilename();
      assert.equal(name, `styletwin-makeup-${ids[2]}.png`);
      const bytes = await Deno.readFile((await download.path())!);
      assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], `${name} holds a PNG`);

      // A download the server cannot serve: the product's failure toast.
      g.allow(/status of 500|Failed to load resource/);
      await page.route("**/api/download/**", (route) => route.fulfill({ status: 500, body: "boom" }));
      await newest.getByRole("button", { name: "Download" }).click();
      await toastText(page, "Failed to download the image. Please try again.").waitFor();
      await page.unroute("**/api/download/**");
    });
  },
);

Deno.test("[browser] dashboard: deleting the account (cancel, then confirm) signs out", opts, async () => {
  const { server, browser, portrait } = await setup();
  const me = await registerViaApi(server.url, "Barbara Liskov");
  const photoId = await uploadViaApi(server.url, me.access_token, portrait);
  const id = await generate(server.url, me.access_token, photoId, { studioType: "makeup", options: LOOK });
  await waitFinished(server.url, me.access_token, id);
  const status = await (await fetch(`${server.url}/api/generation/${id}/status`, {
    headers: { authorization: `Bearer ${me.access_token}` },
  })).json();
  try {
    await withPage(browser, server.url, async (g) => {
      const { page } = g;
      await signInWithTokens(page, me);
      await openDashboard(page, "settings");
      await page.getByRole("button", { name: "Delete Account" }).click();
      const confirm = page.getByRole("alertdialog");
      await confirm.getByText("Are you absolutely sure?").waitFor();
      await screenshots(page, "dashboard-delete-confirm");
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await confirm.waitFor({ state: "detached" });
      // Cancelled: nothing happened.
      const me1 = await fetch(`${server.url}/api/users/me`, {
        headers: { authorization: `Bearer ${me.access_token}` },
      });
      assert.equal(me1.status, 200);

      await page.getByRole("button", { name: "Delete Account" }).click();
      // When the toast appears and when the page reaches home are read in the page itself: the
      // test's own clock would start late whenever its wait for the toast returns late.
      await page.evaluate(() => {
        const w = globalThis as unknown as { toastAt?: number; homeAt?: number };
        new MutationObserver(() => {
          const toasts = [...document.querySelectorAll("[data-variant]")];
          if (w.toastAt === undefined && toasts.some((e) => e.textContent?.includes("Account Deactivated"))) {
            w.toastAt = performance.now();
          }
          if (w.toastAt !== undefined && w.homeAt === undefined && location.pathname === "/") {
            w.homeAt = performance.now();
          }
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      await confirm.getByRole("button", { name: "Yes, Delete My Account" }).click();
      await toast(page, "Account Deactivated").waitFor();
      await toastText(page, "Your account has been deactivated. You will be logged out.").waitFor();
      // Signed out about 2 s later, on the home page.
      await page.getByRole("button", { name: "Sign Up" }).waitFor({ timeout: 10_000 });
      await page.waitForURL((u) => u.pathname === "/");
      const { toastAt, homeAt } = await page.evaluate(() => {
        const w = globalThis as unknown as { toastAt?: number; homeAt?: number };
        return { toastAt: w.toastAt, homeAt: w.homeAt };
      });
      assert.ok(toastAt !== undefined && homeAt !== undefined, "the toast, then home");
      assert.ok(
        homeAt - toastAt >= 1500,
        `the sign-out waits about 2 s (${Math.round(homeAt - toastAt)} ms)`,
      );
      assert.equal(await page.evaluate(() => localStorage.getItem("access_token")), null);
    });
    const after = await fetch(`${server.url}/api/users/me`, {
      headers: { authorization: `Bearer ${me.access_token}` },
    });
    assert.equal(after.status, 401);
    await after.body?.cancel();
    const image = await fetch(`${server.url}${status.resultUrl}`);
    assert.equal(image.status, 404);
    await image.body?.cancel();
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: me.email, password: PASSWORD }),
    });
    assert.equal(login.status, 401);
    await login.body?.cancel();
  } finally {
    await teardown();
  }
});
