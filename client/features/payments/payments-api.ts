/**
 * The store's calls: packages, plans, promotion validation, checkout and the
 * payment status, through the typed client (api/typed.ts): paths, bodies and
 * answers come from the route modules; the schema module's types name them.
 */
import { useQuery } from "@tanstack/react-query";
import { tokens } from "../../api/client.ts";
import { ApiError } from "../../api/http.ts";
import { ok, paymentsApi, publicPaymentsApi } from "../../api/typed.ts";
import {
  type CheckoutResponse,
  MINIMUM_CHARGE_CENTS,
  type PackageId,
  type PackagesResponse,
  type PaymentStatusResponse,
  type PlanId,
  type PlansResponse,
  type PromotionValidation,
  type SubscriptionSummary,
} from "../../../server/payments/payments.schemas.ts";

export type {
  PackageId,
  PackageView,
  PaymentStatusResponse,
  PlanId,
  PlanView,
  PromotionValidation,
} from "../../../server/payments/payments.schemas.ts";

export const PACKAGES_KEY = ["credit-packages"] as const;
export const PLANS_KEY = ["subscription-plans"] as const;

export function fetchPackages(): Promise<PackagesResponse> {
  return ok(publicPaymentsApi.credits.packages.$get());
}

export function fetchPlans(): Promise<PlansResponse> {
  return ok(publicPaymentsApi.payments.plans.$get());
}

/** The offers are the same for every visitor (kept across accounts) and change rarely. */
const OFFERS = { staleTime: 5 * 60_000, meta: { shared: true } } as const;

export function usePackages(enabled = true) {
  return useQuery({ queryKey: PACKAGES_KEY, queryFn: fetchPackages, enabled, ...OFFERS });
}

/** The plans list (the dashboard's Available Plans grid renders from it too). */
export function usePlans(enabled = true) {
  return useQuery({ queryKey: PLANS_KEY, queryFn: fetchPlans, enabled, ...OFFERS });
}

export type PromotionTarget =
  | { payment_type: "credits"; package_id: PackageId }
  | { payment_type: "subscription"; subscription_plan: PlanId };

export function validatePromotion(code: string, target: PromotionTarget): Promise<PromotionValidation> {
  return ok(paymentsApi.payments["promotion-code"].validate.$post({ json: { code, ...target } }));
}

export function hasAccessToken(): boolean {
  return !!tokens.getAccess();
}

/** Creates a checkout session; the caller redirects to `checkout_url`. Throws ApiError with the server's detail. */
export function startCheckout(
  body:
    | { payment_type: "credits"; package_id: PackageId; promotion_code?: string }
    | { payment_type: "subscription"; subscription_plan: PlanId; promotion_code?: string },
): Promise<CheckoutResponse> {
  const origin_url = globalThis.location.origin;
  const checkout = paymentsApi.payments.checkout;
  return ok(
    body.payment_type === "credits"
      ? checkout.credits.$post({ json: { ...body, origin_url } })
      : checkout.subscription.$post({ json: { ...body, origin_url } }),
  );
}

export function fetchPaymentStatus(sessionId: string): Promise<PaymentStatusResponse> {
  return ok(paymentsApi.payments.checkout.status[":session_id"].$get({
    // hc puts the param into the path as it is.
    param: { session_id: encodeURIComponent(sessionId) },
    query: { origin_url: globalThis.location.origin },
  }));
}

export function serverMessage(err: unknown): string | null {
  return err instanceof ApiError ? err.detail : null;
}

/** Cents to "$9.00". */
export function dollars(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/**
 * The price after an applied promotion, for display; the server recomputes it at checkout. An offer the code
 * would take below the smallest card charge keeps its price (the server refuses the code there).
 */
export function discountedCents(cents: number, promo: PromotionValidation | null): number {
  if (!promo?.success || !promo.discount_type) return cents;
  const off = promo.discount_type === "percentage"
    ? Math.round((cents * promo.discount_value) / 100)
    : Math.round(promo.discount_value * 100);
  return cents - off < MINIMUM_CHARGE_CENTS ? cents : cents - off;
}

/** "20% off" or "$5.00 off". */
export function discountLabel(promo: PromotionValidation): string {
  return promo.discount_type === "percentage"
    ? `${promo.discount_value}% off`
    : `$${promo.discount_value.toFixed(2)} off`;
}

export const SUBSCRIPTION_KEY = ["subscription"] as const;

/** The signed-in user's plan; a failed fetch falls back to the inactive default. */
export function useSubscriptionSummary(enabled = true) {
  return useQuery({
    queryKey: SUBSCRIPTION_KEY,
    enabled,
    queryFn: async (): Promise<SubscriptionSummary> => {
      try {
        return await ok(paymentsApi.users.subscription.$get());
      } catch {
        return { plan: "none", status: "inactive", current_period_end: null, credits_remaining: 0 };
      }
    },
  });
}
