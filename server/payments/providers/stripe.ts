/**
 * Stripe through its official SDK: Checkout Sessions (payment mode for credit
 * packs, subscription mode for plans, both with the price inline), session,
 * subscription, invoice and charge retrieval, plan changes with proration
 * (whose Prices are found again by lookup key or created once), and webhook
 * signature checks on the raw body. The only file that imports `stripe`.
 * STRIPE_API_BASE points it elsewhere (tests run it against a local fake that
 * speaks Stripe's wire format).
 */
import { Buffer } from "node:buffer";
import Stripe from "stripe";
import { log } from "../../log.ts";
import type {
  CheckoutRequest,
  PaymentProvider,
  ProviderCharge,
  ProviderEvent,
  ProviderInvoice,
  ProviderSession,
  ProviderSubscription,
} from "./payment-provider.ts";
import { PaymentProviderError, WebhookSignatureError } from "./payment-provider.ts";

export interface StripeOptions {
  secretKey: string;
  /** Unset (outside production only): every webhook is refused as unverifiable. */
  webhookSecret?: string;
  /** e.g. http://127.0.0.1:12111; default https://api.stripe.com */
  apiBase?: string;
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === "string" ? v : v.id;

const fromUnix = (s: number | null | undefined): Date | null => (s == null ? null : new Date(s * 1000));

function isMissing(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeError && error.statusCode === 404;
}

/** Stripe's own errors (its `{"error": {...}}` answers, a connection failure) as PaymentProviderError. */
function asProviderError(error: unknown): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  return new PaymentProviderError(
    `Stripe: ${error.message}`,
    error.statusCode ?? null,
    error.code ?? error.type,
  );
}

async function surfaced<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asProviderError(error);
  }
}

function sessionFrom(s: Stripe.Checkout.Session): ProviderSession {
  return {
    id: s.id,
    status: s.status === "complete" ? "complete" : s.status === "expired" ? "expired" : "open",
    paymentStatus: s.payment_status === "paid"
      ? "paid"
      : s.payment_status === "no_payment_required"
      ? "no_payment_required"
      : "unpaid",
    amountTotal: s.amount_total ?? null,
    currency: s.currency ?? null,
    metadata: (s.metadata ?? {}) as Record<string, string>,
    paymentId: idOf(s.payment_intent),
    subscriptionId: idOf(s.subscription),
    customerId: idOf(s.customer),
    invoiceId: idOf(s.invoice),
  };
}

function subscriptionFrom(s: Stripe.Subscription): ProviderSubscription {
  const item = s.items?.data?.[0];
  // Since API version 2025-03-31 the period is on the subscription's items; before, on the subscription
  // itself, as older API versions and fakes still answer.
  const legacy = s as unknown as { current_period_start?: number | null; current_period_end?: number | null };
  return {
    id: s.id,
    status: s.status,
    customerId: idOf(s.customer),
    currentPeriodStart: fromUnix(item?.current_period_start ?? legacy.current_period_start),
    currentPeriodEnd: fromUnix(item?.current_period_end ?? legacy.current_period_end),
    cancelAtPeriodEnd: s.cancel_at_period_end ?? false,
    lookupKey: item?.price?.lookup_key ?? null,
    metadata: (s.metadata ?? {}) as Record<string, string>,
  };
}

function invoiceFrom(inv: Stripe.Invoice): ProviderInvoice {
  // Since API version 2025-03-31 the subscription is under parent.subscription_details; before, at the
  // top (`subscription`, `subscription_details`), as older API versions and fakes still answer.
  const legacy = inv as unknown as {
    subscription?: string | { id: string } | null;
    subscription_details?: { metadata?: Record<string, string> | null } | null;
  };
  const details = inv.parent?.subscription_details ?? null;
  const lines = inv.lines?.data ?? [];
  const line = lines[0];
  // A plan change's invoice holds the old plan's unused time as a negative line and the new plan's rest of
  // the period as a positive one.
  const charged = lines.reduce((sum, l) => sum + Math.max(0, l.amount ?? 0), 0);
  const credited = lines.reduce((sum, l) => sum + Math.max(0, -(l.amount ?? 0)), 0);
  return {
    id: inv.id!,
    status: inv.status ?? null,
    billingReason: inv.billing_reason ?? null,
    amountPaid: inv.amount_paid ?? 0,
    total: inv.total ?? inv.amount_paid ?? 0,
    prorations: charged > 0 && credited > 0 ? { charged, credited } : null,
    subscriptionId: idOf(details?.subscription as string | { id: string } | null | undefined) ??
      idOf(legacy.subscription),
    metadata: (details?.metadata ?? legacy.subscription_details?.metadata ?? {}) as Record<string, string>,
    periodStart: fromUnix(line?.period?.start ?? inv.period_start),
    periodEnd: fromUnix(line?.period?.end ?? inv.period_end),
  };
}

/** Stripe's own tolerance: a signature more than five minutes from now, either way, is refused. */
const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The signed timestamp (`t=`) of a Stripe-Signature header, or null when it has none. */
function signedAt(header: string): number | null {
  for (const part of header.split(",")) {
    const [key, value] = part.split("=", 2);
    if (key?.trim() === "t" && /^\d+$/.test(value?.trim() ?? "")) return Number(value.trim());
  }
  return null;
}

/**
 * The event's object as the provider-neutral view fulfilment reads. The object is signed with the event, so
 * it is the provider's word at the time of the event; an object without the fields read here gives nothing.
 */
function objectOf(
  object: Record<string, unknown>,
): Pick<ProviderEvent, "session" | "invoice" | "subscription"> {
  if (object.object === "checkout.session" && typeof object.payment_status === "string") {
    return { session: sessionFrom(object as unknown as Stripe.Checkout.Session) };
  }
  if (object.object === "invoice" && typeof object.status === "string") {
    return { invoice: invoiceFrom(object as unknown as Stripe.Invoice) };
  }
  if (object.object === "subscription" && typeof object.status === "string") {
    return { subscription: subscriptionFrom(object as unknown as Stripe.Subscription) };
  }
  return {};
}

/** Stripe's longest coupon name (its API refuses a longer one); our promotion codes reach 64 characters. */
const COUPON_NAME_MAX = 40;

export function createStripeProvider(opts: StripeOptions): PaymentProvider {
  const base = opts.apiBase ? new URL(opts.apiBase) : null;
  const stripe = new Stripe(opts.secretKey, {
    ...(base
      ? {
        host: base.hostname,
        port: base.port || (base.protocol === "http:" ? "80" : "443"),
        protocol: base.protocol === "http:" ? "http" : "https",
      }
      : {}),
    // The SDK's own default: a connection failure, a 409, 429 or 5xx is retried twice with backoff, under the
    // Idempotency-Key it sends with every POST, so a retried checkout is created once.
    maxNetworkRetries: 2,
    telemetry: false,
    timeout: 20_000,
  });

  /** The plan's recurring Price, found by lookup key or created once with it. */
  async function priceFor(lookupKey: string, planName: string, priceCents: number): Promise<string> {
    const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
    const existing = found.data.find((p) => p.unit_amount === priceCents);
    if (existing) return existing.id;
    const created = await stripe.prices.create({
      currency: "usd",
      unit_amount: priceCents,
      recurring: { interval: "month" },
      lookup_key: lookupKey,
      // A price change moves the key to the new Price.
      transfer_lookup_key: true,
      product_data: { name: `StyleTwin ${planName}` },
    });
    return created.id;
  }

  async function retrieveOrNull<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      return await call();
    } catch (error) {
      if (isMissing(error)) return null;
      throw asProviderError(error);
    }
  }

  /**
   * A Checkout Session as the user's existing customer when we know one (Stripe takes `customer` or
   * `customer_email`, never both), else by email. A customer deleted in Stripe's dashboard since is asked for
   * again by email rather than failing the purchase.
   */
  async function createSession(
    req: CheckoutRequest,
    params: Stripe.Checkout.SessionCreateParams,
  ): Promise<Stripe.Checkout.Session> {
    if (req.customerId) {
      try {
        return await stripe.checkout.sessions.create({ ...params, customer: req.customerId });
      } catch (error) {
        const gone = error instanceof Stripe.errors.StripeError && error.code === "resource_missing" &&
          error.param === "customer";
        if (!gone) throw error;
        log.warn("the user's Stripe customer is gone; checking out by email", { customer: req.customerId });
      }
    }
    return await stripe.checkout.sessions.create({ ...params, customer_email: req.email });
  }

  async function createCheckout(req: CheckoutRequest): Promise<{ id: string; url: string }> {
    const metadata: Record<string, string> = {
      user_id: req.userId,
      kind: req.kind,
      credits: String(req.credits),
      ...(req.packageId ? { package_id: req.packageId } : {}),
      ...(req.plan ? { plan: req.plan } : {}),
      ...(req.promotionCode ? { promotion_code: req.promotionCode } : {}),
    };
    const common = {
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
      client_reference_id: req.userId,
      metadata,
      // Stripe accepts 30 minutes to 24 hours; a shorter sandbox-style expiry is lifted to its minimum.
      expires_at: Math.min(
        Math.max(Math.floor(req.expiresAt.getTime() / 1000), Math.floor(Date.now() / 1000) + 31 * 60),
        Math.floor(Date.now() / 1000) + 23 * 3600,
      ),
    };
    if (req.kind === "credits") {
      // The discounted amount is the line's price: the charge is exactly the quoted total.
      const session = await createSession(req, {
        ...common,
        mode: "payment",
        line_items: [{
          quantity: 1,
          price_data: {
            currency: req.currency,
            unit_amount: req.totalCents,
            product_data: { name: req.description },
          },
        }],
        payment_intent_data: { metadata },
      });
      return { id: session.id, url: session.url ?? "" };
    }
    let discounts: { coupon: string }[] | undefined;
    if (req.discountCents > 0) {
      // Our promotion code, applied by Stripe as a one-off amount on the first invoice.
      const coupon = await stripe.coupons.create({
        amount_off: req.discountCents,
        currency: req.currency,
        duration: "once",
        max_redemptions: 1,
        name: req.promotionCode?.slice(0, COUPON_NAME_MAX),
      });
      discounts = [{ coupon: coupon.id }];
    }
    const session = await createSession(req, {
      ...common,
      mode: "subscription",
      // The plan's monthly price inline (only the Checkout Session is created); the plan is named in
      // subscription_data.metadata, which the subscription and its invoices carry.
      line_items: [{
        quantity: 1,
        price_data: {
          currency: req.currency,
          unit_amount: req.subtotalCents,
          recurring: { interval: "month" },
          product_data: { name: req.description },
        },
      }],
      subscription_data: { metadata },
      ...(discounts ? { discounts } : {}),
    });
    return { id: session.id, url: session.url ?? "" };
  }

  return {
    name: "stripe",

    createCheckout: (req: CheckoutRequest) => surfaced(() => createCheckout(req)),

    async getSession(id: string): Promise<ProviderSession | null> {
      const s = await retrieveOrNull(() => stripe.checkout.sessions.retrieve(id));
      return s && sessionFrom(s);
    },

    async getSubscription(id: string): Promise<ProviderSubscription | null> {
      const s = await retrieveOrNull(() => stripe.subscriptions.retrieve(id));
      return s && subscriptionFrom(s);
    },

    async getInvoice(id: string): Promise<ProviderInvoice | null> {
      const inv = await retrieveOrNull(() => stripe.invoices.retrieve(id));
      return inv && invoiceFrom(inv);
    },

    async getCharge(id: string): Promise<ProviderCharge | null> {
      const ch = await retrieveOrNull(() => stripe.charges.retrieve(id));
      if (!ch) return null;
      return {
        id: ch.id,
        paymentId: idOf(ch.payment_intent),
        amount: ch.amount,
        amountRefunded: ch.amount_refunded,
      };
    },

    async cancelSubscription(id, { atPeriodEnd }) {
      try {
        if (atPeriodEnd) await stripe.subscriptions.update(id, { cancel_at_period_end: true });
        else await stripe.subscriptions.cancel(id);
      } catch (error) {
        // Already gone at Stripe: the goal is reached.
        if (!isMissing(error)) throw asProviderError(error);
      }
    },

    changePlan: (id, lookupKey, planName, priceCents) =>
      surfaced(async () => {
        const sub = await stripe.subscriptions.retrieve(id);
        const price = await priceFor(lookupKey, planName, priceCents);
        // A dearer plan: the prorated difference invoiced and charged at once. A cheaper one: no proration (a
        // credit for the dearer plan's unused time, kept with the credits it granted, would fund the next
        // upgrade: upgrading and downgrading in turn would mint credits for nothing).
        const upgrade = priceCents > (sub.items.data[0].price?.unit_amount ?? 0);
        // pending_if_incomplete: the new price applies only once its prorated invoice is paid (a declined card
        // leaves the subscription on its plan, the change pending, instead of a plan nobody paid for). Such an
        // update takes only the pending-update parameters: a cancellation at period end is lifted after it.
        const updated = await stripe.subscriptions.update(id, {
          items: [{ id: sub.items.data[0].id, price }],
          proration_behavior: upgrade ? "always_invoice" : "none",
          payment_behavior: "pending_if_incomplete",
        });
        if (updated.pending_update) return { applied: false };
        const invoiceId = upgrade ? idOf(updated.latest_invoice) : null;
        if (updated.cancel_at_period_end) {
          // The change is paid and applied: a failure here must not answer as if it were not (the webhook's
          // subscription still shows the cancellation; the plan itself is right).
          await stripe.subscriptions.update(id, { cancel_at_period_end: false }).catch((error) =>
            log.warn("plan changed, but its cancellation at period end could not be lifted", {
              subscription: id,
              error: error instanceof Error ? error.message : String(error),
            })
          );
        }
        return { applied: true, invoiceId };
      }),

    async verifyWebhook(rawBody, signature) {
      if (!signature) throw new WebhookSignatureError("No stripe-signature header value was provided.");
      if (!opts.webhookSecret) throw new WebhookSignatureError("STRIPE_WEBHOOK_SECRET is not set");
      // The SDK refuses an old timestamp only; one from the future is as suspect (a replay prepared ahead).
      const t = signedAt(signature);
      if (t !== null && t - Date.now() / 1000 > WEBHOOK_TOLERANCE_SECONDS) {
        throw new WebhookSignatureError("Timestamp outside the tolerance zone");
      }
      let event: Stripe.Event;
      try {
        // The async variant: WebCrypto, the only one that works under Deno. The exact bytes received.
        event = await stripe.webhooks.constructEventAsync(
          Buffer.from(rawBody),
          signature,
          opts.webhookSecret!,
          WEBHOOK_TOLERANCE_SECONDS,
        );
      } catch (error) {
        throw new WebhookSignatureError(error instanceof Error ? error.message : "Invalid signature");
      }
      const raw = (event as { data?: { object?: unknown } }).data?.object;
      const object = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
      const metadata = object.metadata && typeof object.metadata === "object" ? object.metadata : {};
      return {
        id: event.id,
        type: event.type,
        objectId: typeof object.id === "string" ? object.id : "",
        metadata: metadata as Record<string, string>,
        createdAt: fromUnix(typeof event.created === "number" ? event.created : null),
        ...objectOf(object),
      };
    },
  };
}
