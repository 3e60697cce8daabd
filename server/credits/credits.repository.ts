/**
 * Data access for the credit ledger: the cached balance on users.credits and
 * the ledger rows. No rules here; credits.service.ts decides what may change.
 */
import { and, eq, like, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { creditLedger, users } from "../../db/schema.ts";

/**
 * Reads the balance and locks the user row until the transaction ends.
 * NO KEY UPDATE: compatible with the KEY SHARE locks foreign-key checks take on this row
 * (inserting a generation or a photo claim), so a charge never deadlocks against them.
 */
export async function lockBalance(tx: DbOrTx, userId: string): Promise<number | null> {
  const [user] = await tx.select({ credits: users.credits }).from(users)
    .where(eq(users.id, userId)).for("no key update");
  return user ? user.credits : null;
}

export async function readBalance(db: DbOrTx, userId: string): Promise<number | null> {
  const [user] = await db.select({ credits: users.credits }).from(users).where(eq(users.id, userId));
  return user ? user.credits : null;
}

/** Inserts a ledger row; null when its (reason, ref) key already exists. */
export async function insertLedgerRow(
  tx: DbOrTx,
  row: { userId: string; delta: number; balanceAfter: number; reason: string; ref: string },
): Promise<number | null> {
  const inserted = await tx.insert(creditLedger).values(row).onConflictDoNothing()
    .returning({ id: creditLedger.id });
  return inserted[0]?.id ?? null;
}

export async function setBalance(tx: DbOrTx, userId: string, credits: number): Promise<void> {
  await tx.update(users).set({ credits }).where(eq(users.id, userId));
}

/** Sum of the deltas of one reason whose ref starts with `refPrefix` (refunds of one charge). */
export async function sumDeltas(db: DbOrTx, userId: string, reason: string, refPrefix: string) {
  const [row] = await db.select({ total: sql<string>`coalesce(sum(${creditLedger.delta}), 0)` })
    .from(creditLedger)
    .where(and(
      eq(creditLedger.userId, userId),
      eq(creditLedger.reason, reason),
      like(creditLedger.ref, `${refPrefix}%`),
    ));
  return Number(row?.total ?? 0);
}
