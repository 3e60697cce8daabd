/**
 * Subscriptions: the summary the dashboard shows, cancelling (at period end,
 * or at once when an account is deleted), and renewals. A renewal grants the
 * plan's monthly credits once per period: the ledger key is the invoice
 * (Stripe) or the period's start (sandbox), written in the same transaction.
 */
import type { Db, DbOrTx } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { readBalance } from "../credits/credits.repository.ts";
import { grantCredits } from "../credits/credits.service.ts";
import { AppError } from "../http/errors.ts";
import { log } from "../log.ts";
import type { UserRow } from "../users/users.repository.ts";
import { shownCredits } from "../users/users.service.ts";
import { PLANS } from "./catalog.ts";
import { paymentProviderFor } from "./payment-provider-for.ts";
import { PLAN_IDS, type PlanId, type SubscriptionSummary } from "./payments.schemas.ts";
import {
  findSubscriptionByUser,
  lockSubscriptionByUser,
  type SubscriptionRow,
  updateSubscription,
  upsertSubscription,
} from "./payments.repository.ts";
import type { PaymentProvider } from "./providers/payment-provider.ts";

export interface SubscriptionDeps {
  db: Db;
  config: Config;
  /** Defaults to the provider the configuration names. */
  provider?: PaymentProvider;
}

/** Statuses in which the plan's benefits apply. */
const LIVE_STATUSES = new Set(["active", "trialing", "past_due"]);

export function isLive(sub: Pick<SubscriptionRow, "status"> | null): sub is SubscriptionRow {
  return !!sub && LIVE_STATUSES.has(sub.status);
}

/** The plan a live subscription is on, `none`/`inactive` otherwise; credits are the user's balance. */
export async function getSubscriptionSummary(db: DbOrTx, userId: string): Promise<SubscriptionSummary> {
  const [sub, balance] = await Promise.all([findSubscriptionByUser(db, userId), readBalance(db, userId)]);
  const credits = balance ?? 0;
  if (!isLive(sub)) {
    return { plan: "none", status: "inactive", current_period_end: null, credits_remaining: credits };
  }
  return {
    plan: sub.plan,
    status: sub.status,
    current_period_end: sub.currentPeriodEnd.toISOString(),
    credits_remaining: credits,
    // Only when cancelled: the summary of a plan that renews keeps the four fields clients know.
    ...(sub.cancelAtPeriodEnd ? { cancel_at_period_end: true } : {}),
  };
}

/** GET /api/users/subscription: the summary, its credits as every balance the API shows (see shownCredits). */
export async function subscriptionView(
  deps: { db: DbOrTx; config: Pick<Config, "adminEmails"> },
  user: Pick<UserRow, "id" | "email" | "role" | "isVerified">,
): Promise<SubscriptionSummary> {
  const summary = await getSubscriptionSummary(deps.db, user.id);
  return { ...summary, credits_remaining: shownCredits(user, summary.credits_remaining, deps.config) };
}

/**
 * Ends the user's subscription now, at the provider and here (account deletion).
 * Idempotent: nothing to do when there is none or it already ended.
 */
export async function cancelSubscriptionsForUser(deps: SubscriptionDeps, userId: string): Promise<void> {
  const sub = await findSubscriptionByUser(deps.db, userId);
  if (!sub || sub.status === "canceled") return;
  if (sub.providerSubscriptionId && sub.provider === "stripe") {
    const provider = deps.provider ?? await paymentProviderFor(deps.config);
    await provider.cancelSubscription(sub.providerSubscriptionId, { atPeriodEnd: false });
  }
  await updateSubscription(deps.db, sub.id, { status: "canceled", cancelAtPeriodEnd: false });
}

/** Cancel at period end: the plan stays until current_period_end, then no renewal. */
export async function cancelAtPeriodEnd(
  deps: SubscriptionDeps,
  userId: string,
): Promise<SubscriptionSummary> {
  const sub = await findSubscriptionByUser(deps.db, userId);
  if (!isLive(sub)) throw new AppError(404, "You have no active subscription", { code: "no_subscription" });
  if (!sub.cancelAtPeriodEnd) {
    if (sub.providerSubscriptionId && sub.provider === "stripe") {
      const provider = deps.provider ?? await paymentProviderFor(deps.config);
      await provider.cancelSubscription(sub.providerSubscriptionId, { atPeriodEnd: true });
    }
    await updateSubscription(deps.db, sub.id, { cancelAtPeriodEnd: true });
  }
  return getSubscriptionSummary(deps.db, userId);
}

/**
 * The plan a proration invoice moved from, read off its lines: the new plan's line is its monthly price for
 * the share of the period left, so that share is `charged / price`, and the old plan's monthly price is
 * `credited / share`. Null when the invoice has no such lines or the price is none of ours.
 */
export function planChangedFrom(
  prorations: { charged: number; credited: number } | null,
  to: PlanId,
): PlanId | null {
  if (!prorations) return null;
  const price = (prorations.credited * PLANS[to].priceCents) / prorations.charged;
  // Stripe rounds each line to the cent: a cent or two either way on a few days' worth.
  const found = PLAN_IDS.find((id) =>
    id !== to && Math.abs(PLANS[id].priceCents - price) <= 2 + price * 0.01
  );
  return found ?? null;
}

/**
 * The credits a plan change's prorated invoice buys: the difference between the plans' monthly credits, in the
 * share of the period the invoice charged for (its total over the difference in monthly price), so an upgrade
 * on the period's last day buys a day's worth, not a month's. With the old plan unknown (neither the invoice's
 * lines nor our record say it), the new plan's credits at its own price per credit.
 */
export function upgradeCredits(from: PlanId | null, to: PlanId, totalCents: number): number {
  const next = PLANS[to];
  const old = from ? PLANS[from] : null;
  if (totalCents <= 0) return 0;
  if (old && next.priceCents > old.priceCents && next.creditsPerMonth > old.creditsPerMonth) {
    const share = Math.min(1, totalCents / (next.priceCents - old.priceCents));
    return Math.round(share * (next.creditsPerMonth - old.creditsPerMonth));
  }
  return Math.round(Math.min(1, totalCents / next.priceCents) * next.creditsPerMonth);
}

export function addMonth(date: Date): Date {
  const next = new Date(date);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

/**
 * Activates (or replaces) the user's plan for one period and grants its credits, inside the
 * caller's transaction. `grantRef` is the period's ledger key: a second call with the same key
 * changes the subscription row but grants nothing.
 */
export async function activatePeriod(
  tx: DbOrTx,
  input: {
    userId: string;
    plan: PlanId;
    provider: "sandbox" | "stripe";
    providerSubscriptionId: string | null;
    providerCustomerId: string | null;
    periodStart: Date;
    periodEnd: Date;
    status?: string;
    grantRef: string;
    /** The credits this period's grant gives; default the plan's monthly credits. */
    credits?: number;
    /** The provider's word on a cancellation at period end (a late renewal must not undo one). */
    cancelAtPeriodEnd?: boolean;
  },
): Promise<{ granted: boolean }> {
  await upsertSubscription(tx, {
    userId: input.userId,
    plan: input.plan,
    status: input.status ?? "active",
    provider: input.provider,
    providerSubscriptionId: input.providerSubscriptionId,
    providerCustomerId: input.providerCustomerId,
    currentPeriodStart: input.periodStart,
    currentPeriodEnd: input.periodEnd,
    cancelAtPeriodEnd: input.cancelAtPeriodEnd ?? false,
  });
  const credits = input.credits ?? PLANS[input.plan].creditsPerMonth;
  if (credits <= 0) return { granted: false };
  const grant = await grantCredits(tx, {
    userId: input.userId,
    credits,
    reason: "subscription",
    ref: input.grantRef,
  });
  return { granted: grant.applied };
}

/**
 * The sandbox's stand-in for a month passing: the live sandbox subscription moves to its next
 * period and grants the plan's credits, or ends if it was cancelled at period end.
 */
export async function renewSandboxSubscription(
  db: Db,
  userId: string,
): Promise<{ outcome: "renewed" | "ended"; periodEnd: Date; plan: PlanId; credits: number }> {
  return await db.transaction(async (tx) => {
    const sub = await lockSubscriptionByUser(tx, userId);
    if (!isLive(sub)) {
      throw new AppError(404, "This user has no active subscription", { code: "no_subscription" });
    }
    if (sub.provider !== "sandbox") {
      throw new AppError(409, "Only sandbox subscriptions renew on demand; Stripe renews its own");
    }
    if (sub.cancelAtPeriodEnd) {
      await updateSubscription(tx, sub.id, { status: "canceled" });
      return { outcome: "ended" as const, periodEnd: sub.currentPeriodEnd, plan: sub.plan, credits: 0 };
    }
    const periodStart = sub.currentPeriodEnd;
    const periodEnd = addMonth(periodStart);
    await updateSubscription(tx, sub.id, { currentPeriodStart: periodStart, currentPeriodEnd: periodEnd });
    const grant = await grantCredits(tx, {
      userId,
      credits: PLANS[sub.plan].creditsPerMonth,
      reason: "subscription",
      ref: `${sub.id}:${periodStart.toISOString()}`,
    });
    if (!grant.applied) log.warn("sandbox renewal granted nothing", { userId, why: grant.why });
    return {
      outcome: "renewed" as const,
      periodEnd,
      plan: sub.plan,
      credits: PLANS[sub.plan].creditsPerMonth,
    };
  });
}
