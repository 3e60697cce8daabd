/** Moves photo rows; no business rules here (expiry and claiming rules live in photos.service.ts). */
import { and, eq, gt, inArray, isNull, lte } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { photos } from "../../db/schema.ts";

export type PhotoRow = typeof photos.$inferSelect;
export type NewPhoto = typeof photos.$inferInsert;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when Postgres' uuid parser would accept the string (so a lookup can never 500). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

export async function insertPhoto(db: DbOrTx, values: NewPhoto): Promise<PhotoRow> {
  const [row] = await db.insert(photos).values(values).returning();
  return row;
}

/** Undefined for unknown ids and for strings that are not uuids. */
export async function findPhotoById(db: DbOrTx, id: string): Promise<PhotoRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(photos).where(eq(photos.id, id));
  return row;
}

/**
 * Gives an unowned, unexpired photo to `ownerId` in one conditional update,
 * so a claim and a concurrent sweep (or a second claimer) cannot both win.
 */
export async function claimAnonymousPhoto(
  db: DbOrTx,
  id: string,
  ownerId: string,
  now: Date,
): Promise<PhotoRow | undefined> {
  const [row] = await db.update(photos)
    .set({ ownerId, expiresAt: null })
    .where(and(eq(photos.id, id), isNull(photos.ownerId), gt(photos.expiresAt, now)))
    .returning();
  return row;
}

/** Deletes up to `limit` unowned photos that expired at or before `now`; returns their storage keys. */
export async function deleteExpiredAnonymousPhotos(
  db: DbOrTx,
  now: Date,
  limit: number,
): Promise<{ id: string; storageKey: string }[]> {
  const expired = and(isNull(photos.ownerId), lte(photos.expiresAt, now));
  const batch = db.select({ id: photos.id }).from(photos).where(expired).limit(limit);
  // The condition is repeated outside the subquery so Postgres re-checks it on a row
  // that a concurrent claim has just updated (the claim wins; the row is kept).
  return await db.delete(photos)
    .where(and(expired, inArray(photos.id, batch)))
    .returning({ id: photos.id, storageKey: photos.storageKey });
}
