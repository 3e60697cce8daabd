/**
 * Checkout: the catalogue views, creating a provider checkout session for a
 * pack or a plan (the promotion code re-validated, the charge exactly the
 * quoted total), and the owner-only status call, which also fulfils a paid
 * session if no webhook has yet.
 */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { grantCredits } from "../credits/credits.service.ts";
import { AppError } from "../http/errors.ts";
import type { UserRow } from "../users/users.repository.ts";
import { isAdmin } from "../users/users.service.ts";
import { CURRENCY, formatCents, PACKAGES, PLANS } from "./catalog.ts";
import { fulfilCheckoutSession } from "./fulfilment.service.ts";
import { paymentProviderFor } from "./payment-provider-for.ts";
import {
  type CreditsCheckoutInput,
  PACKAGE_IDS,
  type PackagesResponse,
  type PaymentStatusResponse,
  PLAN_IDS,
  type PlansResponse,
  type SubscriptionCheckoutInput,
} from "./payments.schemas.ts";
import {
  type CheckoutSessionRow,
  findCheckoutSession,
  findSubscriptionByUser,
  insertCheckoutSession,
  updateCheckoutSession,
  updateSubscription,
} from "./payments.repository.ts";
import { type PurchaseItem, quote } from "./promotions.service.ts";
import type { PaymentProvider, ProviderSession } from "./providers/payment-provider.ts";
import { isLive, upgradeCredits } from "./subscription.service.ts";

export interface PaymentsDeps {
  db: Db;
  config: Config;
  provider?: PaymentProvider;
}

const providerOf = async (deps: PaymentsDeps) => deps.provider ?? await paymentProviderFor(deps.config);

export function packagesView(): PackagesResponse {
  const entries = PACKAGE_IDS.map((id) => {
    const p = PACKAGES[id];
    return [id, {
      credits: p.credits,
      price_display: formatCents(p.priceCents),
      price_cents: p.priceCents,
      currency: CURRENCY,
      // Every package carries the flag (the spec's package has a popular flag), false on all but one.
      popular: !!p.popular,
      ...(p.savingsPercent ? { badge: `${p.savingsPercent}% OFF` } : {}),
    }];
  });
  return { packages: Object.fromEntries(entries) as PackagesResponse["packages"] };
}

export function plansView(): PlansResponse {
  return {
    plans: PLAN_IDS.map((id) => {
      const p = PLANS[id];
      return {
        id,
        name: p.name,
        price: p.priceCents / 100,
        price_cents: p.priceCents,
        price_display: `$${p.priceCents / 100}`,
        currency: CURRENCY,
        credits: p.creditsPerMonth,
        popular: !!p.popular,
        premium: !!p.premium,
        features: p.features,
      };
    }),
  };
}

/** Loopback hosts: a development client served on another local port (outside production only). */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * The origins a checkout may return to: PUBLIC_URL's when it is set, else this app's own as the request
 * reached it (its Host header, which a proxy may pass through from anyone: with PUBLIC_URL set it is not
 * trusted), and outside production a loopback origin (a client run on another local port). Anything else is
 * refused: we never redirect a paying customer to a foreign site.
 */
export function checkedOrigin(
  originUrl: string,
  requestUrl: string,
  config: Pick<Config, "publicUrl" | "production">,
): string {
  const allowed = new Set([new URL(config.publicUrl ?? requestUrl).origin]);
  let parsed: URL;
  try {
    parsed = new URL(originUrl);
  } catch {
    throw new AppError(422, "origin_url must be this site's address", { code: "invalid_origin" });
  }
  const bare = originUrl.replace(/\/+$/, "");
  const local = !config.production && /^https?:$/.test(parsed.protocol) && LOOPBACK.test(parsed.hostname);
  if (!(allowed.has(parsed.origin) || local) || bare !== parsed.origin) {
    throw new AppError(422, "origin_url must be this site's address", { code: "invalid_origin" });
  }
  return parsed.origin;
}

interface CheckoutContext {
  user: UserRow;
  origin: string;
}

async function createCheckout(
  deps: PaymentsDeps,
  ctx: CheckoutContext,
  item: PurchaseItem,
  promotionCode: string | null | undefined,
): Promise<{ checkout_url: string; message: string }> {
  const { db, config } = deps;
  const result = await quote(db, { code: promotionCode, item, userId: ctx.user.id });
  if (!result.ok) throw new AppError(422, result.message, { code: "invalid_promotion_code" });
  const q = result.quote;
  const provider = await providerOf(deps);
  const isPack = item.kind === "credits";
  const credits = isPack ? PACKAGES[item.packageId].credits : PLANS[item.plan].creditsPerMonth;
  const route = isPack ? "credit-purchase" : "subscription";
  const expiresAt = new Date(Date.now() + config.checkoutSessionMs);
  const description = isPack ? `${credits} credits` : `${PLANS[item.plan].name} plan`;
  const known = await findSubscriptionByUser(db, ctx.user.id);
  const customerId = known?.provider === provider.name ? known.providerCustomerId ?? undefined : undefined;
  // No transaction is open across the provider call (PGlite has one connection).
  const checkout = await provider.createCheckout({
    kind: item.kind,
    userId: ctx.user.id,
    email: ctx.user.email,
    customerId,
    description,
    packageId: isPack ? item.packageId : undefined,
    plan: isPack ? undefined : item.plan,
    credits,
    subtotalCents: q.subtotalCents,
    discountCents: q.discountCents,
    totalCents: q.totalCents,
    currency: CURRENCY,
    promotionCode: q.promotion?.code,
    successUrl: `${ctx.origin}/${route}-success?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${ctx.origin}/${route}-cancel`,
    origin: ctx.origin,
    expiresAt,
  });
  await insertCheckoutSession(db, {
    id: checkout.id,
    provider: provider.name,
    userId: ctx.user.id,
    kind: item.kind,
    packageId: isPack ? item.packageId : null,
    plan: isPack ? null : item.plan,
    credits,
    amountSubtotal: q.subtotalCents,
    amountDiscount: q.discountCents,
    amountTotal: q.totalCents,
    currency: CURRENCY,
    promotionCodeId: q.promotion?.id ?? null,
    successUrl: `${ctx.origin}/${route}-success?session_id=${checkout.id}`,
    cancelUrl: `${ctx.origin}/${route}-cancel`,
    expiresAt,
  });
  return { checkout_url: checkout.url, message: "Checkout session created" };
}

export function createCreditsCheckout(
  deps: PaymentsDeps,
  ctx: { user: UserRow; requestUrl: string },
  input: CreditsCheckoutInput,
) {
  const origin = checkedOrigin(input.origin_url, ctx.requestUrl, deps.config);
  if (isAdmin(ctx.user, deps.config)) {
    throw new AppError(409, "Admin accounts have unlimited credits", { code: "admin_unlimited" });
  }
  return createCheckout(
    deps,
    { user: ctx.user, origin },
    { kind: "credits", packageId: input.package_id },
    input.promotion_code,
  );
}

export async function createSubscriptionCheckout(
  deps: PaymentsDeps,
  ctx: { user: UserRow; requestUrl: string },
  input: SubscriptionCheckoutInput,
) {
  const origin = checkedOrigin(input.origin_url, ctx.requestUrl, deps.config);
  const current = await findSubscriptionByUser(deps.db, ctx.user.id);
  if (isLive(current) && current.plan === input.subscription_plan) {
    throw new AppError(409, "You are already subscribed to this plan", { code: "already_subscribed" });
  }
  if (isLive(current) && current.provider === "stripe" && current.providerSubscriptionId) {
    // A Stripe upgrade changes the live subscription (prorated); its invoice.paid grants the credits.
    const plan = PLANS[input.subscription_plan];
    if (input.promotion_code?.trim()) {
      // A code takes money off a new subscription's first month. A plan change is charged by a prorated invoice
      // Stripe builds at once, which no code of ours reaches (a pending update takes no discounts): refused,
      // rather than charged in full after the dialog showed the code applied.
      const checked = await quote(deps.db, {
        code: input.promotion_code,
        item: { kind: "subscription", plan: plan.id },
        userId: ctx.user.id,
      });
      if (!checked.ok) throw new AppError(422, checked.message, { code: "invalid_promotion_code" });
      throw new AppError(
        422,
        "Promotion codes apply to a new subscription's first month, not to a change of plan. Choose the plan without the code.",
        { code: "promotion_not_for_plan_change" },
      );
    }
    const provider = await providerOf(deps);
    const { applied, invoiceId } = await provider.changePlan(
      current.providerSubscriptionId,
      plan.lookupKey,
      plan.name,
      plan.priceCents,
    );
    if (!applied) {
      // Stripe keeps the change pending until its invoice is paid; customer.subscription.updated syncs it then.
      throw new AppError(
        402,
        `Your card could not be charged the prorated difference, so your plan stays ${
          PLANS[current.plan].name
        } for now. The change to ${plan.name} waits for that invoice: update your card and it completes when the invoice is paid.`,
        { code: "plan_change_unpaid" },
      );
    }
    // The upgrade's invoice is paid by now: its credits are granted with the plan, keyed by the invoice, so its
    // invoice.paid (before or after this) grants once. Only here is the plan changed from known for certain.
    // A failed read of it must not answer as if the change had not been made: its invoice.paid grants then.
    const invoice = invoiceId ? await provider.getInvoice(invoiceId).catch(() => null) : null;
    await deps.db.transaction(async (tx) => {
      await updateSubscription(tx, current.id, { plan: plan.id, cancelAtPeriodEnd: false });
      // Only this change's own invoice (Stripe's latest may be an older one when nothing was prorated).
      const own = invoice?.status === "paid" && invoice.billingReason === "subscription_update" &&
        invoice.subscriptionId === current.providerSubscriptionId;
      if (!own) return;
      const credits = upgradeCredits(current.plan, plan.id, invoice.total);
      if (credits > 0) {
        await grantCredits(tx, { userId: ctx.user.id, credits, reason: "subscription", ref: invoice.id });
      }
    });
    return {
      checkout_url: `${origin}/dashboard?tab=subscription`,
      message: plan.priceCents > PLANS[current.plan].priceCents
        ? `Your plan is now ${plan.name}; the prorated difference is charged to your card`
        : `Your plan is now ${plan.name}; your next renewal is charged ${formatCents(plan.priceCents)}`,
      plan_changed: true as const,
    };
  }
  // No subscription, or a sandbox one: a checkout for the new plan replaces it when paid.
  return createCheckout(
    deps,
    { user: ctx.user, origin },
    { kind: "subscription", plan: input.subscription_plan },
    input.promotion_code,
  );
}

function statusView(row: CheckoutSessionRow): PaymentStatusResponse {
  return {
    payment_status: row.paymentStatus,
    status: row.status,
    amount_total: row.amountTotal,
    currency: row.currency,
    metadata: { credits: String(row.credits) },
  };
}

/**
 * GET /api/payments/checkout/status/:id: only the session's owner may read it. The client sends its origin
 * (`origin_url`) too; nothing here redirects, so it is not used.
 */
export async function getCheckoutStatus(
  deps: PaymentsDeps,
  ctx: { userId: string },
  sessionId: string,
): Promise<PaymentStatusResponse> {
  const row = await findCheckoutSession(deps.db, sessionId);
  if (!row || row.userId !== ctx.userId) {
    throw new AppError(404, "Checkout session not found", { code: "checkout_session_not_found" });
  }
  if (row.fulfilledAt) return statusView(row);
  if (row.provider === "stripe") return await syncStripeSession(deps, row);
  if (row.status === "open" && row.expiresAt <= new Date()) {
    await updateCheckoutSession(deps.db, row.id, { status: "expired" });
    return statusView({ ...row, status: "expired" });
  }
  return statusView(row);
}

/**
 * Reads the session's truth from Stripe and fulfils it when paid (the webhook may not have come yet).
 * `known`: the session as a webhook's signed body gives it, used instead of asking Stripe; `fallback`: the
 * body's, used when Stripe answers that it does not know the session.
 */
export async function syncStripeSession(
  deps: PaymentsDeps,
  row: CheckoutSessionRow,
  known?: ProviderSession,
  fallback?: ProviderSession,
): Promise<PaymentStatusResponse> {
  const provider = await providerOf(deps);
  const remote = known ?? await provider.getSession(row.id) ?? fallback;
  if (!remote) throw new AppError(404, "Checkout session not found", { code: "checkout_session_not_found" });
  const paid = remote.status === "complete" &&
    (remote.paymentStatus === "paid" || remote.paymentStatus === "no_payment_required");
  if (paid) {
    const sub = remote.subscriptionId ? await provider.getSubscription(remote.subscriptionId) : null;
    await fulfilCheckoutSession(deps.db, row.id, {
      paymentId: remote.paymentId,
      subscriptionId: remote.subscriptionId,
      customerId: remote.customerId,
      invoiceId: remote.invoiceId,
      periodStart: sub?.currentPeriodStart,
      periodEnd: sub?.currentPeriodEnd,
      subscriptionStatus: sub?.status,
    });
  } else if (remote.status === "expired" && row.status !== "expired") {
    await updateCheckoutSession(deps.db, row.id, { status: "expired" });
  }
  return {
    payment_status: remote.paymentStatus,
    status: remote.status,
    amount_total: remote.amountTotal ?? row.amountTotal,
    currency: remote.currency ?? row.currency,
    metadata: { credits: remote.metadata.credits ?? String(row.credits) },
  };
}
