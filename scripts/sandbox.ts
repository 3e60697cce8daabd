/**
 * `deno task sandbox renew <email>`: a month passes for that account's sandbox
 * subscription: it moves to its next period and grants the plan's monthly
 * credits (or ends, if it was cancelled at period end). Stripe renews its own
 * subscriptions; this is how renewals are tried offline.
 */
import { findUserIdByEmail } from "../server/payments/payments.repository.ts";
import { renewSandboxSubscription } from "../server/payments/subscription.service.ts";
import { withServerDatabase } from "./admin-cli.ts";

export async function main(args: string[]): Promise<number> {
  const [command, email] = args;
  if (command !== "renew" || !email) {
    console.error("usage: deno task sandbox renew <email>");
    return 2;
  }
  return await withServerDatabase(async (db) => {
    const userId = await findUserIdByEmail(db, email);
    if (!userId) {
      console.error(`No account with email ${email.trim().toLowerCase()}`);
      return 1;
    }
    const r = await renewSandboxSubscription(db, userId);
    console.log(
      r.outcome === "renewed"
        ? `Renewed ${r.plan}: +${r.credits} credits, next renewal ${r.periodEnd.toISOString()}`
        : `The ${r.plan} subscription was cancelled at period end and has now ended`,
    );
    return 0;
  });
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
