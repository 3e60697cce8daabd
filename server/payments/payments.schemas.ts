/**
 * The payments API contract. Pure zod, no server imports: the client types
 * its fetchers and renders its cards from these shapes.
 */
import * as z from "zod";

export const PACKAGE_IDS = ["small", "medium", "large"] as const;
export const PLAN_IDS = ["starter", "pro", "creator"] as const;
export type PackageId = (typeof PACKAGE_IDS)[number];
export type PlanId = (typeof PLAN_IDS)[number];

/**
 * The smallest card charge the providers accept (Stripe: 50 cents in USD). A promotion code never takes a
 * purchase below it; the client shows no discount on an offer it would.
 */
export const MINIMUM_CHARGE_CENTS = 50;

/** Codes are short; anything longer is refused before it reaches the database. */
const code = z.string().max(64, "Promotion code is too long").transform((s) => s.trim());
const originUrl = z.string().min(1, "origin_url is required").max(2048, "origin_url is too long");

export const validatePromotionSchema = z.discriminatedUnion("payment_type", [
  z.object({ code, payment_type: z.literal("credits"), package_id: z.enum(PACKAGE_IDS) }),
  z.object({ code, payment_type: z.literal("subscription"), subscription_plan: z.enum(PLAN_IDS) }),
]);

export const creditsCheckoutSchema = z.object({
  payment_type: z.literal("credits").default("credits"),
  package_id: z.enum(PACKAGE_IDS),
  origin_url: originUrl,
  promotion_code: code.optional().nullable(),
});

export const subscriptionCheckoutSchema = z.object({
  payment_type: z.literal("subscription").default("subscription"),
  subscription_plan: z.enum(PLAN_IDS),
  origin_url: originUrl,
  promotion_code: code.optional().nullable(),
});

export const sessionIdSchema = z.string().min(1).max(255).regex(/^[A-Za-z0-9_]+$/, "Invalid session id");

export type CreditsCheckoutInput = z.infer<typeof creditsCheckoutSchema>;
export type SubscriptionCheckoutInput = z.infer<typeof subscriptionCheckoutSchema>;

export interface PackageView {
  credits: number;
  price_display: string;
  price_cents: number;
  currency: string;
  popular: boolean;
  /** "20% OFF" on the best-value bundle. */
  badge?: string;
}

export interface PackagesResponse {
  packages: Record<PackageId, PackageView>;
}

export interface PlanView {
  id: PlanId;
  name: string;
  price: number;
  price_cents: number;
  price_display: string;
  currency: string;
  credits: number;
  popular: boolean;
  premium: boolean;
  features: string[];
  maxGenerationsPerDay?: number;
}

export interface PlansResponse {
  plans: PlanView[];
}

export interface PromotionValidation {
  success: boolean;
  message: string;
  discount_amount: number;
  final_amount: number;
  discount_type: "percentage" | "fixed_amount" | null;
  discount_value: number;
}

export interface CheckoutResponse {
  checkout_url: string;
  message: string;
  /** A live Stripe subscription changed plan in place: `checkout_url` is the dashboard, nothing to pay there. */
  plan_changed?: true;
}

export interface PaymentStatusResponse {
  payment_status: "paid" | "unpaid" | "no_payment_required";
  status: "open" | "complete" | "expired";
  amount_total: number;
  currency: string;
  metadata: { credits: string };
}

export interface SubscriptionSummary {
  plan: "none" | PlanId;
  status: string;
  current_period_end: string | null;
  credits_remaining: number;
  /** Present (true) only for a live plan that ends at current_period_end instead of renewing (cancelled). */
  cancel_at_period_end?: true;
}
