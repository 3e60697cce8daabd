/** Moves photo rows; no business rules here (they live in photo-upload.ts, photo-sweeps.ts, ...). */
import { and, eq, gt, inArray, isNull, lte, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { photos } from "../../db/schema.ts";
import { isUuid } from "../ids.ts";

export type PhotoRow = typeof photos.$inferSelect;
export type NewPhoto = typeof photos.$inferInsert;

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
  // Rows are locked in id order, the order POST /api/generate claims photos in, so a sweep
  // and a claim of the same photos wait for each other instead of deadlocking.
  const batch = db.select({ id: photos.id }).from(photos).where(expired)
    .orderBy(photos.id).limit(limit).for("update");
  // The condition is repeated outside the subquery so Postgres re-checks it on a row
  // that a concurrent claim has just updated (the claim wins; the row is kept).
  return await db.delete(photos)
    .where(and(expired, inArray(photos.id, batch)))
    .returning({ id: photos.id, storageKey: photos.storageKey });
}

/** Which of `keys` are a photo's blob. */
export async function findPhotoKeysIn(db: DbOrTx, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.select({ key: photos.storageKey }).from(photos).where(
    inArray(photos.storageKey, keys),
  );
  return new Set(rows.map((r) => r.key));
}

/** Deletes the owner's photo row; undefined when it is not theirs (or does not exist). */
export async function deleteOwnedPhoto(
  db: DbOrTx,
  id: string,
  ownerId: string,
): Promise<PhotoRow | undefined> {
  const [row] = await db.delete(photos).where(and(eq(photos.id, id), eq(photos.ownerId, ownerId)))
    .returning();
  return row;
}

/** The owner's photos, newest first (account data export). */
export async function listPhotosByOwner(db: DbOrTx, ownerId: string): Promise<PhotoRow[]> {
  return await db.select().from(photos).where(eq(photos.ownerId, ownerId))
    .orderBy(sql`${photos.createdAt} desc`);
}

/** Deletes every photo row of the owner; returns their ids and storage keys (account deletion). */
export async function deletePhotosByOwner(
  db: DbOrTx,
  ownerId: string,
): Promise<{ id: string; storageKey: string }[]> {
  return await db.delete(photos).where(eq(photos.ownerId, ownerId))
    .returning({ id: photos.id, storageKey: photos.storageKey });
}
