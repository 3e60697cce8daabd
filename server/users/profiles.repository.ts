/** Moves profile rows; validation and defaults live in profile.service.ts. */
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { profiles } from "../../db/schema.ts";

export type ProfileRow = typeof profiles.$inferSelect;
export type ProfileValues = Partial<Omit<typeof profiles.$inferInsert, "userId" | "createdAt" | "updatedAt">>;

export async function findProfile(db: DbOrTx, userId: string): Promise<ProfileRow | undefined> {
  const [row] = await db.select().from(profiles).where(eq(profiles.userId, userId));
  return row;
}

/** Creates the row on the first save; later saves change only the given columns. */
export async function upsertProfile(db: DbOrTx, userId: string, values: ProfileValues): Promise<ProfileRow> {
  const now = new Date();
  const [row] = await db.insert(profiles).values({ ...values, userId, updatedAt: now })
    .onConflictDoUpdate({ target: profiles.userId, set: { ...values, updatedAt: now } })
    .returning();
  return row;
}

export async function deleteProfile(db: DbOrTx, userId: string): Promise<void> {
  await db.delete(profiles).where(eq(profiles.userId, userId));
}
