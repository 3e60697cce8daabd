/**
 * The credit ledger's rules. Every balance change is one ledger row with a
 * unique (reason, ref) idempotency key, written in the same transaction as the
 * cached balance on users.credits, so the two can never disagree and a retried
 * side effect (a refund, a payment fulfilment) applies only once.
 */
import type { DbOrTx } from "../../db/client.ts";
import { changeBalance, lockBalance } from "./credits.repository.ts";

export type LedgerReason =
  | "welcome"
  | "generation_charge"
  | "generation_refund"
  | "purchase"
  | "subscription"
  | "payment_refund"
  | "adjustment";

export interface CreditChange {
  userId: string;
  /** Positive grants, negative debits. */
  delta: number;
  reason: LedgerReason;
  /** Identifies the side effect (a generation id, a checkout session id, an invoice id). */
  ref: string;
}

export type CreditResult =
  | { applied: true; balance: number; delta: number }
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
  const { before, after } = await changeBalance(tx, change);
  if (before === null) return { applied: false, why: "no_user", balance: 0 };
  if (after !== null) return { applied: true, balance: after, delta: change.delta };
  if (before + change.delta < 0) return { applied: false, why: "insufficient", balance: before };
  return { applied: false, why: "duplicate", balance: before };
}

/** Adds credits (a purchase, a subscription period, a welcome gift). */
export function grantCredits(
  tx: DbOrTx,
  change: Omit<CreditChange, "delta"> & { credits: number },
): Promise<CreditResult> {
  return applyCreditChange(tx, {
    userId: change.userId,
    delta: change.credits,
    reason: change.reason,
    ref: change.ref,
  });
}

/**
 * Takes back up to `credits` (a refunded payment): whatever the user has left of them, never
 * below 0. The user row stays locked from the read to the write, so the clamp is exact.
 */
export async function clawBackCredits(
  tx: DbOrTx,
  change: Omit<CreditChange, "delta"> & { credits: number },
): Promise<CreditResult> {
  const balance = await lockBalance(tx, change.userId);
  if (balance === null) return { applied: false, why: "no_user", balance: 0 };
  const take = Math.min(balance, Math.max(0, change.credits));
  return applyCreditChange(tx, {
    userId: change.userId,
    delta: -take,
    reason: change.reason,
    ref: change.ref,
  });
}
