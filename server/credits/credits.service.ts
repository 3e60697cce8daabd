/**
 * The credit ledger. Every balance change is one ledger row with a unique
 * (reason, ref) idempotency key, written in the same transaction as the
 * cached balance on users.credits, so the two can never disagree and a
 * retried side effect (a refund, a payment fulfilment) applies only once.
 */
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { creditLedger, users } from "../../db/schema.ts";

export type LedgerReason =
  | "welcome"
  | "generation_charge"
  | "generation_refund"
  | "purchase"
  | "subscription"
  | "adjustment";

export interface CreditChange {
  userId: string;
  /** Positive grants, negative debits. */
  delta: number;
  reason: LedgerReason;
  /** Identifies the side effect (a generation id, a checkout session id). */
  ref: string;
}

export type CreditResult =
  | { applied: true; balance: number }
  | {
    applied: false;
    why: "insufficient" | "duplicate" | "no_user";
    balance: number;
  };

/**
 * Applies one change inside the caller's transaction. The user row is locked
 * first, so concurrent debits serialise per user and the balance can never
 * go below zero (the CHECK constraint is the last line of defence).
 */
export async function applyCreditChange(
  tx: DbOrTx,
  change: CreditChange,
): Promise<CreditResult> {
  const [user] = await tx.select({ credits: users.credits }).from(users)
    // NO KEY UPDATE: compatible with the KEY SHARE locks foreign-key checks take on this row
    // (inserting a generation or a photo claim), so a charge never deadlocks against them.
    .where(eq(users.id, change.userId)).for("no key update");
  if (!user) return { applied: false, why: "no_user", balance: 0 };
  const next = user.credits + change.delta;
  if (next < 0) {
    return { applied: false, why: "insufficient", balance: user.credits };
  }
  const inserted = await tx.insert(creditLedger).values({
    userId: change.userId,
    delta: change.delta,
    balanceAfter: next,
    reason: change.reason,
    ref: change.ref,
  }).onConflictDoNothing().returning({ id: creditLedger.id });
  if (inserted.length === 0) {
    return { applied: false, why: "duplicate", balance: user.credits };
  }
  await tx.update(users).set({ credits: next }).where(
    eq(users.id, change.userId),
  );
  return { applied: true, balance: next };
}
