/** Ledger audits shared by API tests. */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { creditLedger, users } from "../../db/schema.ts";

/** Every user whose cached balance differs from the sum of their ledger rows. */
export async function ledgerMismatches(db: Db) {
  const balances = await db.select({ id: users.id, credits: users.credits }).from(users);
  const sums = await db.select({
    userId: creditLedger.userId,
    sum: sql<number>`sum(${creditLedger.delta})::int`,
    entries: sql<number>`count(*)::int`,
  }).from(creditLedger).groupBy(creditLedger.userId);
  const byUser = new Map(sums.map((s) => [s.userId, s]));
  return {
    users: balances.length,
    entriesByUser: byUser,
    mismatches: balances.filter((u) => (byUser.get(u.id)?.sum ?? 0) !== u.credits),
  };
}
