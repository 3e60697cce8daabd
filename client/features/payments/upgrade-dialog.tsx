/**
 * "Choose Your Plan": the three monthly plans from the server, the promotion
 * code box (validated against the starter plan) and the checkout redirect.
 * Opened from the header and the dashboard's Subscription tab.
 */
import { Badge } from "../../ui/badge.tsx";
import { Button } from "../../ui/button.tsx";
import { PlanFeatures } from "../../ui/plan-features.tsx";
import {
  discountedCents,
  discountLabel,
  dollars,
  type PlanId,
  usePlans,
  useSubscriptionSummary,
} from "./payments-api.ts";
import { useSession } from "../../api/session.ts";
import { OfferDialog } from "./offer-dialog.tsx";
import { closeUpgradeDialog } from "./upgrade-dialog-store.ts";
import { useCheckout } from "./use-checkout.ts";

export { usePlans } from "./payments-api.ts";

export interface UpgradePlanDialogProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  /** The plan the user is on ("none" or absent: no plan); its button reads Current Plan. */
  currentPlan?: string;
}

export function UpgradePlanDialog({ open, onOpenChange, currentPlan }: UpgradePlanDialogProps) {
  const plans = usePlans(open);
  const co = useCheckout<PlanId>("plans");
  const { promo, pending, checkout } = co;

  return (
    <OfferDialog
      kind="plans"
      open={open}
      onOpenChange={onOpenChange}
      offers={plans}
      checkout={co}
      failed={<p className="py-10 text-center text-red-700">Failed to load subscription plans.</p>}
      footer={
        <div className="mt-6 text-center text-sm text-ink-600">
          <p>All plans include access to our full AI styling platform.</p>
          <p className="mt-1">Cancel anytime. No hidden fees.</p>
        </div>
      }
    >
      {plans.data && (
        <ul className="grid gap-4 md:grid-cols-3">
          {plans.data.plans.map((plan) => {
            const current = plan.id === currentPlan;
            const finalCents = discountedCents(plan.price_cents, promo);
            return (
              <li
                key={plan.id}
                data-testid={`plan-${plan.id}`}
                className={`relative flex flex-col rounded-3xl border p-5 ${
                  plan.popular
                    ? "border-brand-400 shadow-lg shadow-brand-500/10 ring-1 ring-brand-300"
                    : "border-ink-200"
                }`}
              >
                {plan.popular && (
                  <Badge tone="brand" className="absolute -top-3 left-5 px-3 py-1">Most Popular</Badge>
                )}
                {plan.premium && (
                  <Badge tone="ink" className="absolute -top-3 left-5 px-3 py-1">Premium</Badge>
                )}
                <h3 className="text-lg font-bold text-ink-900">{plan.name}</h3>
                <p className="mt-2 flex flex-wrap items-baseline gap-x-2">
                  {finalCents !== plan.price_cents && (
                    <span className="text-base text-ink-500 line-through" data-testid="plan-old-price">
                      {dollars(plan.price_cents)}
                    </span>
                  )}
                  <span className="text-3xl font-extrabold tracking-tight text-ink-900">
                    {finalCents !== plan.price_cents
                      ? `$${(finalCents / 100).toFixed(2)}`
                      : plan.price_display}
                  </span>
                  <span className="text-sm text-ink-500">/month</span>
                </p>
                {promo?.success && finalCents !== plan.price_cents && (
                  <p className="text-sm font-semibold text-emerald-700">
                    {discountLabel(promo)} the first month
                  </p>
                )}
                <PlanFeatures plan={plan} />
                <Button
                  className="mt-5 w-full"
                  variant={plan.popular ? "primary" : "secondary"}
                  disabled={current || pending !== null}
                  onClick={() =>
                    checkout(
                      plan.id,
                      { payment_type: "subscription", subscription_plan: plan.id },
                      plan.price_cents,
                    )}
                >
                  {current ? "Current Plan" : pending === plan.id ? "Processing..." : `Choose ${plan.name}`}
                </Button>
              </li>
            );
          })}
        </ul>
      )}
    </OfferDialog>
  );
}

/** The app-wide instance: opened through upgrade-dialog-store, current plan from the server. */
export function ConnectedUpgradePlanDialog({ open }: { open: boolean }) {
  // Signed out (a plan chosen from a payment page's Try Again), there is no current plan to ask for: a 401.
  const { isAuthenticated } = useSession();
  const summary = useSubscriptionSummary(open && isAuthenticated);
  return (
    <UpgradePlanDialog
      open={open}
      onOpenChange={(o) => !o && closeUpgradeDialog()}
      currentPlan={summary.data?.plan}
    />
  );
}
