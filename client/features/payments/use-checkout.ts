/**
 * What the Buy Credits and Choose Your Plan dialogs share: the promotion code the box applied,
 * which offer is being checked out, and the redirect to the hosted checkout with its toasts.
 */
import { useState } from "react";
import { toast } from "../../ui/toast.tsx";
import { OFFER_DIALOGS, type OfferKind } from "./offer-texts.ts";
import {
  discountedCents,
  hasAccessToken,
  type PackageId,
  type PlanId,
  type PromotionValidation,
  serverMessage,
  startCheckout,
} from "./payments-api.ts";

type Offer =
  | { payment_type: "credits"; package_id: PackageId }
  | { payment_type: "subscription"; subscription_plan: PlanId };

export type Checkout<Id extends string> = ReturnType<typeof useCheckout<Id>>;

export function useCheckout<Id extends string>(kind: OfferKind) {
  const texts = OFFER_DIALOGS[kind].checkout;
  const [promo, setPromo] = useState<PromotionValidation | null>(null);
  const [promoCode, setPromoCode] = useState("");
  const [pending, setPending] = useState<Id | null>(null);

  /** `priceCents`: the offer's price; the code goes with it only where it takes something off (see discountedCents). */
  async function checkout(id: Id, offer: Offer, priceCents: number) {
    if (!hasAccessToken()) {
      toast({ title: "Authentication Required", description: texts.signInFirst, variant: "destructive" });
      return;
    }
    setPending(id);
    try {
      const res = await startCheckout({
        ...offer,
        ...(promo?.success && promoCode && discountedCents(priceCents, promo) !== priceCents
          ? { promotion_code: promoCode }
          : {}),
      });
      if (!res.checkout_url) throw new Error("no checkout url");
      // A live subscription's plan changed in place (charged to the card on file): no payment page follows.
      toast({
        title: res.plan_changed ? "Plan Changed" : "Redirecting to Payment",
        description: res.message,
        variant: "success",
      });
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
