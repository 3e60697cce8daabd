/**
 * What the Buy Credits and Choose Your Plan dialogs share: the promotion code the box applied,
 * which offer is being checked out, and the redirect to the hosted checkout with its toasts.
 */
import { useState } from "react";
import { toast } from "../../ui/toast.tsx";
import {
  hasAccessToken,
  type PackageId,
  type PlanId,
  type PromotionValidation,
  serverMessage,
  startCheckout,
} from "./payments-api.ts";

/** The toasts one kind of checkout shows (literal product texts, different per dialog). */
export interface CheckoutTexts {
  /** Shown when nobody is signed in. */
  signInFirst: string;
  failedTitle: string;
  /** The server answered without a checkout URL. */
  noSession: string;
  /** Anything else went wrong and the server gave no message. */
  failed: string;
}

type Offer =
  | { payment_type: "credits"; package_id: PackageId }
  | { payment_type: "subscription"; subscription_plan: PlanId };

export function useCheckout<Id extends string>(texts: CheckoutTexts) {
  const [promo, setPromo] = useState<PromotionValidation | null>(null);
  const [promoCode, setPromoCode] = useState("");
  const [pending, setPending] = useState<Id | null>(null);

  async function checkout(id: Id, offer: Offer) {
    if (!hasAccessToken()) {
      toast({ title: "Authentication Required", description: texts.signInFirst, variant: "destructive" });
      return;
    }
    setPending(id);
    try {
      const res = await startCheckout({
        ...offer,
        ...(promo?.success && promoCode ? { promotion_code: promoCode } : {}),
      });
      if (!res.checkout_url) throw new Error("no checkout url");
      toast({ title: "Redirecting to Payment", description: res.message, variant: "success" });
      globalThis.location.assign(res.checkout_url);
    } catch (err) {
      setPending(null);
      const detail = serverMessage(err);
      toast({
        title: texts.failedTitle,
        description: detail ??
          (err instanceof Error && err.message === "no checkout url" ? texts.noSession : texts.failed),
        variant: "destructive",
      });
    }
  }

  return {
    promo,
    pending,
    checkout,
    /** For the promotion code box: what it validated, and the code it validated. */
    onPromoResult(result: PromotionValidation | null, code: string) {
      setPromo(result);
      setPromoCode(code);
    },
    /** Forgets the promotion and the pending checkout (the dialog closed). */
    reset() {
      setPromo(null);
      setPromoCode("");
      setPending(null);
    },
  };
}
