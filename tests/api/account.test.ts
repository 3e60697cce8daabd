/**
 * Settings actions through the real app on PGlite and Postgres: change
 * password (wrong current, weak new, rate limit, other sessions revoked and
 * the caller kept), data export (exactly the user's data) and account
 * deletion (files gone from disk, tokens dead, photo URLs 404, the email free
 * again, anonymised ledger rows kept, another user untouched).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { creditLedger, generations, photos, profiles, subscriptions, users } from "../../db/schema.ts";
import { MESSAGES } from "../../server/auth/auth.schemas.ts";
import { COMMON_PASSWORD_MESSAGE } from "../../server/auth/common-passwords.ts";
import { SAME_PASSWORD, WRONG_CURRENT_PASSWORD } from "../../server/users/users.schemas.ts";
import { cropFace, DARK_HAIR } from "../imaging/fixtures.ts";
import { backends } from "../helpers/backends.ts";
import { succeedingModel } from "../helpers/test-models.ts";
import { type Json, openTestContext, PASSWORD, readResponse, type TestContext } from "../helpers/test-app.ts";

const portrait = await cropFace(DARK_HAIR);
const NEW_PASSWORD = "N3w&Better-pass";

let ip = 0;
const nextIp = () => `10.7.${++ip % 250}.${Math.floor(ip / 250) + 1}`;

async function upload(ctx: TestContext, token: string, path = "/api/upload-photo") {
  const form = new FormData();
  form.append("file", new File([portrait as Uint8Array<ArrayBuffer>], "p.jpg", { type: "image/jpeg" }));
  const res = await readResponse(
    await ctx.app.request(path, {
      method: "POST",
      body: form,
      headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": nextIp() },
    }),
  );
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
  return res.body;
}

/** Registers through the API from a fresh address (the rate limit is low in this file). */
async function register(
  ctx: TestContext,
  overrides: { email?: string; full_name?: string } = {},
): Promise<Json> {
  const res = await ctx.call("POST", "/api/auth/register", {
    body: {
      email: overrides.email ?? `acct-${crypto.randomUUID()}@example.com`,
      password: PASSWORD,
      full_name: overrides.full_name ?? "Test User",
    },
    headers: { "X-Forwarded-For": nextIp() },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function login(ctx: TestContext, email: string, password: string) {
  return await ctx.call("POST", "/api/auth/login", {
    body: { email, password },
    headers: { "X-Forwarded-For": nextIp() },
  });
}

/** A user with a profile, a picture, a photo and a completed 360 generation (4 result files). */
async function populatedUser(ctx: TestContext, name: string) {
  const auth = await register(ctx, { full_name: name });
  const token = auth.access_token;
  await ctx.call("PUT", "/api/users/profile", {
    token,
    body: { first_name: name, bio: `${name}'s bio`, favorite_styles: [`${name}-style`] },
  });
  const image = await upload(ctx, token, "/api/users/profile/image");
  const photo = await upload(ctx, token);
  const gen = await ctx.call("POST", "/api/generate", {
    token,
    body: { photoId: photo.photoId, studioType: "makeup", view360: true, options: { lips: "nude-satin" } },
  });
  assert.equal(gen.status, 202);
  await ctx.drain();
  const status = await ctx.call("GET", `/api/generation/${gen.body.generationId}/status`, { token });
  assert.equal(status.body.status, "completed");
  const urls: string[] = [image.image_url, photo.url, ...Object.values(status.body.resultUrls) as string[]];
  return { auth, token, photo, generationId: gen.body.generationId as string, urls };
}

const keyOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);
const fileOf = (ctx: TestContext, url: string) =>
  `${ctx.storage.root}/${keyOf(url).slice(0, 2)}/${keyOf(url)}`;
async function exists(path: string) {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

for (const backend of backends()) {
  Deno.test(
    { name: `[${backend.name}] account: password, export and deletion`, ignore: backend.skip },
    async (t) => {
      const ctx = await openTestContext(backend, { TRUST_PROXY: "true", AUTH_RATE_LIMIT_PER_MINUTE: "8" }, {
        model: succeedingModel({ angles: ["front", "right", "left", "back"] }),
      });
      const db = ctx.database.db;
      try {
        await t.step("change password: wrong current, weak new, same as old", async () => {
          const me = await register(ctx);
          const token = me.access_token;
          const cp = (body: unknown) =>
            ctx.call("POST", "/api/users/change-password", {
              token,
              body,
              headers: { "X-Forwarded-For": nextIp() },
            });

          const wrong = await cp({ current_password: "Wrong-pass1!", new_password: NEW_PASSWORD });
          assert.equal(wrong.status, 400);
          assert.equal(wrong.body.detail, WRONG_CURRENT_PASSWORD);
          for (
            const [new_password, detail] of [
              ["Sh0rt!", MESSAGES.passwordShort],
              ["alllowercase1!", MESSAGES.passwordWeak],
              ["NoDigitsHere!", MESSAGES.passwordWeak],
              ["NoSpecial123", MESSAGES.passwordWeak],
              ["", MESSAGES.passwordRequired],
            ]
          ) {
            const weak = await cp({ current_password: PASSWORD, new_password });
            assert.equal(weak.status, 422, new_password);
            assert.equal(weak.body.detail, detail, new_password);
          }
          const common = await cp({ current_password: PASSWORD, new_password: "Password1!" });
          assert.equal(common.status, 422);
          assert.equal(common.body.detail, COMMON_PASSWORD_MESSAGE);
          const same = await cp({ current_password: PASSWORD, new_password: PASSWORD });
          assert.equal(same.status, 422);
          assert.equal(same.body.detail, SAME_PASSWORD);
          const missing = await cp({ new_password: NEW_PASSWORD });
          assert.equal(missing.status, 422);
          assert.match(missing.body.detail, /current_password is required/);
          // None of that changed the password.
          assert.equal((await login(ctx, me.user.email, PASSWORD)).status, 200);
        });

        await t.step(
          "change password: other sessions revoked, the caller kept, the new password works",
          async () => {
            const me = await register(ctx);
            const phone = await login(ctx, me.user.email, PASSWORD);
            const laptop = await login(ctx, me.user.email, PASSWORD);
            assert.equal(phone.status, 200);
            const res = await ctx.call("POST", "/api/users/change-password", {
              token: me.access_token,
              body: { current_password: PASSWORD, new_password: NEW_PASSWORD },
              headers: { "X-Forwarded-For": nextIp() },
            });
            assert.equal(res.status, 200, JSON.stringify(res.body));
            assert.equal(res.body.sessions_revoked, 2);
            // The caller: access token and refresh token still work.
            assert.equal((await ctx.call("GET", "/api/users/me", { token: me.access_token })).status, 200);
            const refreshed = await ctx.call("POST", "/api/auth/refresh", {
              body: { refresh_token: me.refresh_token },
            });
            assert.equal(refreshed.status, 200);
            assert.equal(
              (await ctx.call("GET", "/api/users/me", { token: refreshed.body.access_token })).status,
              200,
            );
            // The other two: access tokens dead at once, refresh refused.
            for (const other of [phone.body, laptop.body]) {
              assert.equal(
                (await ctx.call("GET", "/api/users/me", { token: other.access_token })).status,
                401,
              );
              const r = await ctx.call("POST", "/api/auth/refresh", {
                body: { refresh_token: other.refresh_token },
              });
              assert.equal(r.status, 401);
            }
            assert.equal((await login(ctx, me.user.email, PASSWORD)).status, 401);
            assert.equal((await login(ctx, me.user.email, NEW_PASSWORD)).status, 200);
          },
        );

        await t.step("change password is rate-limited like login", async () => {
          const me = await register(ctx);
          const statuses: number[] = [];
          const address = nextIp();
          for (let i = 0; i < 10; i++) {
            const res = await ctx.call("POST", "/api/users/change-password", {
              token: me.access_token,
              body: { current_password: `Guess-${i}-A1!`, new_password: NEW_PASSWORD },
              headers: { "X-Forwarded-For": address }, // one attacker: the (address, account) budget
            });
            statuses.push(res.status);
            if (res.status === 429) {
              assert.match(res.body.detail, /Too many attempts/);
              assert.ok(Number(res.headers.get("Retry-After")) >= 1);
            }
          }
          assert.deepEqual(statuses, [...Array(8).fill(400), 429, 429]);
          // The account's owner at another address is not locked out by it.
          const owner = await ctx.call("POST", "/api/users/change-password", {
            token: me.access_token,
            body: { current_password: PASSWORD, new_password: NEW_PASSWORD },
            headers: { "X-Forwarded-For": nextIp() },
          });
          assert.equal(owner.status, 200);
        });

        await t.step("data export: an attachment with exactly this user's data", async () => {
          const a = await populatedUser(ctx, "Alice");
          const b = await populatedUser(ctx, "Bob");
          const res = await ctx.app.request("/api/users/data-export", {
            headers: { Authorization: `Bearer ${a.token}` },
          });
          assert.equal(res.status, 200);
          const today = new Date().toISOString().slice(0, 10);
          assert.equal(
            res.headers.get("Content-Disposition"),
            `attachment; filename="styletwin-data-export-${today}.json"`,
          );
          assert.match(res.headers.get("Content-Type")!, /^application\/json/);
          const text = await res.text();
          assert.match(text, /\n {2}"account": \{/, "pretty-printed");
          const data: Json = JSON.parse(text);
          assert.deepEqual(Object.keys(data).sort(), [
            "account",
            "credit_ledger",
            "exported_at",
            "generations",
            "photos",
            "profile",
            "subscription",
          ]);
          assert.equal(data.account.email, a.auth.user.email);
          assert.equal(data.account.id, a.auth.user.id);
          assert.equal(data.profile.first_name, "Alice");
          assert.deepEqual(data.profile.favorite_styles, ["Alice-style"]);
          assert.deepEqual(data.subscription, {
            plan: "none",
            status: "inactive",
            current_period_end: null,
            credits_remaining: a.auth.user.credits - 2,
          });
          assert.deepEqual(data.credit_ledger.map((r: Json) => [r.reason, r.delta]), [
            ["welcome", ctx.config.welcomeCredits],
            ["generation_charge", -2],
          ]);
          assert.equal(data.credit_ledger[1].ref, a.generationId);
          assert.equal(data.generations.length, 1);
          assert.equal(data.generations[0].id, a.generationId);
          assert.equal(data.generations[0].status, "completed");
          assert.equal(data.generations[0].options.lips, "nude-satin");
          assert.deepEqual(Object.keys(data.generations[0].result_urls).sort(), [
            "back",
            "front",
            "left",
            "right",
          ]);
          assert.deepEqual(data.photos.map((p: Json) => p.id), [a.photo.photoId]);
          // Nothing of Bob's anywhere in the document.
          for (
            const needle of [
              b.auth.user.email,
              b.auth.user.id,
              b.generationId,
              b.photo.photoId,
              "Bob",
              ...b.urls,
            ]
          ) {
            assert.ok(!text.includes(needle), `export leaks ${needle}`);
          }
          // Nothing secret either.
          assert.ok(!/password|\$argon2/i.test(text));
        });

        await t.step(
          "deletion: files, tokens, URLs and personal data gone; email free; ledger kept",
          async () => {
            const a = await populatedUser(ctx, "Carol");
            const b = await populatedUser(ctx, "Dave");
            const second = await login(ctx, a.auth.user.email, PASSWORD);
            // An active (sandbox) subscription: deletion cancels it first.
            const periodEnd = new Date(Date.now() + 30 * 86400_000);
            await db.insert(subscriptions).values({
              userId: a.auth.user.id,
              plan: "pro",
              status: "active",
              provider: "sandbox",
              currentPeriodStart: new Date(),
              currentPeriodEnd: periodEnd,
            });
            const sub = await ctx.call("GET", "/api/users/data-export", { token: a.token });
            assert.equal(sub.body.subscription.plan, "pro");
            assert.equal(sub.body.subscription.current_period_end, periodEnd.toISOString());
            const files = a.urls.map((u) => fileOf(ctx, u));
            assert.equal(files.length, 6); // picture, photo, four angles
            for (const f of files) assert.ok(await exists(f), f);

            const res = await ctx.call("DELETE", "/api/users/account", { token: a.token });
            assert.equal(res.status, 200, JSON.stringify(res.body));

            for (const f of files) assert.ok(!await exists(f), `still on disk: ${f}`);
            for (const url of a.urls) assert.equal((await ctx.app.request(url)).status, 404, url);
            for (const tokens of [a.auth, second.body]) {
              assert.equal(
                (await ctx.call("GET", "/api/users/me", { token: tokens.access_token })).status,
                401,
              );
              const r = await ctx.call("POST", "/api/auth/refresh", {
                body: { refresh_token: tokens.refresh_token },
              });
              assert.equal(r.status, 401);
            }
            // A second DELETE with the old token: 401, nothing else happens.
            assert.equal((await ctx.call("DELETE", "/api/users/account", { token: a.token })).status, 401);
            assert.equal((await login(ctx, a.auth.user.email, PASSWORD)).status, 401);

            // Personal data removed; the row remains only as the ledger's anchor.
            const [row] = await db.select().from(users).where(eq(users.id, a.auth.user.id));
            assert.notEqual(row.email, a.auth.user.email);
            assert.equal(row.fullName, "");
            assert.equal(row.profileImageUrl, null);
            assert.equal(row.isActive, false);
            assert.ok(row.deletedAt);
            assert.equal(
              (await db.select().from(profiles).where(eq(profiles.userId, a.auth.user.id))).length,
              0,
            );
            assert.equal(
              (await db.select().from(photos).where(eq(photos.ownerId, a.auth.user.id))).length,
              0,
            );
            assert.equal(
              (await db.select().from(generations).where(eq(generations.userId, a.auth.user.id))).length,
              0,
            );
            const [subRow] = await db.select().from(subscriptions).where(
              eq(subscriptions.userId, a.auth.user.id),
            );
            assert.equal(subRow.status, "canceled");
            const ledger = await db.select().from(creditLedger).where(
              eq(creditLedger.userId, a.auth.user.id),
            );
            assert.deepEqual(ledger.map((r) => r.reason).sort(), ["generation_charge", "welcome"]);

            // The same email registers a brand-new, empty account.
            const again = await register(ctx, { email: a.auth.user.email.toUpperCase() });
            assert.notEqual(again.user.id, a.auth.user.id);
            assert.equal(again.user.email, a.auth.user.email);
            const fresh = await ctx.call("GET", "/api/users/profile", { token: again.access_token });
            assert.equal(fresh.body.first_name, null);
            const history = await ctx.call("GET", "/api/generations", { token: again.access_token });
            assert.deepEqual(history.body.items, []);

            // Dave is untouched.
            for (const url of b.urls) assert.equal((await ctx.app.request(url)).status, 200, url);
            assert.equal((await ctx.call("GET", "/api/users/me", { token: b.token })).status, 200);
            const bHistory = await ctx.call("GET", "/api/generations", { token: b.token });
            assert.deepEqual(bHistory.body.items.map((i: Json) => i.id), [b.generationId]);
            const bProfile = await ctx.call("GET", "/api/users/profile", { token: b.token });
            assert.equal(bProfile.body.first_name, "Dave");
          },
        );

        await t.step(
          "deletion is idempotent: running it again for the same user changes nothing",
          async () => {
            const { deleteAccount } = await import("../../server/users/account.service.ts");
            const { subscriptionPort } = await import("../../server/users/subscription-port.ts");
            const a = await populatedUser(ctx, "Erin");
            const cancelled: string[] = [];
            const deps = {
              db,
              config: ctx.config,
              storage: ctx.storage,
              subscriptions: {
                ...subscriptionPort({ db, config: ctx.config }),
                cancelAll: (id: string) => (cancelled.push(id), Promise.resolve()),
              },
            };
            const first = await deleteAccount(deps, a.auth.user.id);
            assert.equal(first.files_removed, 6);
            const [after1] = await db.select().from(users).where(eq(users.id, a.auth.user.id));
            const second = await deleteAccount(deps, a.auth.user.id);
            assert.equal(second.files_removed, 0);
            const [after2] = await db.select().from(users).where(eq(users.id, a.auth.user.id));
            assert.deepEqual(after2, after1);
            assert.deepEqual(
              cancelled,
              [a.auth.user.id, a.auth.user.id],
              "the subscription is cancelled first, each time",
            );
          },
        );
      } finally {
        await ctx.close();
      }
    },
  );
}
