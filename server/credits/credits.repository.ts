/**
 * Data access for the credit ledger: the cached balance on users.credits and
 * the ledger rows. No rules here; credits.service.ts decides what may change.
 */
import { and, eq, like, type SQL, sql } from "drizzle-orm";
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

export interface BalanceChange {
  userId: string;
  delta: number;
  reason: string;
  ref: string;
}

/**
 * One balance change as three CTEs of a single statement (one round trip, where a lock, an
 * insert and an update were three; on PGlite every round trip inside a transaction holds its one
 * connection). `locked` locks and reads the user row (only when `onlyIf` holds, if given),
 * `ledger` inserts the ledger row when the new balance is not negative (nothing when its
 * (reason, ref) key exists), and `changed` sets the balance to that row's balance_after only when
 * it was inserted. The lock is taken before the insert reads the balance: a concurrent change of
 * the same user waits, and this statement then reads the balance that change committed.
 */
export function balanceChangeCtes(change: BalanceChange, onlyIf?: SQL): SQL {
  const { userId, delta, reason, ref } = change;
  return sql`locked as (
      select ${users.credits} as credits from ${users}
      where ${users.id} = ${userId}${onlyIf ? sql` and ${onlyIf}` : sql``} for no key update
    ), ledger as (
      insert into ${creditLedger} (user_id, delta, balance_after, reason, ref)
      select ${userId}::uuid, ${delta}::int, credits + ${delta}::int, ${reason}, ${ref} from locked
      where credits + ${delta}::int >= 0
      on conflict do nothing
      returning balance_after
    ), changed as (
      update ${users} set credits = ledger.balance_after from ledger where ${users.id} = ${userId}
      returning ledger.balance_after
    )`;
}

/** The rows of `db.execute`: postgres.js answers an array of them, PGlite an object holding them. */
export function executedRows<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

const intOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * Applies one balance change (balanceChangeCtes). `before` is null when the user does not
 * exist; `after` is null when nothing changed.
 */
export async function changeBalance(
  tx: DbOrTx,
  change: BalanceChange,
): Promise<{ before: number | null; after: number | null }> {
  const [row] = executedRows<{ before: unknown; after: unknown }>(
    await tx.execute(sql`with ${balanceChangeCtes(change)}
      select (select credits from locked) as before, (select balance_after from changed) as after`),
  );
  return { before: intOrNull(row?.before), after: intOrNull(row?.after) };
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
