/** Moves user rows; no business rules here. */
import { and, eq, isNull } from "drizzle-orm";
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

export async function findUserByEmail(
  db: DbOrTx,
  email: string,
): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(
    and(eq(users.email, email), isNull(users.deletedAt)),
  );
  return row;
}

export async function insertUser(
  db: DbOrTx,
  values: {
    email: string;
    passwordHash: string;
    fullName: string;
    role: "user" | "admin";
  },
): Promise<UserRow | undefined> {
  // onConflictDoNothing: a concurrent register of the same email gets no row, not a 500.
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
