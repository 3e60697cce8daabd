/**
 * Ending sessions on behalf of account actions: a password change ends every
 * session but the caller's, an account deletion ends them all. Access tokens
 * of a revoked family stop working at once (the auth middleware checks it).
 */
import { and, eq, isNull, ne } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { refreshTokens } from "../../db/schema.ts";
import { lockUserFamilies, revokeAllForUser } from "./sessions.repository.ts";

/** Revokes every session (family) of `userId` except `keepFamily`; returns how many tokens it revoked. */
export async function revokeOtherSessions(
  db: DbOrTx,
  userId: string,
  keepFamily: string,
  at = new Date(),
): Promise<number> {
  // A rotation committing concurrently in another family would otherwise survive the UPDATE.
  await lockUserFamilies(db, userId);
  const rows = await db.update(refreshTokens).set({ revokedAt: at })
    .where(and(
      eq(refreshTokens.userId, userId),
      ne(refreshTokens.family, keepFamily),
      isNull(refreshTokens.revokedAt),
    ))
    .returning({ id: refreshTokens.id });
  return rows.length;
}

/** Revokes every session of `userId`. */
export async function revokeAllSessions(db: DbOrTx, userId: string, at = new Date()): Promise<void> {
  await revokeAllForUser(db, userId, at);
}
