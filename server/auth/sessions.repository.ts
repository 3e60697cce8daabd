/** Refresh-token rows: one family per sign-in, one row per rotation. */
import { and, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { refreshTokens } from "../../db/schema.ts";

export type RefreshTokenRow = typeof refreshTokens.$inferSelect;

export async function insertRefreshToken(
  db: DbOrTx,
  values: {
    tokenHash: string;
    userId: string;
    family: string;
    expiresAt: Date;
  },
): Promise<void> {
  await db.insert(refreshTokens).values(values);
}

/** The row of a token hash, without locking (to learn its family before locking that). */
export async function findRefreshToken(db: DbOrTx, tokenHash: string) {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
  return row as RefreshTokenRow | undefined;
}

// The first key of the two-key advisory lock space: "session family" locks (the key space of
// one-bigint locks, such as the migration lock, never overlaps it).
const FAMILY_LOCK_CLASS = 0x5e55;

/**
 * Serialises every change to one token family (rotation, reuse detection, logout,
 * revocation) until the transaction ends. Without it, an UPDATE revoking a family cannot
 * see a token a concurrent rotation is about to commit, and that token lives on. Call it
 * inside a transaction, then (re-)read the family's rows. Families are locked in sorted
 * order so two transactions taking several never deadlock.
 */
export async function lockFamilies(tx: DbOrTx, families: string[]): Promise<void> {
  for (const family of [...new Set(families)].sort()) {
    await tx.execute(sql`select pg_advisory_xact_lock(${FAMILY_LOCK_CLASS}, hashtext(${family}))`);
  }
}

/** Locks every family of a user that still has a live token (see lockFamilies). */
export async function lockUserFamilies(tx: DbOrTx, userId: string): Promise<void> {
  const rows = await tx.selectDistinct({ family: refreshTokens.family }).from(refreshTokens)
    .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
  await lockFamilies(tx, rows.map((r) => r.family));
}

export async function findRefreshTokenForUpdate(db: DbOrTx, tokenHash: string) {
  const [row] = await db.select().from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, tokenHash)).for("update");
  return row as RefreshTokenRow | undefined;
}

export async function markRotated(
  db: DbOrTx,
  id: string,
  at: Date,
): Promise<void> {
  await db.update(refreshTokens).set({ rotatedAt: at }).where(
    eq(refreshTokens.id, id),
  );
}

export async function revokeFamily(
  db: DbOrTx,
  family: string,
  at: Date,
): Promise<void> {
  await db.update(refreshTokens).set({ revokedAt: at })
    .where(
      and(eq(refreshTokens.family, family), isNull(refreshTokens.revokedAt)),
    );
}

/** Revokes every session of a user; locks its families first (call inside a transaction). */
export async function revokeAllForUser(
  db: DbOrTx,
  userId: string,
  at: Date,
): Promise<void> {
  await lockUserFamilies(db, userId);
  await db.update(refreshTokens).set({ revokedAt: at })
    .where(
      and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)),
    );
}

/**
 * Deletes refresh-token rows nobody can use any more: expired ones, every row of a revoked
 * family, and rotated rows older than `rotatedBefore` (past that age a replay is simply an
 * unknown token, still refused). Returns how many rows went.
 */
export async function deleteDeadRefreshTokens(
  db: DbOrTx,
  now: Date,
  rotatedBefore: Date,
): Promise<number> {
  const gone = await db.delete(refreshTokens).where(or(
    lt(refreshTokens.expiresAt, now),
    isNotNull(refreshTokens.revokedAt),
    lt(refreshTokens.rotatedAt, rotatedBefore),
  )).returning({ id: refreshTokens.id });
  return gone.length;
}
