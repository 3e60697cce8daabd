/** The account's view of subscriptions, served by the payments area. */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { cancelSubscriptionsForUser, getSubscriptionSummary } from "../payments/subscription.service.ts";
import type { SubscriptionPort } from "./account.service.ts";

export function subscriptionPort(deps: { db: Db; config: Config }): SubscriptionPort {
  return {
    summary: (userId) => getSubscriptionSummary(deps.db, userId),
    cancelAll: (userId) => cancelSubscriptionsForUser(deps, userId),
  };
}
