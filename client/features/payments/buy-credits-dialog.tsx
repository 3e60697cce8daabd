/**
 * The Buy Credits modal: three packs from the server (popular and best-value
 * badges), the promotion code box (validated against the small pack), the
 * custom-amount note, and the redirect to the hosted checkout.
 */
import { useEffect } from "react";
import { Badge } from "../../ui/badge.tsx";
import { Button } from "../../ui/button.tsx";
import { CoinIcon } from "../../ui/icons.tsx";
import { toast } from "../../ui/toast.tsx";
import { closeBuyCredits, useBuyCreditsOpen } from "./buy-credits-store.ts";
import { discountedCents, dollars, type PackageId, usePackages } from "./payments-api.ts";
import { OfferDialog } from "./offer-dialog.tsx";
import { useCheckout } from "./use-checkout.ts";

const ORDER: PackageId[] = ["small", "medium", "large"];
const NAMES: Record<PackageId, string> = {
  small: "Starter Pack",
  medium: "Popular Pack",
  large: "Best Value",
};

export function BuyCreditsDialog() {
  const open = useBuyCreditsOpen();
  const packages = usePackages(open);
  const co = useCheckout<PackageId>("credits");
  const { promo, pending, checkout } = co;

  useEffect(() => {
    if (open && packages.isError) {
      toast({ title: "Error", description: "Failed to load credit packages", variant: "destructive" });
    }
  }, [open, packages.isError]);

  return (
    <OfferDialog
      kind="credits"
      open={open}
      onOpenChange={(o) => !o && closeBuyCredits()}
      offers={packages}
      checkout={co}
      failed={
        <div className="py-8 text-center">
          <p className="text-red-700">Failed to load credit packages</p>
          <Button variant="outline" className="mt-3" onClick={() => packages.refetch()}>Retry</Button>
        </div>
      }
      footer={
        <p className="mt-4 text-center text-sm text-ink-600">
          Need a custom amount? Contact support and we will set up a package for you.
        </p>
      }
    >
      {packages.data && (
        <ul className="grid gap-4 sm:grid-cols-3 sm:gap-3">
          {ORDER.map((id) => {
            const pack = packages.data.packages[id];
            if (!pack) return null;
            const finalCents = discountedCents(pack.price_cents, promo);
            const discounted = finalCents !== pack.price_cents;
            const highlight = pack.popular || pack.badge;
            return (
              // On a phone under 360 px the price and Buy Now no longer fit side by side (the 100-credit
              // line alone takes 150 of 208 px): the card stacks them as the desktop row does. Under 400 px
              // the credits line is a size smaller: at 375 px it pushed the card 9 px past the column.
              <li
                key={id}
                data-testid={`package-${id}`}
                className={`relative flex min-w-0 items-center gap-3 rounded-3xl border p-4 pt-5 max-[360px]:flex-col max-[360px]:items-stretch sm:flex-col sm:items-stretch sm:p-5 sm:pt-6 ${
                  highlight ? "border-brand-300 bg-brand-50/40 ring-1 ring-brand-200" : "border-ink-200"
                }`}
              >
                <div className="absolute -top-3 left-4 flex gap-1.5">
                  {pack.popular && <Badge tone="brand" className="px-2.5 py-0.5">Most Popular</Badge>}
                  {pack.badge && <Badge tone="emerald" className="px-2.5 py-0.5">{pack.badge}</Badge>}
                </div>
                <div className="min-w-0 flex-1">
                  <p className="text-sm font-semibold text-ink-600">{NAMES[id]}</p>
                  <p className="mt-1 flex items-center gap-2 whitespace-nowrap text-lg font-extrabold min-[400px]:text-xl sm:text-2xl tracking-tight text-ink-900">
                    <CoinIcon className="size-5 text-brand-600" />
                    {pack.credits} credits
                  </p>
                  <p className="mt-1 flex flex-wrap items-baseline gap-x-2 sm:mt-2">
                    {discounted && (
                      <span className="text-ink-500 line-through" data-testid="old-price">
                        {pack.price_display}
                      </span>
                    )}
                    <span className="text-xl font-bold text-ink-900" data-testid="price">
                      {discounted ? dollars(finalCents) : pack.price_display}
                    </span>
                  </p>
                  {/* What a credit costs at the price shown (after an applied promotion code). */}
                  <p className="text-xs text-ink-500" data-testid="per-credit">
                    {(finalCents / pack.credits / 100).toLocaleString("en-US", {
                      style: "currency",
                      currency: "USD",
                    })} per credit
                  </p>
                </div>
                <Button
                  className="shrink-0 max-[360px]:w-full sm:mt-4 sm:w-full"
                  variant={highlight ? "primary" : "secondary"}
                  disabled={pending !== null}
                  onClick={() => checkout(id, { payment_type: "credits", package_id: id }, pack.price_cents)}
                >
                  {pending === id ? "Processing..." : "Buy Now"}
                </Button>
              </li>
            );
          })}
        </ul>
      )}
    </OfferDialog>
  );
}
