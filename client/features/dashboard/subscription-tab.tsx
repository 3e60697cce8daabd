/**
 * Subscription: the current plan, the available plans and the upgrade
 * dialog. Plans and the dialog belong to the payments feature; the route
 * passes them in (features never import each other).
 */
import { AlertDialog } from "radix-ui";
import { type ReactNode, useState } from "react";
import type { PublicUser } from "../../api/types.ts";
import { useBusyAction } from "../../lib/use-busy-action.ts";
import { formatCredits } from "../../lib/account-labels.ts";
import { Button } from "../../ui/button.tsx";
import { PlanFeatures } from "../../ui/plan-features.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import type { PlanView } from "../../../server/payments/payments.schemas.ts";
import { toast } from "../../ui/toast.tsx";
import { cancelSubscription, NO_SUBSCRIPTION, serverDetail, useSubscription } from "./dashboard-api.ts";
import { DashboardCard } from "./dashboard-section.tsx";

export interface SubscriptionTabProps {
  user: PublicUser;
  plans: PlanView[] | undefined;
  plansLoading: boolean;
  renderUpgradeDialog(
    props: { open: boolean; onOpenChange(open: boolean): void; currentPlan: string },
  ): ReactNode;
}

export function renewsOn(iso: string | null): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? null
    : d.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric" });
}

export function SubscriptionTab({ user, plans, plansLoading, renderUpgradeDialog }: SubscriptionTabProps) {
  const sub = useSubscription().data ?? NO_SUBSCRIPTION;
  const [open, setOpen] = useState(false);
  const current = plans?.find((p) => p.id === sub.plan);
  const active = sub.status === "active" || sub.status === "trialing";
  // A renewal that could not be charged (past_due) keeps the plan while Stripe retries: still the current one.
  const live = active || sub.status === "past_due";
  const renews = renewsOn(sub.current_period_end);

  return (
    <div className="grid gap-6">
      <DashboardCard labelledBy="current-sub">
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div>
            <h2 id="current-sub" className="text-lg font-bold text-ink-900">Current Subscription</h2>
            <p className="mt-3 text-3xl font-bold text-ink-900" data-testid="current-plan">
              {current?.name ?? (sub.plan === "none" ? "none" : sub.plan)}
            </p>
            <p className="mt-1 text-sm text-ink-600">
              <span
                className={`mr-2 inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ${
                  active
                    ? "bg-emerald-100 text-emerald-800"
                    : live
                    ? "bg-amber-100 text-amber-900"
                    : "bg-ink-100 text-ink-700"
                }`}
                data-testid="subscription-status"
              >
                {sub.status}
              </span>
              {current ? `${current.price_display}/month` : "No monthly plan"}
            </p>
            {renews && (
              <p className="mt-2 text-sm text-ink-600" data-testid="subscription-renewal">
                {live && sub.cancel_at_period_end
                  ? `Ends on ${renews}; it will not renew`
                  : `Renews on ${renews}`}
              </p>
            )}
          </div>
          <div className="rounded-2xl bg-brand-50 px-5 py-4 text-right ring-1 ring-brand-100">
            <p className="text-xs font-semibold uppercase tracking-wide text-brand-800">Credits remaining</p>
            <p className="text-3xl font-bold tabular-nums text-brand-900" data-testid="credits-remaining">
              {formatCredits(user)}
            </p>
          </div>
        </div>
        <div className="mt-6 flex flex-wrap gap-3">
          <Button onClick={() => setOpen(true)}>
            {sub.plan === "none" ? "Choose a Plan" : "Change Plan"}
          </Button>
          {live && !sub.cancel_at_period_end && (
            <CancelSubscription planName={current?.name ?? sub.plan} endsOn={renews} />
          )}
        </div>
      </DashboardCard>

      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading" className="mb-3 text-lg font-bold text-ink-900">Available Plans</h2>
        {plansLoading && !plans && (
          <div className="grid place-items-center py-10 text-brand-600">
            <Spinner className="size-7" />
          </div>
        )}
        <div className="grid gap-4 md:grid-cols-3">
          {plans?.map((plan) => {
            const isCurrent = plan.id === sub.plan && live;
            return (
              <article
                key={plan.id}
                className={`relative flex flex-col rounded-3xl border bg-white p-5 shadow-sm ${
                  plan.popular ? "border-brand-300 ring-2 ring-brand-200" : "border-ink-100"
                }`}
                data-testid="plan-card"
              >
                {(plan.popular || plan.premium) && (
                  <span className="absolute -top-3 left-5 rounded-full bg-ink-900 px-3 py-1 text-xs font-semibold text-white">
                    {plan.popular ? "Most Popular" : "Premium"}
                  </span>
                )}
                <h3 className="text-lg font-bold text-ink-900">{plan.name}</h3>
                <p className="mt-1">
                  <span className="text-3xl font-bold text-ink-900">{plan.price_display}</span>
                  <span className="text-sm text-ink-500">/month</span>
                </p>
                <PlanFeatures plan={plan} />
                <Button
                  className="mt-5"
                  variant={plan.popular ? "primary" : "outline"}
                  disabled={isCurrent}
                  onClick={() => setOpen(true)}
                >
                  {isCurrent ? "Current Plan" : "Upgrade"}
                </Button>
              </article>
            );
          })}
        </div>
      </section>
      {renderUpgradeDialog({ open, onOpenChange: setOpen, currentPlan: live ? sub.plan : "none" })}
    </div>
  );
}

/**
 * "Cancel anytime": the plan ends when its paid period does (no refund, no renewal; the credits stay), after
 * a confirmation that can be backed out of.
 */
function CancelSubscription({ planName, endsOn }: { planName: string; endsOn: string | null }) {
  const [open, setOpen] = useState(false);
  const { busy, run } = useBusyAction();
  const onConfirm = () =>
    run(async () => {
      await cancelSubscription();
      setOpen(false);
      toast({
        title: "Subscription Cancelled",
        description: endsOn
          ? `Your ${planName} plan stays until ${endsOn} and will not renew.`
          : `Your ${planName} plan will not renew.`,
        variant: "success",
      });
    }, (err) => ({
      title: "Cancellation Failed",
      description: serverDetail(err) ?? "Failed to cancel your subscription. Please try again.",
    }));
  return (
    <AlertDialog.Root open={open} onOpenChange={(o) => !busy && setOpen(o)}>
      <AlertDialog.Trigger asChild>
        <Button variant="outline">Cancel Subscription</Button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="overlay-anim fixed inset-0 z-50 bg-ink-900/50 backdrop-blur-sm" />
        <AlertDialog.Content className="dialog-anim fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-3xl bg-white p-6 shadow-2xl sm:p-8">
          <AlertDialog.Title className="text-xl font-bold text-ink-900">
            Cancel your subscription?
          </AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-ink-600">
            {endsOn
              ? `Your ${planName} plan stays until ${endsOn}, then ends instead of renewing. `
              : `Your ${planName} plan ends instead of renewing. `}
            You keep the credits you have.
          </AlertDialog.Description>
          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="outline" disabled={busy}>Keep My Plan</Button>
            </AlertDialog.Cancel>
            <Button variant="danger" onClick={onConfirm} disabled={busy}>
              {busy && <Spinner className="size-4" />}
              Yes, Cancel Subscription
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
