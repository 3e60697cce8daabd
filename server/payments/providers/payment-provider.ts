/**
 * One interface over the card payment providers: the offline sandbox (the
 * default) and Stripe. Services talk only to this; only providers/stripe.ts
 * imports the Stripe SDK.
 */

export interface CheckoutRequest {
  kind: "credits" | "subscription";
  userId: string;
  email: string;
  /**
   * The provider's customer this user already is (from an earlier subscription), so a returning buyer is one
   * customer with their saved details, not a new one per checkout. Unset: the provider makes one from `email`.
   */
  customerId?: string;
  /** What the customer buys, e.g. "100 credits" or "PRO plan". */
  description: string;
  packageId?: string;
  plan?: string;
  credits: number;
  subtotalCents: number;
  discountCents: number;
  /** Exactly what the customer is charged (the first period's charge for a plan). */
  totalCents: number;
  currency: string;
  promotionCode?: string;
  /** Contains the literal `{CHECKOUT_SESSION_ID}`, which the provider replaces. */
  successUrl: string;
  cancelUrl: string;
  /** The app's own origin (the sandbox serves its checkout page there). */
  origin: string;
  expiresAt: Date;
}

export interface ProviderCheckout {
  id: string;
  url: string;
}

/** The provider's truth about one checkout session. */
export interface ProviderSession {
  id: string;
  status: "open" | "complete" | "expired";
  paymentStatus: "paid" | "unpaid" | "no_payment_required";
  amountTotal: number | null;
  currency: string | null;
  metadata: Record<string, string>;
  paymentId: string | null;
  subscriptionId: string | null;
  customerId: string | null;
  invoiceId: string | null;
}

export interface ProviderSubscription {
  id: string;
  status: string;
  customerId: string | null;
  /** null when the provider's answer names no period. */
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  /** The plan's Stripe Price lookup key, when the price has one. */
  lookupKey: string | null;
  metadata: Record<string, string>;
}

export interface ProviderInvoice {
  id: string;
  status: string | null;
  billingReason: string | null;
  /** Minor units actually charged (0 for an invoice a proration credit paid). */
  amountPaid: number;
  /**
   * The invoice's total in minor units, however it was paid (card or the customer's balance): for a plan
   * change, the prorated difference (negative for a downgrade that credits the unused time).
   */
  total: number;
  /**
   * A plan change's proration invoice, from its lines: what the new plan's rest of the period costs
   * (`charged`) and what the old plan's unused rest is worth (`credited`, positive). Null on an invoice
   * without both (a renewal, a first invoice).
   */
  prorations: { charged: number; credited: number } | null;
  subscriptionId: string | null;
  metadata: Record<string, string>;
  periodStart: Date | null;
  periodEnd: Date | null;
}

export interface ProviderCharge {
  id: string;
  paymentId: string | null;
  amount: number;
  amountRefunded: number;
}

/** A verified webhook event, reduced to what fulfilment needs. */
export interface ProviderEvent {
  id: string;
  type: string;
  objectId: string;
  /** The object's metadata (our checkouts carry user_id). */
  metadata: Record<string, string>;
  /** When the provider created the event (null when it does not say). */
  createdAt: Date | null;
  /** The event's object, signed with it, when it is one of these and carries the fields they read. */
  session?: ProviderSession;
  invoice?: ProviderInvoice;
  subscription?: ProviderSubscription;
}

export interface PaymentProvider {
  readonly name: "sandbox" | "stripe";
  createCheckout(req: CheckoutRequest): Promise<ProviderCheckout>;
  /** null: the provider keeps no state of its own (the sandbox: our database is the truth). */
  getSession(id: string): Promise<ProviderSession | null>;
  getSubscription(id: string): Promise<ProviderSubscription | null>;
  getInvoice(id: string): Promise<ProviderInvoice | null>;
  getCharge(id: string): Promise<ProviderCharge | null>;
  /** Ends a subscription now (account deletion) or at the end of the paid period. */
  cancelSubscription(id: string, opts: { atPeriodEnd: boolean }): Promise<void>;
  /**
   * Moves a live subscription to another plan. A dearer plan is charged the prorated difference at once
   * (`invoiceId`: that invoice); `applied` false when that charge did not go through, so the subscription
   * stays on its plan until it does. A cheaper plan applies at once with nothing credited back (its
   * credits were granted with the dearer plan), so no invoice.
   */
  changePlan(
    id: string,
    lookupKey: string,
    planName: string,
    priceCents: number,
  ): Promise<{ applied: boolean; invoiceId?: string | null }>;
  /** Verifies a webhook's signature on the raw body; throws WebhookSignatureError. */
  verifyWebhook(rawBody: Uint8Array, signature: string | undefined): Promise<ProviderEvent>;
}

export class WebhookSignatureError extends Error {}

/**
 * The payment provider answered an error (a refused request, a bad key, its rate limit) or could not be
 * reached. Its message is for the log, not for users.
 */
export class PaymentProviderError extends Error {
  constructor(message: string, readonly status: number | null, readonly code: string | null) {
    super(message);
  }
}
