/**
 * The two purchase dialogs, Buy Credits (packs) and Choose Your Plan (monthly
 * plans): their fixed texts, the offer a promotion code is checked against,
 * and the toasts their checkout shows. Pure data.
 */
import type { PromotionTarget } from "./payments-api.ts";

export type OfferKind = "credits" | "plans";

/** The toasts one kind of checkout shows. */
export interface CheckoutTexts {
  /** Shown when nobody is signed in. */
  signInFirst: string;
  failedTitle: string;
  /** The server answered without a checkout URL. */
  noSession: string;
  /** Anything else went wrong and the server gave no message. */
  failed: string;
}

export interface OfferDialogTexts {
  title: string;
  description: string;
  /** Tailwind max-width class of the modal. */
  width: string;
  loadingLabel: string;
  /** A promotion code is validated against the smallest offer. */
  promoTarget: PromotionTarget;
  /** Tighter spacing: the packs are smaller cards than the plans. */
  compact: boolean;
  checkout: CheckoutTexts;
}

export const OFFER_DIALOGS: Record<OfferKind, OfferDialogTexts> = {
  credits: {
    title: "Buy Credits",
    description:
      "Each generation costs 2 credits. 5 credits for $1, and the best-value bundle saves the most.",
    width: "max-w-3xl",
    loadingLabel: "Loading credit packages",
    promoTarget: { payment_type: "credits", package_id: "small" },
    compact: true,
    checkout: {
      signInFirst: "Please log in to purchase credits.",
      failedTitle: "Payment Setup Failed",
      noSession: "Failed to create payment session",
      failed: "An error occurred while setting up payment",
    },
  },
  plans: {
    title: "Choose Your Plan",
    description: "Monthly credits for every look you create.",
    width: "max-w-5xl",
    loadingLabel: "Loading plans",
    promoTarget: { payment_type: "subscription", subscription_plan: "starter" },
    compact: false,
    checkout: {
      signInFirst: "Please log in to subscribe.",
      failedTitle: "Subscription Setup Failed",
      noSession: "Failed to create subscription session",
      failed: "An error occurred while setting up subscription",
    },
  },
};
