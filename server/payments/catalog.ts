/**
 * What the store sells: credit packs and monthly plans. The one place prices
 * live; the client renders whatever GET /api/credits/packages and
 * GET /api/payments/plans answer. Amounts are integer cents (USD).
 */
import type { PackageId, PlanId } from "./payments.schemas.ts";

export interface CreditPackage {
  id: PackageId;
  credits: number;
  priceCents: number;
  popular?: boolean;
  /** Percent saved against the base rate of 5 credits for $1; shown as "20% OFF". */
  savingsPercent?: number;
}

export const PACKAGES: Record<PackageId, CreditPackage> = {
  small: { id: "small", credits: 5, priceCents: 100 },
  medium: { id: "medium", credits: 25, priceCents: 500, popular: true },
  // The best-value bundle: 100 credits would be $20 at the base rate; 20% off is $16.
  large: { id: "large", credits: 100, priceCents: 1600, savingsPercent: 20 },
};

export interface Plan {
  id: PlanId;
  name: string;
  priceCents: number;
  creditsPerMonth: number;
  popular?: boolean;
  premium?: boolean;
  features: string[];
  /** Stripe Price lookup key: the price is created once and found again by it. */
  lookupKey: string;
}

export const PLANS: Record<PlanId, Plan> = {
  starter: {
    id: "starter",
    name: "Starter",
    priceCents: 900,
    creditsPerMonth: 300,
    features: ["All studios", "Basic photo upload", "Standard quality", "Email support"],
    lookupKey: "styletwin_starter_monthly",
  },
  pro: {
    id: "pro",
    name: "PRO",
    priceCents: 2000,
    creditsPerMonth: 1200,
    popular: true,
    features: [
      "Everything in Starter",
      "Unlimited photo uploads",
      "High-quality generations",
      "360° view",
      "Priority processing",
      "Priority support",
    ],
    lookupKey: "styletwin_pro_monthly",
  },
  creator: {
    id: "creator",
    name: "CREATOR",
    priceCents: 2900,
    creditsPerMonth: 2200,
    premium: true,
    features: [
      "Everything in PRO",
      "Premium quality",
      "Batch processing",
      "Commercial usage rights",
      "Dedicated support",
    ],
    lookupKey: "styletwin_creator_monthly",
  },
};

export const CURRENCY = "usd";

export function formatCents(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
