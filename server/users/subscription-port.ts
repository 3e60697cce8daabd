/**
 * The account's view of subscriptions. Until the payments area serves them,
 * every user has none: plan none, status inactive (the product's default).
 */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import type { SubscriptionPort, SubscriptionSummary } from "./account.service.ts";

export const NO_SUBSCRIPTION: SubscriptionSummary = {
  plan: "none",
  status: "inactive",
  current_period_end: null,
  credits_remaining: 0,
};

export function subscriptionPort(_deps: { db: Db; config: Config }): SubscriptionPort {
  return {
    summary: () => Promise.resolve(NO_SUBSCRIPTION),
    cancelAll: () => Promise.resolve(),
  };
}
