/**
 * "Choose Your Plan": the three monthly plans from the server, the promotion
 * code box (validated against the starter plan) and the checkout redirect.
 * Opened from the header and the dashboard's Subscription tab.
 */
import { Button } from "../../ui/button.tsx";
import { Modal } from "../../ui/dialog.tsx";
import { PlanFeatures } from "../../ui/plan-features.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import {
  discountedCents,
  discountLabel,
  dollars,
  type PlanId,
  usePlans,
  useSubscriptionSummary,
} from "./payments-api.ts";
import { PromoCodeBox } from "./promo-code-box.tsx";
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
  const { promo, pending, checkout, onPromoResult, reset } = useCheckout<PlanId>({
    signInFirst: "Please log in to subscribe.",
    failedTitle: "Subscription Setup Failed",
    noSession: "Failed to create subscription session",
    failed: "An error occurred while setting up subscription",
  });

  return (
    <Modal
      open={open}
      onOpenChange={(o) => {
        if (!o) reset();
        onOpenChange(o);
      }}
      title="Choose Your Plan"
      description="Monthly credits for every look you create."
      width="max-w-5xl"
    >
      <div className="mt-6">
        {plans.isPending && (
          <div className="grid place-items-center py-16 text-ink-500" role="status">
            <Spinner className="size-7" />
            <span className="sr-only">Loading plans</span>
          </div>
        )}
        {plans.isError && (
          <p className="py-10 text-center text-red-700">
            Failed to load subscription plans.
          </p>
        )}
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
                    <span className="absolute -top-3 left-5 rounded-full bg-brand-600 px-3 py-1 text-xs font-bold text-white">
                      Most Popular
                    </span>
                  )}
                  {plan.premium && (
                    <span className="absolute -top-3 left-5 rounded-full bg-ink-900 px-3 py-1 text-xs font-bold text-white">
                      Premium
                    </span>
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
                  <PlanFeatures
                    credits={plan.credits}
                    maxGenerationsPerDay={plan.maxGenerationsPerDay}
                    features={plan.features}
                  />
                  <Button
                    className="mt-5 w-full"
                    variant={plan.popular ? "primary" : "secondary"}
                    disabled={current || pending !== null}
                    onClick={() =>
                      checkout(plan.id, { payment_type: "subscription", subscription_plan: plan.id })}
                  >
                    {current ? "Current Plan" : pending === plan.id ? "Processing..." : `Choose ${plan.name}`}
                  </Button>
                </li>
              );
            })}
          </ul>
        )}
        <div className="mt-6">
          <PromoCodeBox
            target={{ payment_type: "subscription", subscription_plan: "starter" }}
            applied={promo}
            onResult={onPromoResult}
          />
        </div>
        <div className="mt-6 text-center text-sm text-ink-600">
          <p>All plans include access to our full AI styling platform.</p>
          <p className="mt-1">Cancel anytime. No hidden fees.</p>
        </div>
      </div>
    </Modal>
  );
}

/** The app-wide instance: opened through upgrade-dialog-store, current plan from the server. */
export function ConnectedUpgradePlanDialog({ open }: { open: boolean }) {
  const summary = useSubscriptionSummary(open);
  return (
    <UpgradePlanDialog
      open={open}
      onOpenChange={(o) => !o && closeUpgradeDialog()}
      currentPlan={summary.data?.plan}
    />
  );
}
