/**
 * Moves the rows an account owns beyond its profile (generations and ledger
 * rows) for the dashboard's stats, data export and account deletion. No
 * business rules here.
 */
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { creditLedger, generations, users } from "../../db/schema.ts";

export type GenerationRow = typeof generations.$inferSelect;

export async function listGenerationsOfUser(db: DbOrTx, userId: string): Promise<GenerationRow[]> {
  return await db.select().from(generations).where(eq(generations.userId, userId))
    .orderBy(desc(generations.createdAt), desc(generations.id));
}

export async function countGenerationsByStatus(
  db: DbOrTx,
  userId: string,
): Promise<Record<string, number>> {
  const rows = await db.select({ status: generations.status, n: sql<number>`count(*)::int` })
    .from(generations).where(eq(generations.userId, userId)).groupBy(generations.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** How often each (studio, option, value) appears in the user's generations, counted in SQL. */
export async function countOptionValues(db: DbOrTx, userId: string) {
  const rows = await db.execute<{ studio_type: string; option: string; value: string; n: number }>(sql`
    select g.studio_type, kv.key as option, kv.value, count(*)::int as n
    from ${generations} g, jsonb_each_text(g.options) as kv
    where g.user_id = ${userId}
    group by g.studio_type, kv.key, kv.value`);
  // postgres.js answers an array, PGlite an object with rows.
  const list = (Array.isArray(rows) ? rows : (rows as unknown as { rows: unknown[] }).rows) as {
    studio_type: "makeup" | "hair" | "barber";
    option: string;
    value: string;
    n: number;
  }[];
  return list.map((r) => ({
    studioType: r.studio_type,
    option: r.option,
    value: r.value,
    count: Number(r.n),
  }));
}

export async function listLedgerOfUser(db: DbOrTx, userId: string) {
  return await db.select({
    delta: creditLedger.delta,
    balanceAfter: creditLedger.balanceAfter,
    reason: creditLedger.reason,
    ref: creditLedger.ref,
    createdAt: creditLedger.createdAt,
  }).from(creditLedger).where(eq(creditLedger.userId, userId))
    .orderBy(asc(creditLedger.createdAt), asc(creditLedger.id));
}

/** Deletes the user's generations; returns the storage keys of their results. */
export async function deleteGenerationsOfUser(db: DbOrTx, userId: string): Promise<string[]> {
  const rows = await db.delete(generations).where(eq(generations.userId, userId))
    .returning({ results: generations.results });
  return rows.flatMap((r) => Object.values(r.results).filter((k): k is string => !!k));
}

export async function setPasswordHash(db: DbOrTx, userId: string, passwordHash: string): Promise<void> {
  await db.update(users).set({ passwordHash }).where(eq(users.id, userId));
}

/** Sets the profile image URL; returns the one it replaced. */
export async function replaceProfileImageUrl(
  db: DbOrTx,
  userId: string,
  url: string,
): Promise<{ previous: string | null } | undefined> {
  const [before] = await db.select({ url: users.profileImageUrl }).from(users)
    .where(and(eq(users.id, userId), isNull(users.deletedAt))).for("update");
  if (!before) return undefined;
  await db.update(users).set({ profileImageUrl: url }).where(eq(users.id, userId));
  return { previous: before.url };
}

/**
 * Strips a deleted account's row down to what accounting needs: the id its
 * ledger rows point at. The email becomes a placeholder so the address can
 * register again; the password can no longer match anything.
 */
export async function anonymiseUser(db: DbOrTx, userId: string, at: Date): Promise<void> {
  await db.update(users).set({
    email: `deleted-${userId}@deleted.invalid`,
    passwordHash: "!deleted",
    fullName: "",
    profileImageUrl: null,
    isActive: false,
    deletedAt: sql`coalesce(${users.deletedAt}, ${at.toISOString()}::timestamptz)`,
  }).where(eq(users.id, userId));
}
