/**
 * Fulfilment: what a paid checkout session gives (a pack's credits, or a plan
 * activated with its first month's credits) and the promotion code's
 * redemption, in ONE transaction that starts by locking the session row.
 * Whoever arrives first (the status call, the webhook, a redelivery, another
 * event id for the same session) fulfils it; everyone after finds it done.
 * The ledger keys (`purchase` + session id, `subscription` + invoice id) make
 * a second grant impossible even without the lock.
 */
import type { Db } from "../../db/client.ts";
import { grantCredits } from "../credits/credits.service.ts";
import { log } from "../log.ts";
import type { PlanId } from "./payments.schemas.ts";
import {
  deleteRedemptionOfSession,
  insertRedemption,
  lockCheckoutSession,
  takeRedemption,
  updateCheckoutSession,
} from "./payments.repository.ts";
import { activatePeriod, addMonth } from "./subscription.service.ts";

export interface FulfilmentFacts {
  /** Stripe payment intent (refunds find the purchase by it). */
  paymentId?: string | null;
  subscriptionId?: string | null;
  customerId?: string | null;
  /** The first invoice of a subscription: its id is the period's ledger key, shared with invoice.paid. */
  invoiceId?: string | null;
  periodStart?: Date | null;
  periodEnd?: Date | null;
  /**
   * The subscription's status at the provider. A subscription already ended there (its
   * `customer.subscription.deleted` came before this session's event) is recorded as ended, not active;
   * the paid first period's credits are still granted.
   */
  subscriptionStatus?: string | null;
  now?: Date;
}

export type FulfilmentOutcome = "fulfilled" | "already_fulfilled" | "missing";

export async function fulfilCheckoutSession(
  db: Db,
  sessionId: string,
  facts: FulfilmentFacts = {},
): Promise<FulfilmentOutcome> {
  return await db.transaction(async (tx) => {
    const session = await lockCheckoutSession(tx, sessionId);
    if (!session) return "missing";
    if (session.fulfilledAt) return "already_fulfilled";
    const now = facts.now ?? new Date();

    if (session.kind === "subscription") {
      const periodStart = facts.periodStart ?? now;
      await activatePeriod(tx, {
        userId: session.userId,
        plan: session.plan as PlanId,
        provider: session.provider,
        providerSubscriptionId: facts.subscriptionId ?? null,
        providerCustomerId: facts.customerId ?? null,
        periodStart,
        periodEnd: facts.periodEnd ?? addMonth(periodStart),
        status: firstPeriodStatus(facts.subscriptionStatus),
        grantRef: facts.invoiceId ?? session.id,
      });
    } else {
      await grantCredits(tx, {
        userId: session.userId,
        credits: session.credits,
        reason: "purchase",
        ref: session.id,
      });
    }

    if (session.promotionCodeId) {
      // Once per user (unique index), and never past max_redemptions (conditional counter).
      const recorded = await insertRedemption(tx, {
        promotionCodeId: session.promotionCodeId,
        userId: session.userId,
        checkoutSessionId: session.id,
      });
      if (recorded && !await takeRedemption(tx, session.promotionCodeId)) {
        // Used up by another purchase paid first. This one was charged the discounted price,
        // so it keeps what it paid for; the code's count stays at its limit.
        await deleteRedemptionOfSession(tx, session.id);
        log.warn("promotion code used up before this payment was fulfilled", { sessionId: session.id });
      }
    }

    await updateCheckoutSession(tx, session.id, {
      status: "complete",
      paymentStatus: "paid",
      fulfilledAt: now,
      declineMessage: null,
      providerPaymentId: facts.paymentId ?? session.providerPaymentId,
    });
    return "fulfilled";
  });
}

/**
 * A paid session's subscription is active, unless the provider says it has moved on since (ended, past due,
 * paused). `incomplete` is the provider catching up with the payment just made, so it reads as active.
 */
function firstPeriodStatus(status: string | null | undefined): string {
  return !status || status === "incomplete" ? "active" : status;
}
