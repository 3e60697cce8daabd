/** Moves user rows; no business rules here. */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { users } from "../../db/schema.ts";

export type UserRow = typeof users.$inferSelect;

export async function findUserById(
  db: DbOrTx,
  id: string,
): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(
    and(eq(users.id, id), isNull(users.deletedAt)),
  );
  return row;
}

/**
 * The live (not soft-deleted) account with this email, case-insensitively. The predicate
 * mirrors users_email_live_key, so the lookup uses that index and agrees with it.
 */
export async function findUserByEmail(
  db: DbOrTx,
  email: string,
): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(
    and(sql`lower(${users.email}) = lower(${email.trim()})`, isNull(users.deletedAt)),
  );
  return row;
}

export async function insertUser(
  db: DbOrTx,
  values: {
    email: string;
    passwordHash: string;
    fullName: string;
  },
): Promise<UserRow | undefined> {
  // No role: every account starts as "user" (the column default). A stored "admin" comes only
  // from `deno task admin`; ADMIN_EMAILS is applied when the row is read (users.service.ts).
  // onConflictDoNothing: an email a live account holds (users_email_live_key), even one
  // inserted by a concurrent register, gives no row instead of a 500.
  const [row] = await db.insert(users).values(values).onConflictDoNothing()
    .returning();
  return row;
}

export async function setUserRole(
  db: DbOrTx,
  id: string,
  role: "user" | "admin",
): Promise<void> {
  await db.update(users).set({ role }).where(eq(users.id, id));
}

/**
 * Which of `keys` a profile image still points at (profile images are
 * /api/uploads/<key> URLs when they live in this storage). The orphan blob
 * sweep keeps those.
 */
export async function findReferencedProfileImageKeys(db: DbOrTx, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const list = sql.join(keys.map((k) => sql`${k}`), sql`, `);
  const rows = await db.select({ url: users.profileImageUrl }).from(users)
    .where(sql`${users.profileImageUrl} is not null
      and regexp_replace(${users.profileImageUrl}, '^.*/', '') in (${list})`);
  return new Set(rows.map(({ url }) => url!.slice(url!.lastIndexOf("/") + 1)));
}
