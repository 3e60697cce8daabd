/** The one read behind every authenticated request: the account and whether its session is live. */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { refreshTokens, users } from "../../db/schema.ts";
import type { UserRow } from "../users/users.repository.ts";

/**
 * The live (not deleted) account `userId` and whether session `family` still has an unrevoked
 * row, in one round trip (two indexed lookups: users' primary key, refresh_tokens_family_idx).
 */
export async function findUserAndSession(
  db: DbOrTx,
  userId: string,
  family: string,
): Promise<{ user: UserRow; sessionLive: boolean } | undefined> {
  const [row] = await db.select({
    user: users,
    sessionLive: sql<
      boolean
    >`exists (select 1 from ${refreshTokens} where ${refreshTokens.family} = ${family} and ${refreshTokens.revokedAt} is null)`
      .mapWith(Boolean),
  }).from(users).where(and(eq(users.id, userId), isNull(users.deletedAt)));
  return row;
}
