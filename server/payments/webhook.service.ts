/**
 * Stripe webhooks. The signature is checked on the raw body; only the events
 * below are acted on; each one only triggers a sync: the current truth is
 * fetched from Stripe and written once (fulfilment and grants are keyed, so a
 * redelivered event, or the same session under another event id, changes
 * nothing). An event id is recorded after it was handled, so a failure is
 * retried by Stripe.
 */
import { clawBackCredits } from "../credits/credits.service.ts";
import { sumDeltas } from "../credits/credits.repository.ts";
import { AppError } from "../http/errors.ts";
import { log } from "../log.ts";
import { PLAN_IDS, type PlanId } from "./payments.schemas.ts";
import { PLANS } from "./catalog.ts";
import { type PaymentsDeps, syncStripeSession } from "./checkout.service.ts";
import { paymentProviderFor } from "./payment-provider-for.ts";
import {
  findCheckoutSession,
  findCheckoutSessionByPayment,
  findSubscriptionByProviderId,
  hasWebhookEvent,
  recordWebhookEvent,
  updateSubscription,
} from "./payments.repository.ts";
import { type ProviderSubscription, WebhookSignatureError } from "./providers/payment-provider.ts";
import { activatePeriod } from "./subscription.service.ts";

export const HANDLED_EVENTS = new Set([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
  // Stripe sends both for a paid invoice; the grant is keyed by the invoice, so either or both grant once.
  "invoice.paid",
  "invoice.payment_succeeded",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "charge.refunded",
]);

export type WebhookOutcome = "handled" | "ignored" | "duplicate";

export async function handleStripeWebhook(
  deps: PaymentsDeps,
  rawBody: string,
  signature: string | undefined,
): Promise<WebhookOutcome> {
  const provider = deps.provider ?? await paymentProviderFor(deps.config);
  if (provider.name !== "stripe") throw new AppError(404, "Not found");
  let event;
  try {
    event = await provider.verifyWebhook(rawBody, signature);
  } catch (error) {
    if (error instanceof WebhookSignatureError) {
      log.warn("webhook signature refused", { reason: error.message });
      throw new AppError(400, "Invalid webhook signature", { code: "invalid_signature" });
    }
    throw error;
  }
  if (!HANDLED_EVENTS.has(event.type)) return "ignored";
  if (await hasWebhookEvent(deps.db, event.id)) return "duplicate";

  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
    case "checkout.session.async_payment_failed":
    case "checkout.session.expired": {
      const row = await findCheckoutSession(deps.db, event.objectId);
      if (!row) {
        // Another app's checkout on the same Stripe account: nothing to do.
        if (!event.metadata.user_id) return "ignored";
        // Ours but not recorded yet (the webhook beat the insert): a 5xx makes Stripe retry.
        throw new AppError(503, "Checkout session not known yet; retry later");
      }
      await syncStripeSession(deps, row);
      break;
    }
    case "invoice.paid":
    case "invoice.payment_succeeded":
      await onInvoicePaid(deps, event.objectId);
      break;
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      await onSubscriptionChanged(deps, event.objectId);
      break;
    case "charge.refunded":
      await onChargeRefunded(deps, event.objectId);
      break;
  }
  await recordWebhookEvent(deps.db, { id: event.id, provider: "stripe", type: event.type });
  return "handled";
}

function planFrom(sub: ProviderSubscription | null, metadata: Record<string, string>): PlanId | null {
  const byKey = PLAN_IDS.find((id) => PLANS[id].lookupKey === sub?.lookupKey);
  if (byKey) return byKey;
  const named = metadata.plan ?? sub?.metadata.plan;
  return (PLAN_IDS as readonly string[]).includes(named ?? "") ? named as PlanId : null;
}

/**
 * A paid invoice of a subscription grants that period's credits, keyed by the invoice. Not the subscription's
 * first invoice (billing reason `subscription_create`): its period is the Checkout Session's, granted when
 * the session is fulfilled (keyed by the session's invoice, or by the session when Stripe names none, so a
 * grant here under the invoice's id could make two).
 */
async function onInvoicePaid(deps: PaymentsDeps, invoiceId: string) {
  const provider = deps.provider ?? await paymentProviderFor(deps.config);
  const invoice = await provider.getInvoice(invoiceId);
  if (!invoice || invoice.status !== "paid" || !invoice.subscriptionId) return;
  if (invoice.billingReason === "subscription_create") return;
  const sub = await provider.getSubscription(invoice.subscriptionId);
  const known = await findSubscriptionByProviderId(deps.db, invoice.subscriptionId);
  const userId = known?.userId ?? invoice.metadata.user_id ?? sub?.metadata.user_id;
  const plan = planFrom(sub, invoice.metadata) ?? known?.plan ?? null;
  if (!userId || !plan) {
    log.warn("invoice.paid for a subscription we cannot place", { invoiceId });
    return;
  }
  await deps.db.transaction((tx) =>
    activatePeriod(tx, {
      userId,
      plan,
      provider: "stripe",
      providerSubscriptionId: invoice.subscriptionId,
      providerCustomerId: sub?.customerId ?? known?.providerCustomerId ?? null,
      periodStart: sub?.currentPeriodStart ?? invoice.periodStart ?? new Date(),
      periodEnd: sub?.currentPeriodEnd ?? invoice.periodEnd ?? new Date(),
      status: sub?.status ?? "active",
      grantRef: invoice.id,
    })
  );
}

async function onSubscriptionChanged(deps: PaymentsDeps, subscriptionId: string) {
  const provider = deps.provider ?? await paymentProviderFor(deps.config);
  const known = await findSubscriptionByProviderId(deps.db, subscriptionId);
  if (!known) return;
  const sub = await provider.getSubscription(subscriptionId);
  if (!sub) {
    await updateSubscription(deps.db, known.id, { status: "canceled" });
    return;
  }
  await updateSubscription(deps.db, known.id, {
    status: sub.status,
    plan: planFrom(sub, {}) ?? known.plan,
    currentPeriodStart: sub.currentPeriodStart,
    currentPeriodEnd: sub.currentPeriodEnd,
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
  });
}

/**
 * A refunded pack takes back its credits in proportion to the amount refunded, never below 0.
 * Each refunded total is one ledger key (charge id + amount refunded so far), so redelivery
 * changes nothing and a second partial refund takes only the difference.
 */
async function onChargeRefunded(deps: PaymentsDeps, chargeId: string) {
  const provider = deps.provider ?? await paymentProviderFor(deps.config);
  const charge = await provider.getCharge(chargeId);
  if (!charge || !charge.paymentId || charge.amount <= 0) return;
  const session = await findCheckoutSessionByPayment(deps.db, charge.paymentId);
  if (!session || session.kind !== "credits") return;
  const refunded = Math.min(charge.amountRefunded, charge.amount);
  const target = Math.ceil((session.credits * refunded) / charge.amount);
  await deps.db.transaction(async (tx) => {
    const alreadyTaken = -await sumDeltas(tx, session.userId, "payment_refund", `${charge.id}:`);
    await clawBackCredits(tx, {
      userId: session.userId,
      credits: Math.max(0, target - alreadyTaken),
      reason: "payment_refund",
      ref: `${charge.id}:${refunded}`,
    });
  });
}
