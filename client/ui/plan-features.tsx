/**
 * What a monthly plan gives, as its cards show it wherever plans are listed (the Choose Your
 * Plan dialog, the dashboard's Subscription tab): credits a month, the daily cap, the features.
 */
import type { PlanView } from "../../server/payments/payments.schemas.ts";
import { CheckIcon } from "./icons.tsx";

export function PlanFeatures(
  { plan: { credits, maxGenerationsPerDay, features } }: {
    plan: Pick<PlanView, "credits" | "maxGenerationsPerDay" | "features">;
  },
) {
  return (
    <>
      <p className="mt-1 text-sm font-semibold text-brand-700">
        {credits} credits/month
      </p>
      {maxGenerationsPerDay !== undefined && (
        <p className="text-sm text-ink-600">Up to {maxGenerationsPerDay} generations/day</p>
      )}
      <ul className="mt-4 flex-1 space-y-2 text-sm text-ink-700">
        {features.map((f) => (
          <li key={f} className="flex gap-2">
            <CheckIcon className="mt-0.5 size-4 shrink-0 text-emerald-600" />
            {f}
          </li>
        ))}
      </ul>
    </>
  );
}
