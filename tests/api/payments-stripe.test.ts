/**
 * The `stripe` provider: the real stripe SDK pointed (STRIPE_API_BASE) at a
 * local fake that speaks Stripe's wire format, through the real app on
 * PGlite and Postgres. Session payloads, status mapping, webhook signatures,
 * redeliveries and races fulfilling once, renewals, refunds never below 0.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { checkoutSessions, creditLedger, subscriptions, users } from "../../db/schema.ts";
import { applyCreditChange } from "../../server/credits/credits.service.ts";
import { createPromotion } from "../../server/payments/promotions.service.ts";
import { getSubscriptionSummary } from "../../server/payments/subscription.service.ts";
import { backends } from "../helpers/backends.ts";
import { checkoutStatus, creditsStatusBody } from "../helpers/checkout-status.ts";
import { FakeStripe } from "../helpers/fake-stripe.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { type Json, openTestContext, readResponse, type TestContext } from "../helpers/test-app.ts";

const ORIGIN = "http://localhost";

async function balance(ctx: TestContext, userId: string): Promise<number> {
  const [u] = await ctx.database.db.select({ c: users.credits }).from(users).where(eq(users.id, userId));
  return u.c;
}

async function deliver(ctx: TestContext, body: string, signature?: string) {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (signature !== undefined) headers["Stripe-Signature"] = signature;
  return await readResponse(
    await ctx.app.request(`${ORIGIN}/api/payments/webhook`, { method: "POST", headers, body }),
  );
}

async function deliverEvent(ctx: TestContext, fake: FakeStripe, event: Json) {
  const { body, signature } = await fake.signed(event);
  return await deliver(ctx, body, signature);
}

const status = (ctx: TestContext, token: string, id: string) => checkoutStatus(ctx, token, id, ORIGIN);

for (const backend of backends()) {
  Deno.test(
    { name: `[${backend.name}] payments (stripe SDK against a fake Stripe)`, ignore: backend.skip },
    async (t) => {
      const fake = await new FakeStripe().start();
      const ctx = await openTestContext(backend, {
        AUTH_RATE_LIMIT_PER_MINUTE: "100000",
        AUTH_IP_RATE_LIMIT_PER_MINUTE: "100000",
        AUTH_EMAIL_RATE_LIMIT_PER_HOUR: "100000",
        WELCOME_CREDITS: "10",
        STRIPE_SECRET_KEY: fake.secretKey,
        STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
        STRIPE_API_BASE: fake.url,
      });
      const db = ctx.database.db;
      await createPromotion(db, { code: "SAVE20", percent: 20 });
      await createPromotion(db, { code: "FIVEOFF", amountCents: 500 });

      /** A new account on Starter through Stripe, its session paid and delivered: the user and the session. */
      async function starterSubscriber() {
        const user = await ctx.register();
        const r = await ctx.call("POST", "/api/payments/checkout/subscription", {
          token: user.access_token,
          body: { subscription_plan: "starter", origin_url: ORIGIN },
        });
        const first = fake.completeSession(/\/c\/pay\/(cs_test_\w+)$/.exec(r.body.checkout_url)![1]);
        await deliverEvent(ctx, fake, fake.event("checkout.session.completed", first));
        return { user, first };
      }

      async function buyLarge(token: string, code?: string) {
        const r = await ctx.call("POST", "/api/payments/checkout/credits", {
          token,
          body: { payment_type: "credits", package_id: "large", origin_url: ORIGIN, promotion_code: code },
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const id = /\/c\/pay\/(cs_test_\w+)$/.exec(r.body.checkout_url)?.[1];
        assert.ok(id, r.body.checkout_url);
        return id;
      }

      try {
        await t.step("pack checkout: a payment-mode session for exactly the discounted amount", async () => {
          const user = await ctx.register();
          const id = await buyLarge(user.access_token, "save20");
          const [req] = fake.requestsTo("POST", "/v1/checkout/sessions");
          assert.equal(req.contentType, "application/x-www-form-urlencoded");
          assert.equal(req.authorization, `Bearer ${fake.secretKey}`);
          assert.ok(req.stripeVersion, "the SDK pins an API version");
          const f = Object.fromEntries(req.fields);
          assert.equal(f["mode"], "payment");
          assert.equal(f["line_items[0][price_data][unit_amount]"], "1280");
          assert.equal(f["line_items[0][price_data][currency]"], "usd");
          assert.equal(f["line_items[0][price_data][product_data][name]"], "100 credits");
          assert.equal(f["line_items[0][quantity]"], "1");
          assert.equal(
            f["success_url"],
            `${ORIGIN}/credit-purchase-success?session_id={CHECKOUT_SESSION_ID}`,
          );
          assert.equal(f["cancel_url"], `${ORIGIN}/credit-purchase-cancel`);
          assert.equal(f["client_reference_id"], user.user.id);
          assert.equal(f["metadata[user_id]"], user.user.id);
          assert.equal(f["metadata[credits]"], "100");
          assert.equal(f["metadata[package_id]"], "large");
          assert.equal(f["metadata[promotion_code]"], "SAVE20");
          assert.equal(f["payment_intent_data[metadata][user_id]"], user.user.id);
          assert.equal(f["customer_email"], user.user.email);
          assert.ok(Number(f["expires_at"]) > Date.now() / 1000);
          assert.equal(fake.sessions.get(id)!.amount_total, 1280);

          const open = await status(ctx, user.access_token, id);
          assert.deepEqual(open.body, creditsStatusBody(false, 1280, 100));
          fake.completeSession(id);
          const paid = await status(ctx, user.access_token, id);
          assert.deepEqual(paid.body, creditsStatusBody(true, 1280, 100));
          assert.equal(await balance(ctx, user.user.id), 110);
          await status(ctx, user.access_token, id);
          assert.equal(await balance(ctx, user.user.id), 110);

          const gone = await buyLarge(user.access_token);
          fake.expireSession(gone);
          const expired = await status(ctx, user.access_token, gone);
          assert.deepEqual([expired.body.status, expired.body.payment_status], ["expired", "unpaid"]);
          assert.equal(await balance(ctx, user.user.id), 110);
        });

        await t.step("webhook: bad, missing and stale signatures are 400 and credit nothing", async () => {
          const user = await ctx.register();
          const id = await buyLarge(user.access_token);
          const event = fake.event("checkout.session.completed", fake.completeSession(id));
          const { body } = await fake.signed(event);
          const wrongSecret = await fake.signed(event, { secret: "whsec_someone_else" });
          const stale = await fake.signed(event, { timestamp: Math.floor(Date.now() / 1000) - 600 });
          for (
            const signature of [
              wrongSecret.signature,
              stale.signature,
              "t=1,v1=deadbeef",
              "garbage",
              undefined,
            ]
          ) {
            const res = await deliver(ctx, body, signature);
            assert.equal(res.status, 400, String(signature));
            assert.equal(res.body.code, "invalid_signature");
          }
          // A valid signature over a different body (tampered amount) is refused too.
          const tampered = await deliver(
            ctx,
            body.replace('"amount_total":1600', '"amount_total":1'),
            (await fake.signed(event)).signature,
          );
          assert.equal(tampered.status, 400);
          assert.equal(await balance(ctx, user.user.id), 10);

          const ok = await deliverEvent(ctx, fake, event);
          assert.equal(ok.status, 200);
          assert.deepEqual(ok.body, { received: true, outcome: "handled" });
          assert.equal(await balance(ctx, user.user.id), 110);
        });

        await t.step("the same completion 10 times and under 3 event ids is credited once", async () => {
          const user = await ctx.register();
          const id = await buyLarge(user.access_token);
          const session = fake.completeSession(id);
          const event = fake.event("checkout.session.completed", session);
          for (let i = 0; i < 10; i++) assert.equal((await deliverEvent(ctx, fake, event)).status, 200);
          for (let i = 0; i < 3; i++) {
            assert.equal(
              (await deliverEvent(ctx, fake, fake.event("checkout.session.completed", session))).status,
              200,
            );
          }
          assert.equal(await balance(ctx, user.user.id), 110);
          const rows = await db.select().from(creditLedger).where(
            and(eq(creditLedger.reason, "purchase"), eq(creditLedger.ref, id)),
          );
          assert.equal(rows.length, 1);
        });

        await t.step("status calls and webhooks racing, 50 in parallel: credited once", async () => {
          const user = await ctx.register();
          const id = await buyLarge(user.access_token);
          const session = fake.completeSession(id);
          const results = await Promise.all(
            Array.from(
              { length: 50 },
              (_, i) =>
                i % 2 === 0
                  ? status(ctx, user.access_token, id).then((r) => r.status)
                  : deliverEvent(ctx, fake, fake.event("checkout.session.completed", session)).then((r) =>
                    r.status
                  ),
            ),
          );
          assert.deepEqual(new Set(results), new Set([200]));
          assert.equal(await balance(ctx, user.user.id), 110);
        });

        let subscriptionId = "";
        let subscriber: Json;
        await t.step(
          "plan checkout: a subscription-mode session with its monthly price inline, promo as a one-off coupon",
          async () => {
            subscriber = await ctx.register();
            const r = await ctx.call("POST", "/api/payments/checkout/subscription", {
              token: subscriber.access_token,
              body: {
                payment_type: "subscription",
                subscription_plan: "pro",
                origin_url: ORIGIN,
                promotion_code: "fiveoff",
              },
            });
            assert.equal(r.status, 200, JSON.stringify(r.body));
            const id = /\/c\/pay\/(cs_test_\w+)$/.exec(r.body.checkout_url)![1];
            // Only the Checkout Session (and the promotion's coupon): no Price is looked up or created.
            assert.equal(fake.requestsTo("GET", "/v1/prices").length, 0);
            assert.equal(fake.requestsTo("POST", "/v1/prices").length, 0);
            const coupon = fake.requestsTo("POST", "/v1/coupons").at(-1)!.params;
            assert.deepEqual([coupon.amount_off, coupon.duration, coupon.max_redemptions], [
              "500",
              "once",
              "1",
            ]);
            const s = fake.requestsTo("POST", "/v1/checkout/sessions").at(-1)!.params;
            assert.equal(s.mode, "subscription");
            const price = s.line_items[0].price_data;
            assert.deepEqual(
              [price.unit_amount, price.currency, price.recurring.interval, price.product_data.name],
              ["2000", "usd", "month", "PRO plan"],
            );
            assert.equal(s.discounts[0].coupon, [...fake.coupons.values()].at(-1)!.id);
            assert.equal(s.subscription_data.metadata.user_id, subscriber.user.id);
            assert.equal(s.subscription_data.metadata.plan, "pro");
            assert.equal(s.success_url, `${ORIGIN}/subscription-success?session_id={CHECKOUT_SESSION_ID}`);
            assert.equal(fake.sessions.get(id)!.amount_total, 1500);

            const session = fake.completeSession(id);
            subscriptionId = session.subscription;
            // invoice.paid for the first invoice may come before or after the session event: one grant.
            await deliverEvent(ctx, fake, fake.event("invoice.paid", fake.invoices.get(session.invoice)!));
            await deliverEvent(ctx, fake, fake.event("checkout.session.completed", session));
            await deliverEvent(ctx, fake, fake.event("invoice.paid", fake.invoices.get(session.invoice)!));
            const summary = await getSubscriptionSummary(db, subscriber.user.id);
            assert.equal(summary.plan, "pro");
            assert.equal(summary.status, "active");
            assert.equal(summary.credits_remaining, 1210);
            const item = fake.subscriptions.get(subscriptionId)!.items.data[0];
            assert.equal(summary.current_period_end, new Date(item.current_period_end * 1000).toISOString());
          },
        );

        await t.step("a renewal's invoice.paid delivered twice grants the month once", async () => {
          const invoice = fake.renew(subscriptionId);
          await deliverEvent(ctx, fake, fake.event("invoice.paid", invoice));
          await deliverEvent(ctx, fake, fake.event("invoice.paid", invoice));
          const summary = await getSubscriptionSummary(db, subscriber.user.id);
          assert.equal(summary.credits_remaining, 2410);
          const item = fake.subscriptions.get(subscriptionId)!.items.data[0];
          assert.equal(summary.current_period_end, new Date(item.current_period_end * 1000).toISOString());
          const grants = await db.select().from(creditLedger).where(
            and(eq(creditLedger.userId, subscriber.user.id), eq(creditLedger.reason, "subscription")),
          );
          assert.deepEqual(grants.map((g) => g.delta), [1200, 1200]);
        });

        await t.step(
          "a renewal paid as invoice.payment_succeeded grants the month, once with invoice.paid; the older invoice shape too",
          async () => {
            const before = (await getSubscriptionSummary(db, subscriber.user.id)).credits_remaining;
            const invoice = fake.renew(subscriptionId);
            await deliverEvent(ctx, fake, fake.event("invoice.payment_succeeded", invoice));
            await deliverEvent(ctx, fake, fake.event("invoice.paid", invoice));
            assert.equal(
              (await getSubscriptionSummary(db, subscriber.user.id)).credits_remaining,
              before + 1200,
            );
            // Before API version 2025-03-31 the subscription was named at the invoice's top level.
            const older = fake.renew(subscriptionId);
            const details = older.parent.subscription_details;
            Object.assign(older, {
              parent: null,
              subscription: details.subscription,
              subscription_details: { metadata: details.metadata },
            });
            await deliverEvent(ctx, fake, fake.event("invoice.paid", older));
            assert.equal(
              (await getSubscriptionSummary(db, subscriber.user.id)).credits_remaining,
              before + 2400,
            );
          },
        );

        await t.step(
          "a subscriber buying a pack checks out as their Stripe customer; one deleted since, by email",
          async () => {
            const customer = fake.subscriptions.get(subscriptionId)!.customer;
            const id = await buyLarge(subscriber.access_token);
            const sent = fake.requestsTo("POST", "/v1/checkout/sessions").at(-1)!.params;
            assert.equal(sent.customer, customer);
            assert.equal(sent.customer_email, undefined, "Stripe takes customer or customer_email, not both");
            assert.equal(fake.sessions.get(id)!.customer, customer);

            fake.customers.delete(customer);
            const again = await buyLarge(subscriber.access_token);
            const [refused, byEmail] = fake.requestsTo("POST", "/v1/checkout/sessions").slice(-2).map((r) =>
              r.params
            );
            assert.equal(refused.customer, customer);
            assert.equal(byEmail.customer, undefined);
            assert.equal(byEmail.customer_email, subscriber.user.email);
            assert.equal(fake.sessions.get(again)!.customer_email, subscriber.user.email);
          },
        );

        await t.step(
          "a first invoice paid for a session that names no invoice grants the month once; a failed async payment grants nothing",
          async () => {
            const user = await ctx.register();
            const r = await ctx.call("POST", "/api/payments/checkout/subscription", {
              token: user.access_token,
              body: { subscription_plan: "starter", origin_url: ORIGIN },
            });
            const session = fake.completeSession(/\/c\/pay\/(cs_test_\w+)$/.exec(r.body.checkout_url)![1]);
            const first = fake.invoices.get(session.invoice)!;
            assert.equal(first.billing_reason, "subscription_create");
            session.invoice = null;
            await deliverEvent(ctx, fake, fake.event("checkout.session.completed", session));
            await deliverEvent(ctx, fake, fake.event("invoice.paid", first));
            await deliverEvent(ctx, fake, fake.event("invoice.payment_succeeded", first));
            assert.equal((await getSubscriptionSummary(db, user.user.id)).credits_remaining, 310);

            const buyer = await ctx.register();
            const id = await buyLarge(buyer.access_token);
            const pending = fake.sessions.get(id)!;
            Object.assign(pending, { status: "complete", payment_status: "unpaid" });
            const failed = await deliverEvent(
              ctx,
              fake,
              fake.event("checkout.session.async_payment_failed", pending),
            );
            assert.deepEqual(failed.body, { received: true, outcome: "handled" });
            assert.equal(await balance(ctx, buyer.user.id), 10);
          },
        );

        await t.step(
          "cancel at period end goes to Stripe; updated and deleted events sync the plan",
          async () => {
            const r = await ctx.call("POST", "/api/payments/subscription/cancel", {
              token: subscriber.access_token,
            });
            assert.equal(r.status, 200);
            const update = fake.requestsTo("POST", `/v1/subscriptions/${subscriptionId}`).at(-1)!;
            assert.equal(update.params.cancel_at_period_end, "true");
            await deliverEvent(
              ctx,
              fake,
              fake.event("customer.subscription.updated", fake.subscriptions.get(subscriptionId)!),
            );
            const [row] = await db.select().from(subscriptions).where(
              eq(subscriptions.userId, subscriber.user.id),
            );
            assert.equal(row.cancelAtPeriodEnd, true);
            // A renewal's invoice.paid handled after the cancellation (late, or retried) does not undo it.
            await deliverEvent(ctx, fake, fake.event("invoice.paid", fake.renew(subscriptionId)));
            const [still] = await db.select().from(subscriptions).where(
              eq(subscriptions.userId, subscriber.user.id),
            );
            assert.equal(still.cancelAtPeriodEnd, true);
            fake.subscriptions.get(subscriptionId)!.status = "canceled";
            await deliverEvent(
              ctx,
              fake,
              fake.event("customer.subscription.deleted", fake.subscriptions.get(subscriptionId)!),
            );
            assert.equal((await getSubscriptionSummary(db, subscriber.user.id)).plan, "none");
          },
        );

        await t.step(
          "a subscription deleted before its session's event arrives is recorded as ended, its paid month granted",
          async () => {
            const user = await ctx.register();
            const r = await ctx.call("POST", "/api/payments/checkout/subscription", {
              token: user.access_token,
              body: { subscription_plan: "creator", origin_url: ORIGIN },
            });
            const session = fake.completeSession(/\/c\/pay\/(cs_test_\w+)$/.exec(r.body.checkout_url)![1]);
            const sub = fake.subscriptions.get(session.subscription)!;
            sub.status = "canceled";
            // Stripe does not promise order: the deletion first, the session's completion after.
            await deliverEvent(ctx, fake, fake.event("customer.subscription.deleted", sub));
            await deliverEvent(ctx, fake, fake.event("checkout.session.completed", session));
            const summary = await getSubscriptionSummary(db, user.user.id);
            assert.equal(summary.plan, "none");
            assert.equal(summary.status, "inactive");
            assert.equal(summary.credits_remaining, 2210, "the paid first month is granted");
            // So the plan can be bought again (it answered "already subscribed" for a subscription long gone).
            const again = await ctx.call("POST", "/api/payments/checkout/subscription", {
              token: user.access_token,
              body: { subscription_plan: "creator", origin_url: ORIGIN },
            });
            assert.equal(again.status, 200, JSON.stringify(again.body));
          },
        );

        await t.step(
          "plan changes: an upgrade charges and grants the prorated difference; a downgrade credits nothing back",
          async () => {
            const { user, first } = await starterSubscriber();
            assert.equal((await getSubscriptionSummary(db, user.user.id)).credits_remaining, 310);
            const change = (plan: string, extra: Record<string, unknown> = {}) =>
              ctx.call("POST", "/api/payments/checkout/subscription", {
                token: user.access_token,
                body: { subscription_plan: plan, origin_url: ORIGIN, ...extra },
              });
            const updates = () => fake.requestsTo("POST", `/v1/subscriptions/${first.subscription}`);

            // A change whose prorated charge is declined stays pending at Stripe: the plan is not changed here.
            fake.declineNextCharge = true;
            const declined = await change("pro");
            assert.equal(declined.status, 402, JSON.stringify(declined.body));
            assert.equal(declined.body.code, "plan_change_unpaid");
            assert.match(declined.body.detail, /your plan stays Starter/);
            assert.equal(updates().at(-1)!.params.payment_behavior, "pending_if_incomplete");
            const kept = await getSubscriptionSummary(db, user.user.id);
            assert.deepEqual([kept.plan, kept.credits_remaining], ["starter", 310]);

            // A promotion code takes money off a new subscription, not a plan change: refused before Stripe.
            const sent = updates().length;
            const withCode = await change("creator", { promotion_code: "save20" });
            assert.equal(withCode.status, 422, JSON.stringify(withCode.body));
            assert.equal(withCode.body.code, "promotion_not_for_plan_change");
            const bogus = await change("creator", { promotion_code: "NO-SUCH-CODE" });
            assert.equal(bogus.status, 422);
            assert.equal(bogus.body.code, "invalid_promotion_code");
            assert.equal(updates().length, sent, "no change reached Stripe");

            // Upgraded as the period begins: charged the whole difference ($20), granted the whole difference
            // in credits (2200 - 300), by the answer itself; its invoice.paid, twice, grants nothing more.
            const up = await change("creator");
            assert.equal(up.status, 200, JSON.stringify(up.body));
            assert.equal(up.body.checkout_url, `${ORIGIN}/dashboard?tab=subscription`);
            assert.equal(up.body.plan_changed, true);
            const upgrade = updates().at(-1)!.params;
            assert.equal(upgrade.proration_behavior, "always_invoice");
            assert.equal(fake.prices.get(upgrade.items[0].price)!.lookup_key, "styletwin_creator_monthly");
            const invoice = fake.invoices.get(fake.subscriptions.get(first.subscription)!.latest_invoice)!;
            assert.equal(invoice.amount_paid, 2000);
            const upgraded = await getSubscriptionSummary(db, user.user.id);
            assert.deepEqual([upgraded.plan, upgraded.credits_remaining], ["creator", 2210]);
            await deliverEvent(ctx, fake, fake.event("invoice.paid", invoice));
            await deliverEvent(ctx, fake, fake.event("invoice.paid", invoice));
            assert.equal((await getSubscriptionSummary(db, user.user.id)).credits_remaining, 2210);
            assert.equal((await change("creator")).status, 409);

            // A downgrade: no proration, so no credit for the dearer plan's unused time (with its credits kept,
            // that credit would pay for the next upgrade: a loop of changes minting credits for nothing).
            const invoices = fake.invoices.size;
            const down = await change("starter");
            assert.equal(down.status, 200, JSON.stringify(down.body));
            assert.equal(down.body.message, "Your plan is now Starter; your next renewal is charged $9.00");
            assert.equal(updates().at(-1)!.params.proration_behavior, "none");
            assert.equal(fake.invoices.size, invoices, "no invoice, no credit note");
            const downgraded = await getSubscriptionSummary(db, user.user.id);
            assert.deepEqual([downgraded.plan, downgraded.credits_remaining], ["starter", 2210]);

            // Upgraded with a tenth of the period left: charged a tenth of the difference ($1.10 for PRO), granted
            // a tenth of the difference in credits (90, not PRO's whole month of 1200).
            fake.prorationFraction = 0.1;
            try {
              assert.equal((await change("pro")).status, 200);
            } finally {
              fake.prorationFraction = 1;
            }
            const late = fake.invoices.get(fake.subscriptions.get(first.subscription)!.latest_invoice)!;
            assert.equal(late.amount_paid, 110);
            await deliverEvent(ctx, fake, fake.event("invoice.paid", late));
            const after = await getSubscriptionSummary(db, user.user.id);
            assert.deepEqual([after.plan, after.credits_remaining], ["pro", 2300]);
          },
        );

        await t.step(
          "a plan change's invoice handled before the app's own answer grants the same prorated credits, in either event order",
          async () => {
            // The change made at Stripe (its dashboard, or the app's answer lost or slow): the events decide.
            for (
              const order of [["invoice.paid", "customer.subscription.updated"], [
                "customer.subscription.updated",
                "invoice.paid",
              ]]
            ) {
              const { user, first } = await starterSubscriber();
              const sub = fake.subscriptions.get(first.subscription)!;
              const price = [...fake.prices.values()].find((p) => p.lookup_key === "styletwin_pro_monthly") ??
                {
                  id: "price_pro_test",
                  object: "price",
                  active: true,
                  currency: "usd",
                  unit_amount: 2000,
                  recurring: { interval: "month" },
                  lookup_key: "styletwin_pro_monthly",
                  product: "prod_pro_test",
                };
              fake.prices.set(price.id, price);
              sub.items.data[0].price = price;
              // Half the period left: Starter's unused half credited ($4.50), PRO's half charged ($10.00).
              const invoice = fake.renew(first.subscription);
              invoice.lines.data = [
                { ...invoice.lines.data[0], id: "il_unused", amount: -450 },
                { ...invoice.lines.data[0], id: "il_rest", amount: 1000 },
              ];
              Object.assign(invoice, { billing_reason: "subscription_update", amount_paid: 550, total: 550 });
              for (const type of order) {
                await deliverEvent(ctx, fake, fake.event(type, type === "invoice.paid" ? invoice : sub));
              }
              const summary = await getSubscriptionSummary(db, user.user.id);
              // Half the difference paid ($5.50 of $11): half the difference in credits ((1200 - 300) / 2).
              assert.deepEqual(
                [summary.plan, summary.credits_remaining],
                ["pro", 310 + 450],
                order.join(" then "),
              );
            }
          },
        );

        await t.step("refund: the pack's credits come back out, never below 0, once", async () => {
          const user = await ctx.register();
          const id = await buyLarge(user.access_token);
          const session = fake.completeSession(id);
          await deliverEvent(ctx, fake, fake.event("checkout.session.completed", session));
          assert.equal(await balance(ctx, user.user.id), 110);
          // The user spends most of it before the refund.
          await db.transaction((tx) =>
            applyCreditChange(tx, {
              userId: user.user.id,
              delta: -70,
              reason: "adjustment",
              ref: crypto.randomUUID(),
            })
          );
          const charge = fake.chargeOf(session.payment_intent);
          // Half refunded: 50 credits come back out.
          await deliverEvent(ctx, fake, fake.event("charge.refunded", fake.refund(charge.id, 800)));
          assert.equal(await balance(ctx, user.user.id), 0);
          const rows = await db.select().from(creditLedger).where(
            and(eq(creditLedger.userId, user.user.id), eq(creditLedger.reason, "payment_refund")),
          );
          assert.deepEqual(rows.map((r) => [r.delta, r.balanceAfter]), [[-40, 0]]);
          // Redelivered: nothing more. Then the rest is refunded while the balance is 0: still 0.
          await deliverEvent(ctx, fake, fake.event("charge.refunded", charge));
          await deliverEvent(ctx, fake, fake.event("charge.refunded", fake.refund(charge.id)));
          assert.equal(await balance(ctx, user.user.id), 0);
        });

        await t.step(
          "the signed event is Stripe's word: a paid session or renewal is acted on while Stripe's API lags; a downgrade's invoice grants nothing",
          async () => {
            // The session paid in the event's body while Stripe's API still answers it open and unpaid.
            const buyer = await ctx.register();
            const id = await buyLarge(buyer.access_token);
            const paid = structuredClone(fake.completeSession(id));
            Object.assign(fake.sessions.get(id)!, { status: "open", payment_status: "unpaid" });
            const r = await deliverEvent(ctx, fake, fake.event("checkout.session.completed", paid));
            assert.deepEqual(r.body, { received: true, outcome: "handled" });
            assert.equal(await balance(ctx, buyer.user.id), 110);

            // A plan, then a renewal whose invoice Stripe's API does not find: the signed invoice grants it.
            const { user, first } = await starterSubscriber();
            const renewal = fake.renew(first.subscription);
            fake.invoices.delete(renewal.id);
            await deliverEvent(ctx, fake, fake.event("invoice.paid", renewal));
            assert.equal((await getSubscriptionSummary(db, user.user.id)).credits_remaining, 610);

            // A plan change's invoice that charged nothing (a downgrade's, its total a credit), and an invoice of
            // another billing reason, grant nothing.
            const sub = fake.subscriptions.get(first.subscription)!;
            for (
              const [reason, paidCents, total] of [["subscription_update", 0, -450], [
                "manual",
                900,
                900,
              ]] as const
            ) {
              const other = fake.renew(first.subscription);
              Object.assign(other, { billing_reason: reason, amount_paid: paidCents, total });
              await deliverEvent(ctx, fake, fake.event("invoice.paid", other));
            }
            assert.equal((await getSubscriptionSummary(db, user.user.id)).credits_remaining, 610);

            // An older API version's subscription names its period at the top level.
            const item = sub.items.data[0];
            const end = item.current_period_end + 86_400;
            Object.assign(sub, { current_period_start: item.current_period_start, current_period_end: end });
            delete item.current_period_start;
            delete item.current_period_end;
            await deliverEvent(ctx, fake, fake.event("customer.subscription.updated", sub));
            const summary = await getSubscriptionSummary(db, user.user.id);
            assert.equal(summary.current_period_end, new Date(end * 1000).toISOString());

            // A renewal that could not be charged: the subscription is past_due at Stripe, and here.
            sub.status = "past_due";
            const unpaid = fake.renew(first.subscription);
            Object.assign(unpaid, { status: "open", amount_paid: 0 });
            await deliverEvent(ctx, fake, fake.event("invoice.payment_failed", unpaid));
            assert.equal((await getSubscriptionSummary(db, user.user.id)).status, "past_due");
            sub.status = "active";
            await deliverEvent(ctx, fake, fake.event("customer.subscription.updated", sub));

            // An update Stripe's API cannot find is not a cancellation.
            fake.subscriptions.delete(first.subscription);
            await deliverEvent(ctx, fake, fake.event("customer.subscription.updated", { id: sub.id }));
            assert.equal((await getSubscriptionSummary(db, user.user.id)).status, "active");
            assert.deepEqual((await ledgerMismatches(db)).mismatches, []);
          },
        );

        await t.step(
          "a signature dated in the future is refused; an event with no object is acknowledged",
          async () => {
            const event = fake.event("customer.created", { id: "cus_y", object: "customer" });
            const ahead = await fake.signed(event, { timestamp: Math.floor(Date.now() / 1000) + 3600 });
            const refused = await deliver(ctx, ahead.body, ahead.signature);
            assert.equal(refused.status, 400);
            assert.equal(refused.body.code, "invalid_signature");
            for (const type of ["customer.created", "invoice.paid"]) {
              const bare = await fake.signed({ id: `evt_bare_${type}`, object: "event", type });
              const r = await deliver(ctx, bare.body, bare.signature);
              assert.equal(r.status, 200, JSON.stringify(r.body));
              assert.equal(r.body.outcome, "ignored");
            }
          },
        );

        await t.step(
          "unknown events are acknowledged and ignored; the ledger explains every balance",
          async () => {
            const r = await deliverEvent(
              ctx,
              fake,
              fake.event("customer.created", { id: "cus_x", object: "customer" }),
            );
            assert.deepEqual(r.body, { received: true, outcome: "ignored" });
            // Another app's checkout on the same account is acknowledged, not retried forever.
            const foreign = fake.event("checkout.session.completed", { id: "cs_test_other", metadata: {} });
            assert.deepEqual((await deliverEvent(ctx, fake, foreign)).body, {
              received: true,
              outcome: "ignored",
            });
            // Ours but not recorded yet: 503, so Stripe retries it.
            const early = fake.event("checkout.session.completed", {
              id: "cs_test_later",
              metadata: { user_id: "u" },
            });
            assert.equal((await deliverEvent(ctx, fake, early)).status, 503);
            // An hour on, it is not coming: acknowledged, so Stripe stops retrying.
            const stale = { ...early, id: "evt_stale", created: Math.floor(Date.now() / 1000) - 2 * 3600 };
            assert.deepEqual((await deliverEvent(ctx, fake, stale)).body, {
              received: true,
              outcome: "ignored",
            });
            assert.deepEqual((await ledgerMismatches(db)).mismatches, []);
          },
        );
      } finally {
        await ctx.close();
        await fake.stop();
      }
    },
  );

  Deno.test(
    {
      name: `[${backend.name}] payments: Stripe refusing a call answers 502 and records nothing`,
      ignore: backend.skip,
    },
    async () => {
      const fake = await new FakeStripe().start();
      // A key Stripe does not know: every call is answered 401 {"error": {...}}.
      const ctx = await openTestContext(backend, {
        WELCOME_CREDITS: "10",
        STRIPE_SECRET_KEY: "sk_test_not_known_here",
        STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
        STRIPE_BASE_URL: fake.url,
      });
      try {
        const user = await ctx.register();
        for (
          const [path, body] of [
            ["/api/payments/checkout/credits", {
              payment_type: "credits",
              package_id: "small",
              origin_url: ORIGIN,
            }],
            ["/api/payments/checkout/subscription", { subscription_plan: "pro", origin_url: ORIGIN }],
          ] as const
        ) {
          const r = await ctx.call("POST", path, { token: user.access_token, body });
          assert.equal(r.status, 502, JSON.stringify(r.body));
          const detail =
            "The payment service could not complete the request. Please try again in a few minutes.";
          assert.deepEqual(r.body, { detail, code: "payment_provider_error", message: detail });
        }
        // STRIPE_BASE_URL reached the fake (its calls were refused there, not sent to Stripe).
        assert.ok(fake.requests.length >= 2);
        const rows = await ctx.database.db.select().from(checkoutSessions).where(
          eq(checkoutSessions.userId, user.user.id),
        );
        assert.deepEqual(rows, []);
        assert.equal(await balance(ctx, user.user.id), 10);
      } finally {
        await ctx.close();
        await fake.stop();
      }
    },
  );
}
