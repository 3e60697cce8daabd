/**
 * Stripe webhooks. The signature is checked on the raw body; only the events
 * below are acted on. The event's object is signed with it, so it is Stripe's
 * word: a paid session or invoice in the body is acted on as it stands; where
 * the body says less (a session not paid yet, a subscription's changes, which
 * may arrive out of order) the current truth is fetched from Stripe. What is
 * written is written once (fulfilment and grants are keyed, so a redelivered
 * event, or the same session under another event id, changes nothing). An
 * event id is recorded after it was handled, so a failure is retried by
 * Stripe.
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
import {
  type ProviderInvoice,
  type ProviderSubscription,
  WebhookSignatureError,
} from "./providers/payment-provider.ts";
import { activatePeriod, addMonth, planChangedFrom, upgradeCredits } from "./subscription.service.ts";

export const HANDLED_EVENTS = new Set([
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
  // Stripe sends both for a paid invoice; the grant is keyed by the invoice, so either or both grant once.
  "invoice.paid",
  "invoice.payment_succeeded",
  // A renewal that could not be charged: the subscription turns past_due (synced from Stripe).
  "invoice.payment_failed",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "charge.refunded",
]);

/** How long a session that names one of our users but is not in our database is retried (see below). */
const UNKNOWN_SESSION_GRACE_MS = 60 * 60 * 1000;

export type WebhookOutcome = "handled" | "ignored" | "duplicate";

export async function handleStripeWebhook(
  deps: PaymentsDeps,
  rawBody: Uint8Array,
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
  // An event whose body names no object gives nothing to act on (and nothing to ask Stripe about).
  if (!HANDLED_EVENTS.has(event.type) || !event.objectId) return "ignored";
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
        // Ours but not recorded yet (the webhook beat the insert): a 5xx makes Stripe retry. An hour on, the
        // insert is not coming (a database restored from before it, another deployment sharing the account):
        // acknowledged, so Stripe stops retrying for days.
        if (event.createdAt && Date.now() - event.createdAt.getTime() > UNKNOWN_SESSION_GRACE_MS) {
          log.warn("webhook for a checkout session of ours that we never recorded", { id: event.objectId });
          return "ignored";
        }
        throw new AppError(503, "Checkout session not known yet; retry later");
      }
      // A paid session in the signed body is final; otherwise Stripe's current word (an async payment may
      // have succeeded since), or the body's when Stripe no longer knows the session.
      const signed = event.session;
      const paid = signed?.status === "complete" && signed.paymentStatus !== "unpaid";
      await syncStripeSession(deps, row, paid ? signed : undefined, signed);
      break;
    }
    case "invoice.paid":
    case "invoice.payment_succeeded":
      await onInvoicePaid(deps, event.objectId, event.invoice);
      break;
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      await onSubscriptionChanged(deps, event.objectId, event.type, event.subscription);
      break;
    case "invoice.payment_failed": {
      const provider = deps.provider ?? await paymentProviderFor(deps.config);
      const invoice = event.invoice ?? await provider.getInvoice(event.objectId);
      if (invoice?.subscriptionId) {
        await onSubscriptionChanged(deps, invoice.subscriptionId, "customer.subscription.updated");
      }
      break;
    }
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
 * A paid renewal invoice of a subscription (billing reason `subscription_cycle`) grants that period's
 * credits, keyed by the invoice. A plan change's invoice (`subscription_update`) grants what its prorated
 * total bought (upgradeCredits: the plans' difference, in the share of the period charged), only when its
 * total is positive (a downgrade's grants nothing, or moving between plans would mint credits each time).
 * The change made in the app grants the same under the same key when Stripe answers it; whichever comes
 * first grants. Not the subscription's first invoice
 * (`subscription_create`): its period is the Checkout Session's, granted when the session is fulfilled
 * (keyed by the session's invoice, or by the session when Stripe names none, so a grant here under the
 * invoice's id could make two). The signed body is used when it says the invoice is paid.
 */
async function onInvoicePaid(deps: PaymentsDeps, invoiceId: string, signed?: ProviderInvoice) {
  const provider = deps.provider ?? await paymentProviderFor(deps.config);
  const invoice = signed?.status === "paid" ? signed : await provider.getInvoice(invoiceId);
  if (!invoice || invoice.status !== "paid" || !invoice.subscriptionId) return;
  const change = invoice.billingReason === "subscription_update";
  if (!(invoice.billingReason === "subscription_cycle" || (change && invoice.total > 0))) return;
  const sub = await provider.getSubscription(invoice.subscriptionId);
  const known = await findSubscriptionByProviderId(deps.db, invoice.subscriptionId);
  const userId = known?.userId ?? invoice.metadata.user_id ?? sub?.metadata.user_id;
  const plan = planFrom(sub, invoice.metadata) ?? known?.plan ?? null;
  if (!userId || !plan) {
    log.warn("invoice.paid for a subscription we cannot place", { invoiceId });
    return;
  }
  const periodStart = sub?.currentPeriodStart ?? invoice.periodStart ?? new Date();
  // The plan changed from: the invoice's own lines say it; else ours, when this event beat every record of the
  // change (a customer.subscription.updated handled first has already written the new plan).
  const from = planChangedFrom(invoice.prorations, plan) ??
    (known && known.plan !== plan ? known.plan : null);
  await deps.db.transaction((tx) =>
    activatePeriod(tx, {
      userId,
      plan,
      provider: "stripe",
      providerSubscriptionId: invoice.subscriptionId,
      providerCustomerId: sub?.customerId ?? known?.providerCustomerId ?? null,
      periodStart,
      periodEnd: sub?.currentPeriodEnd ?? invoice.periodEnd ?? addMonth(periodStart),
      status: sub?.status ?? "active",
      grantRef: invoice.id,
      ...(change ? { credits: upgradeCredits(from, plan, invoice.total) } : {}),
      cancelAtPeriodEnd: sub?.cancelAtPeriodEnd ?? known?.cancelAtPeriodEnd ?? false,
    })
  );
}

/**
 * Syncs a subscription we know: Stripe's current word (events may arrive out of order), else the signed
 * body's. A deleted subscription is over whatever else is said; one Stripe cannot find and the event does
 * not describe is left as it is (a lookup that failed is not a cancellation).
 */
async function onSubscriptionChanged(
  deps: PaymentsDeps,
  subscriptionId: string,
  type: string,
  signed?: ProviderSubscription,
) {
  const provider = deps.provider ?? await paymentProviderFor(deps.config);
  const known = await findSubscriptionByProviderId(deps.db, subscriptionId);
  if (!known) return;
  if (type === "customer.subscription.deleted") {
    await updateSubscription(deps.db, known.id, { status: "canceled", cancelAtPeriodEnd: false });
    return;
  }
  const sub = await provider.getSubscription(subscriptionId) ?? signed;
  if (!sub) {
    log.warn("customer.subscription.updated for a subscription Stripe does not know", { subscriptionId });
    return;
  }
  await updateSubscription(deps.db, known.id, {
    status: sub.status,
    plan: planFrom(sub, {}) ?? known.plan,
    ...(sub.currentPeriodStart ? { currentPeriodStart: sub.currentPeriodStart } : {}),
    ...(sub.currentPeriodEnd ? { currentPeriodEnd: sub.currentPeriodEnd } : {}),
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
