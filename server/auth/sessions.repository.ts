/** Refresh-token rows: one family per sign-in, one row per rotation. */
import { and, eq, isNull } from "drizzle-orm";
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

export async function revokeAllForUser(
  db: DbOrTx,
  userId: string,
  at: Date,
): Promise<void> {
  await db.update(refreshTokens).set({ revokedAt: at })
    .where(
      and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)),
    );
}

/** A session (family) is live while it has a row that is not revoked. */
export async function isFamilyLive(
  db: DbOrTx,
  family: string,
): Promise<boolean> {
  const rows = await db.select({ id: refreshTokens.id }).from(refreshTokens)
    .where(
      and(eq(refreshTokens.family, family), isNull(refreshTokens.revokedAt)),
    ).limit(1);
  return rows.length > 0;
}
