/**
 * The credits store on the offline sandbox provider, through the real app on
 * PGlite and Postgres: catalogue, promotion codes, checkout, the hosted
 * sandbox page (cards, decline, cancel, expiry), fulfilment exactly once,
 * subscriptions with renewals, and the ledger explaining every credit.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import {
  checkoutSessions,
  creditLedger,
  promotionCodes,
  promotionRedemptions,
  users,
} from "../../db/schema.ts";
import { checkedOrigin } from "../../server/payments/checkout.service.ts";
import { fulfilCheckoutSession } from "../../server/payments/fulfilment.service.ts";
import { createPromotion, PROMO_MESSAGES } from "../../server/payments/promotions.service.ts";
import {
  cancelSubscriptionsForUser,
  getSubscriptionSummary,
  renewSandboxSubscription,
} from "../../server/payments/subscription.service.ts";
import { backends } from "../helpers/backends.ts";
import { checkoutStatus, creditsStatusBody } from "../helpers/checkout-status.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { type Json, openTestContext, readResponse, type TestContext } from "../helpers/test-app.ts";

const ORIGIN = "http://localhost";

async function balance(ctx: TestContext, userId: string): Promise<number> {
  const [u] = await ctx.database.db.select({ c: users.credits }).from(users).where(eq(users.id, userId));
  return u.c;
}

/** Posts the sandbox card form like a browser does. */
async function submitCard(
  ctx: TestContext,
  sessionId: string,
  card: string,
  extra: Record<string, string> = {},
) {
  const form = new URLSearchParams({
    card_number: card,
    expiry: "12 / 40",
    cvc: "123",
    name: "Test",
    ...extra,
  });
  const res = await ctx.app.request(`${ORIGIN}/checkout/sandbox/${sessionId}/pay`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    redirect: "manual",
  });
  await res.body?.cancel();
  return { status: res.status, location: res.headers.get("Location") };
}

async function page(ctx: TestContext, path: string) {
  return await readResponse(await ctx.app.request(`${ORIGIN}${path}`));
}

function sessionIdOf(checkoutUrl: string): string {
  const m = /\/checkout\/sandbox\/(cs_sandbox_[0-9a-f]{32})$/.exec(checkoutUrl);
  assert.ok(m, `unexpected checkout url ${checkoutUrl}`);
  return m[1];
}

async function buy(ctx: TestContext, token: string, body: Record<string, unknown>) {
  return await ctx.call("POST", "/api/payments/checkout/credits", {
    token,
    body: { payment_type: "credits", origin_url: ORIGIN, ...body },
  });
}

const validate = (ctx: TestContext, body: Json, token?: string) =>
  ctx.call("POST", "/api/payments/promotion-code/validate", { body, token });

for (const backend of backends()) {
  Deno.test(
    {
      name: `[${backend.name}] payments: sandbox store, promotion codes, fulfilment, subscriptions`,
      ignore: backend.skip,
    },
    async (t) => {
      const ctx = await openTestContext(backend, {
        AUTH_RATE_LIMIT_PER_MINUTE: "100000",
        AUTH_IP_RATE_LIMIT_PER_MINUTE: "100000",
        AUTH_EMAIL_RATE_LIMIT_PER_HOUR: "100000",
        WELCOME_CREDITS: "10",
      });
      const db = ctx.database.db;
      try {
        await t.step("catalogue: packs and plans come from the server", async () => {
          const res = await ctx.call("GET", "/api/credits/packages");
          assert.equal(res.status, 200);
          assert.deepEqual(res.body.packages.small, {
            credits: 5,
            price_display: "$1.00",
            price_cents: 100,
            currency: "usd",
            popular: false,
          });
          assert.deepEqual(
            ["small", "medium", "large"].map((id) => res.body.packages[id].popular),
            [false, true, false],
          );
          assert.deepEqual(
            { credits: res.body.packages.large.credits, price: res.body.packages.large.price_display },
            { credits: 100, price: "$16.00" },
          );
          assert.equal(res.body.packages.large.badge, "20% OFF");
          const plans = await ctx.call("GET", "/api/payments/plans");
          assert.deepEqual(
            plans.body.plans.map((p: Json) => [p.id, p.name, p.price, p.credits, p.popular, p.premium]),
            [["starter", "Starter", 9, 300, false, false], ["pro", "PRO", 20, 1200, true, false], [
              "creator",
              "CREATOR",
              29,
              2200,
              false,
              true,
            ]],
          );
          assert.ok(plans.body.plans[1].features.includes("360° view"));
        });

        await createPromotion(db, { code: "save20", percent: 20 });
        await createPromotion(db, { code: "FIVEOFF", amountCents: 500, appliesTo: "subscription" });
        await createPromotion(db, {
          code: "OLDCODE",
          percent: 10,
          expiresAt: new Date(Date.now() - 60_000),
        });
        await createPromotion(db, { code: "BIG90", percent: 90 });
        await createPromotion(db, { code: "ALLOFF", amountCents: 5000, appliesTo: "credits" });

        await t.step(
          "validate: percent and fixed codes, amounts in dollars, case and whitespace",
          async () => {
            const r = await validate(ctx, {
              code: "  save20 ",
              payment_type: "subscription",
              subscription_plan: "starter",
            });
            assert.equal(r.status, 200);
            assert.deepEqual(r.body, {
              success: true,
              message: "Promotion code applied: 20% off",
              discount_amount: 1.8,
              final_amount: 7.2,
              discount_type: "percentage",
              discount_value: 20,
            });
            const small = await validate(ctx, {
              code: "Save20",
              payment_type: "credits",
              package_id: "small",
            });
            assert.equal(small.body.final_amount, 0.8);
            const fixed = await validate(ctx, {
              code: "fiveoff",
              payment_type: "subscription",
              subscription_plan: "pro",
            });
            assert.deepEqual(
              [
                fixed.body.success,
                fixed.body.discount_type,
                fixed.body.discount_value,
                fixed.body.final_amount,
              ],
              [true, "fixed_amount", 5, 15],
            );
          },
        );

        await t.step("validate: refusals are answers with a message; bad input is 422", async () => {
          const cases: [Json, string][] = [
            [{ code: "NOPE", payment_type: "credits", package_id: "small" }, PROMO_MESSAGES.invalid],
            [{ code: "oldcode", payment_type: "credits", package_id: "small" }, PROMO_MESSAGES.expired],
            [{ code: "FIVEOFF", payment_type: "credits", package_id: "large" }, PROMO_MESSAGES.notForCredits],
            // $50 off fits no pack: each would fall below the minimum charge.
            [{ code: "ALLOFF", payment_type: "credits", package_id: "small" }, PROMO_MESSAGES.belowMinimum],
          ];
          for (const [body, message] of cases) {
            const r = await validate(ctx, body);
            assert.equal(r.status, 200);
            assert.equal(r.body.success, false);
            assert.equal(r.body.message, message);
            assert.equal(r.body.discount_amount, 0);
          }
          // 90% of the large pack ($16) is $1.60: above the minimum, accepted.
          assert.equal(
            (await validate(ctx, { code: "BIG90", payment_type: "credits", package_id: "large" })).body
              .final_amount,
            1.6,
          );
          // Buy Credits validates against the 5-credit pack, which 90% would take to $0.10: the code is applied
          // (it fits the others), with nothing off that pack, and said so.
          const small = await validate(ctx, { code: "BIG90", payment_type: "credits", package_id: "small" });
          assert.deepEqual(
            [
              small.body.success,
              small.body.discount_amount,
              small.body.final_amount,
              small.body.discount_type,
            ],
            [true, 0, 1, "percentage"],
          );
          assert.equal(small.body.discount_value, 90);
          assert.equal(
            small.body.message,
            "Promotion code applied: 90% off (not on the 5-credit pack: its total would be below the $0.50 minimum charge)",
          );
          for (
            const bad of [
              { code: "SAVE20", payment_type: "credits" },
              { code: "SAVE20", payment_type: "credits", package_id: "huge" },
              { code: "SAVE20", payment_type: "cash", package_id: "small" },
              { code: "x".repeat(65), payment_type: "credits", package_id: "small" },
            ]
          ) {
            const r = await validate(ctx, bad);
            assert.equal(r.status, 422, JSON.stringify(bad));
            assert.equal(typeof r.body.detail, "string");
          }
        });

        await t.step("checkout: auth required, own origin only, invalid code refused", async () => {
          const user = await ctx.register();
          assert.equal(
            (await ctx.call("POST", "/api/payments/checkout/credits", {
              body: { payment_type: "credits", package_id: "small", origin_url: ORIGIN },
            })).status,
            401,
          );
          for (
            const origin of [
              "https://evil.example",
              "http://localhost.evil.example",
              "http://localhost/phish",
              "nope",
            ]
          ) {
            const r = await buy(ctx, user.access_token, { package_id: "small", origin_url: origin });
            assert.equal(r.status, 422, origin);
            assert.equal(r.body.code, "invalid_origin");
            // A failed checkout's reason is also its `message`.
            assert.equal(r.body.message, r.body.detail, origin);
          }
          const r = await buy(ctx, user.access_token, { package_id: "small", promotion_code: "oldcode" });
          assert.equal(r.status, 422);
          assert.equal(r.body.detail, PROMO_MESSAGES.expired);
          // A code the 5-credit pack cannot take (below the minimum) is refused there, at checkout too.
          const tooBig = await buy(ctx, user.access_token, { package_id: "small", promotion_code: "BIG90" });
          assert.equal(tooBig.status, 422);
          assert.equal(tooBig.body.detail, PROMO_MESSAGES.belowMinimum);
          assert.equal(await db.$count(checkoutSessions, eq(checkoutSessions.userId, user.user.id)), 0);
          // Outside production, a client on another local port may check out (returned to where it runs).
          for (const origin of ["http://localhost:5173", "http://127.0.0.1:3000"]) {
            const r = await buy(ctx, user.access_token, { package_id: "small", origin_url: origin });
            assert.equal(r.status, 200, origin);
          }
          // With PUBLIC_URL set, the origin the request claims (its Host header, passed on by a proxy) is not
          // trusted: a request sent with `Host: evil.example` cannot make evil.example a return address.
          const live = { publicUrl: "https://styletwin.example", production: true };
          assert.equal(
            checkedOrigin("https://styletwin.example/", "https://evil.example/api/x", live),
            "https://styletwin.example",
          );
          assert.throws(
            () => checkedOrigin("https://evil.example", "https://evil.example/api/x", live),
            /origin_url/,
          );
          // Without it, the app's own origin is the one the request reached.
          assert.equal(
            checkedOrigin("https://app.example", "https://app.example/api/x", {
              publicUrl: undefined,
              production: true,
            }),
            "https://app.example",
          );
        });

        await t.step(
          "sandbox purchase: decline, then 4242 pays; credited once; status is owner-only",
          async () => {
            const user = await ctx.register();
            const other = await ctx.register();
            const r = await buy(ctx, user.access_token, { package_id: "small", promotion_code: " save20 " });
            assert.equal(r.status, 200, JSON.stringify(r.body));
            const id = sessionIdOf(r.body.checkout_url);
            assert.ok(r.body.checkout_url.startsWith(`${ORIGIN}/checkout/sandbox/`));

            const shown = await page(ctx, `/checkout/sandbox/${id}`);
            assert.equal(shown.status, 200);
            assert.match(shown.body, /TEST MODE/);
            assert.match(shown.body, /5 credits/);
            assert.match(shown.body, /Discount \(SAVE20\)/);
            assert.match(shown.body, /Total due today<\/dt><dd data-testid="sandbox-total">\$0\.80/);
            assert.doesNotMatch(shown.body, /<script|style=/);
            assert.equal(shown.headers.get("Cache-Control"), "no-store");
            // A mistyped or unknown session is a page with a way back, not the API's JSON.
            for (const bad of ["cs_sandbox_" + "0".repeat(32), "not a session!"]) {
              const missing = await page(ctx, `/checkout/sandbox/${encodeURIComponent(bad)}`);
              assert.equal(missing.status, 404, bad);
              assert.match(missing.headers.get("Content-Type") ?? "", /^text\/html/);
              assert.match(missing.body, /This checkout session was not found/);
              assert.match(missing.body, /<a class="pay link" href="\/">Return to StyleTwin<\/a>/);
            }

            const declined = await submitCard(ctx, id, "4000 0000 0000 0002");
            assert.equal(declined.status, 303);
            assert.equal(declined.location, `/checkout/sandbox/${id}?declined=1`);
            assert.match((await page(ctx, declined.location!)).body, /Your card was declined\./);
            assert.equal(await balance(ctx, user.user.id), 10);
            const pending = await checkoutStatus(ctx, user.access_token, id, ORIGIN);
            assert.deepEqual(pending.body, creditsStatusBody(false, 80, 5));

            const paid = await submitCard(ctx, id, "4242 4242 4242 4242");
            assert.equal(paid.status, 303);
            assert.equal(paid.location, `${ORIGIN}/credit-purchase-success?session_id=${id}`);
            assert.equal(await balance(ctx, user.user.id), 15);

            const status = await checkoutStatus(ctx, user.access_token, id, ORIGIN);
            assert.deepEqual(status.body, creditsStatusBody(true, 80, 5));
            // Paying again, polling, and fulfilling directly change nothing.
            assert.equal((await submitCard(ctx, id, "4242424242424242")).location, paid.location);
            assert.equal(await fulfilCheckoutSession(db, id), "already_fulfilled");
            assert.equal(await balance(ctx, user.user.id), 15);
            const rows = await db.select().from(creditLedger).where(
              and(eq(creditLedger.userId, user.user.id), eq(creditLedger.reason, "purchase")),
            );
            assert.deepEqual(rows.map((r) => [r.ref, r.delta, r.balanceAfter]), [[id, 5, 15]]);

            const foreign = await ctx.call("GET", `/api/payments/checkout/status/${id}`, {
              token: other.access_token,
            });
            assert.equal(foreign.status, 404);
            // The status call redirects nowhere: the origin the client sends is not checked.
            assert.equal(
              (await ctx.call("GET", `/api/payments/checkout/status/${id}?origin_url=https://evil.example`, {
                token: user.access_token,
              })).status,
              200,
            );
            assert.equal((await ctx.call("GET", `/api/payments/checkout/status/${id}`)).status, 401);

            // Once per user: the code is spent for this account, not for others.
            const again = await validate(ctx, {
              code: "SAVE20",
              payment_type: "credits",
              package_id: "small",
            }, user.access_token);
            assert.deepEqual([again.body.success, again.body.message], [false, PROMO_MESSAGES.alreadyUsed]);
            assert.equal(
              (await buy(ctx, user.access_token, { package_id: "small", promotion_code: "save20" })).status,
              422,
            );
            const fresh = await validate(ctx, {
              code: "SAVE20",
              payment_type: "credits",
              package_id: "small",
            }, other.access_token);
            assert.equal(fresh.body.success, true);
          },
        );

        await t.step("sandbox: bad card input is declined with a message, nothing credited", async () => {
          const user = await ctx.register();
          const id = sessionIdOf(
            (await buy(ctx, user.access_token, { package_id: "medium" })).body.checkout_url,
          );
          for (
            const [card, extra, message] of [
              ["1234", {}, "Your card number is invalid"],
              ["4242424242424242", { expiry: "01 / 20" }, "expiration date is invalid"],
              ["4242424242424242", { cvc: "1" }, "security code is invalid"],
              ["4000000000009995", {}, "insufficient funds"],
            ] as const
          ) {
            const res = await submitCard(ctx, id, card, extra);
            assert.equal(res.status, 303);
            assert.match((await page(ctx, res.location!)).body, new RegExp(message));
          }
          assert.equal(await balance(ctx, user.user.id), 10);
        });

        await t.step(
          "sandbox: cancel returns to the cancel route; an expired session cannot be paid",
          async () => {
            const user = await ctx.register();
            const id = sessionIdOf(
              (await buy(ctx, user.access_token, { package_id: "large" })).body.checkout_url,
            );
            const cancel = await ctx.app.request(`${ORIGIN}/checkout/sandbox/${id}/cancel`, {
              method: "POST",
              redirect: "manual",
            });
            assert.equal(cancel.status, 303);
            assert.equal(cancel.headers.get("Location"), `${ORIGIN}/credit-purchase-cancel?session_id=${id}`);
            await db.update(checkoutSessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(
              eq(checkoutSessions.id, id),
            );
            const expired = await page(ctx, `/checkout/sandbox/${id}`);
            assert.match(expired.body, /This checkout session has expired/);
            assert.match(
              expired.body,
              new RegExp(`href="${ORIGIN}/credit-purchase-success\\?session_id=${id}"`),
            );
            const paid = await submitCard(ctx, id, "4242424242424242");
            assert.equal(paid.location, `/checkout/sandbox/${id}`);
            const status = await ctx.call("GET", `/api/payments/checkout/status/${id}`, {
              token: user.access_token,
            });
            assert.deepEqual([status.body.status, status.body.payment_status], ["expired", "unpaid"]);
            assert.equal(await balance(ctx, user.user.id), 10);
            assert.equal((await page(ctx, "/checkout/sandbox/cs_sandbox_nope")).status, 404);
          },
        );

        await t.step("one session fulfilled by 20 parallel callers is credited once", async () => {
          const user = await ctx.register();
          const id = sessionIdOf(
            (await buy(ctx, user.access_token, { package_id: "large" })).body.checkout_url,
          );
          const outcomes = await Promise.all(Array.from({ length: 20 }, () => fulfilCheckoutSession(db, id)));
          assert.equal(outcomes.filter((o) => o === "fulfilled").length, 1);
          assert.equal(await balance(ctx, user.user.id), 110);
        });

        await t.step("a 1-use code under 20 parallel fulfilments is redeemed once", async () => {
          const promo = await createPromotion(db, { code: "ONLYONE", percent: 10, maxRedemptions: 1 });
          const buyers = await Promise.all(Array.from({ length: 20 }, () => ctx.register()));
          const ids: string[] = [];
          for (const b of buyers) {
            const r = await buy(ctx, b.access_token, { package_id: "large", promotion_code: "onlyone" });
            assert.equal(r.status, 200, JSON.stringify(r.body));
            ids.push(sessionIdOf(r.body.checkout_url));
          }
          await Promise.all(ids.map((id) => fulfilCheckoutSession(db, id)));
          assert.equal(
            await db.$count(promotionRedemptions, eq(promotionRedemptions.promotionCodeId, promo.id)),
            1,
          );
          const [row] = await db.select().from(promotionCodes).where(eq(promotionCodes.id, promo.id));
          assert.equal(row.timesRedeemed, 1);
          // Everyone who paid keeps what they paid for.
          for (const b of buyers) assert.equal(await balance(ctx, b.user.id), 110);
          const late = await ctx.register();
          const v = await validate(
            ctx,
            { code: "ONLYONE", payment_type: "credits", package_id: "large" },
            late.access_token,
          );
          assert.deepEqual([v.body.success, v.body.message], [false, PROMO_MESSAGES.usedUp]);
        });

        await t.step("subscriptions: subscribe, renew, upgrade, cancel at period end", async () => {
          const user = await ctx.register();
          const none = await ctx.call("GET", "/api/users/subscription", { token: user.access_token });
          assert.deepEqual(none.body, {
            plan: "none",
            status: "inactive",
            current_period_end: null,
            credits_remaining: 10,
          });

          const r = await ctx.call("POST", "/api/payments/checkout/subscription", {
            token: user.access_token,
            body: {
              payment_type: "subscription",
              subscription_plan: "starter",
              origin_url: ORIGIN,
              promotion_code: "SAVE20",
            },
          });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          const id = sessionIdOf(r.body.checkout_url);
          assert.match((await page(ctx, `/checkout/sandbox/${id}`)).body, /\$7\.20/);
          const paid = await submitCard(ctx, id, "4242424242424242");
          assert.equal(paid.location, `${ORIGIN}/subscription-success?session_id=${id}`);
          const sub = await ctx.call("GET", "/api/users/subscription", { token: user.access_token });
          assert.equal(sub.body.plan, "starter");
          assert.equal(sub.body.status, "active");
          assert.equal(sub.body.credits_remaining, 310);
          assert.equal("cancel_at_period_end" in sub.body, false, "a plan that renews: the four fields only");
          const end1 = new Date(sub.body.current_period_end);
          assert.ok(end1.getTime() > Date.now() + 27 * 86400_000);

          const same = await ctx.call("POST", "/api/payments/checkout/subscription", {
            token: user.access_token,
            body: { subscription_plan: "starter", origin_url: ORIGIN },
          });
          assert.equal(same.status, 409);
          assert.equal(same.body.message, same.body.detail);
          assert.equal(typeof same.body.code, "string");

          const renewed = await renewSandboxSubscription(db, user.user.id);
          assert.equal(renewed.outcome, "renewed");
          const after = await getSubscriptionSummary(db, user.user.id);
          assert.equal(after.credits_remaining, 610);
          assert.equal(after.current_period_end, renewed.periodEnd.toISOString());
          assert.ok(renewed.periodEnd > end1);

          // Upgrade in the sandbox: pay for PRO, the plan is replaced at once with its credits.
          const up = await ctx.call("POST", "/api/payments/checkout/subscription", {
            token: user.access_token,
            body: { subscription_plan: "pro", origin_url: ORIGIN },
          });
          await submitCard(ctx, sessionIdOf(up.body.checkout_url), "4242424242424242");
          const pro = await getSubscriptionSummary(db, user.user.id);
          assert.deepEqual([pro.plan, pro.credits_remaining], ["pro", 1810]);

          const cancelled = await ctx.call("POST", "/api/payments/subscription/cancel", {
            token: user.access_token,
          });
          assert.equal(cancelled.status, 200);
          assert.equal(cancelled.body.plan, "pro");
          // The plan stays until its period ends, and says it will not renew.
          const ending = await ctx.call("GET", "/api/users/subscription", { token: user.access_token });
          assert.deepEqual([ending.body.plan, ending.body.cancel_at_period_end], ["pro", true]);
          const ended = await renewSandboxSubscription(db, user.user.id);
          assert.equal(ended.outcome, "ended");
          assert.deepEqual(
            await getSubscriptionSummary(db, user.user.id),
            { plan: "none", status: "inactive", current_period_end: null, credits_remaining: 1810 },
          );
          assert.equal(
            (await ctx.call("POST", "/api/payments/subscription/cancel", { token: user.access_token }))
              .status,
            404,
          );
          const grants = await db.select().from(creditLedger).where(
            and(eq(creditLedger.userId, user.user.id), eq(creditLedger.reason, "subscription")),
          );
          assert.equal(grants.length, 3);
        });

        await t.step("account deletion's cancel is idempotent", async () => {
          const user = await ctx.register();
          const r = await ctx.call("POST", "/api/payments/checkout/subscription", {
            token: user.access_token,
            body: { subscription_plan: "creator", origin_url: ORIGIN },
          });
          await submitCard(ctx, sessionIdOf(r.body.checkout_url), "4242424242424242");
          assert.equal((await getSubscriptionSummary(db, user.user.id)).plan, "creator");
          await cancelSubscriptionsForUser({ db, config: ctx.config }, user.user.id);
          await cancelSubscriptionsForUser({ db, config: ctx.config }, user.user.id);
          assert.equal((await getSubscriptionSummary(db, user.user.id)).plan, "none");
        });

        await t.step("promotion validation is rate-limited (codes are secrets)", async () => {
          let limited: Json = null;
          for (let i = 0; i <= 30 && !limited; i++) {
            const r = await validate(ctx, {
              code: `GUESS${i}`,
              payment_type: "credits",
              package_id: "small",
            });
            if (r.status === 429) limited = r;
            else assert.equal(r.status, 200);
          }
          assert.ok(limited, "31 guesses in a minute were all answered");
          assert.equal(limited.body.code, "rate_limited");
          assert.ok(Number(limited.headers.get("Retry-After")) >= 1);
        });

        await t.step("the ledger explains every balance", async () => {
          const audit = await ledgerMismatches(db);
          assert.deepEqual(audit.mismatches, []);
        });
      } finally {
        await ctx.close();
      }
    },
  );
}
