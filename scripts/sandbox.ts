/**
 * `deno task sandbox renew <email>`: a month passes for that account's sandbox
 * subscription: it moves to its next period and grants the plan's monthly
 * credits (or ends, if it was cancelled at period end). Stripe renews its own
 * subscriptions; this is how renewals are tried offline.
 */
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { loadConfig } from "../server/config.ts";
import { AppError } from "../server/http/errors.ts";
import { findUserIdByEmail } from "../server/payments/payments.repository.ts";
import { renewSandboxSubscription } from "../server/payments/subscription.service.ts";
import { embeddedDatabaseInUse } from "./promote-admin.ts";

export async function main(args: string[]): Promise<number> {
  const [command, email] = args;
  if (command !== "renew" || !email) {
    console.error("usage: deno task sandbox renew <email>");
    return 2;
  }
  const config = loadConfig();
  const refusal = embeddedDatabaseInUse(config);
  if (refusal) {
    console.error(refusal);
    return 1;
  }
  const database = await openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, "db") });
  try {
    const userId = await findUserIdByEmail(database.db, email);
    if (!userId) {
      console.error(`No account with email ${email.trim().toLowerCase()}`);
      return 1;
    }
    const r = await renewSandboxSubscription(database.db, userId);
    console.log(
      r.outcome === "renewed"
        ? `Renewed ${r.plan}: +${r.credits} credits, next renewal ${r.periodEnd.toISOString()}`
        : `The ${r.plan} subscription was cancelled at period end and has now ended`,
    );
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
