/** Moves photo rows; no business rules here (expiry and claiming rules live in photos.service.ts). */
import { and, eq, gt, inArray, isNotNull, isNull, lte, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { generations, photos, users } from "../../db/schema.ts";
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

/**
 * Which of `keys` a row still points at: a photo's blob, any generation
 * result angle, or a profile image served from storage. The orphan sweep
 * deletes only the others.
 */
export async function findReferencedStorageKeys(db: DbOrTx, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const wanted = new Set(keys);
  const list = sql.join(keys.map((k) => sql`${k}`), sql`, `);
  const fromPhotos = await db.select({ key: photos.storageKey }).from(photos)
    .where(inArray(photos.storageKey, keys));
  // results is {angle: key}; no index covers its values, which is acceptable for a rare sweep.
  const fromResults = await db.select({ results: generations.results }).from(generations)
    .where(sql`exists (select 1 from jsonb_each_text(${generations.results}) as r(angle, key)
      where r.key in (${list}))`);
  // Profile images are /api/uploads/<key> URLs when they live in this storage.
  const fromProfiles = await db.select({ url: users.profileImageUrl }).from(users)
    .where(and(
      isNotNull(users.profileImageUrl),
      sql`regexp_replace(${users.profileImageUrl}, '^.*/', '') in (${list})`,
    ));
  const referenced = new Set<string>(fromPhotos.map((r) => r.key));
  for (const { results } of fromResults) {
    for (const key of Object.values(results)) if (key && wanted.has(key)) referenced.add(key);
  }
  for (const { url } of fromProfiles) referenced.add(url!.slice(url!.lastIndexOf("/") + 1));
  return referenced;
}

/** The owner's photos, newest first (account data export). */
export async function listPhotosByOwner(db: DbOrTx, ownerId: string): Promise<PhotoRow[]> {
  return await db.select().from(photos).where(eq(photos.ownerId, ownerId))
    .orderBy(sql`${photos.createdAt} desc`);
}

/** Deletes every photo row of the owner; returns their storage keys (account deletion). */
export async function deletePhotosByOwner(db: DbOrTx, ownerId: string): Promise<string[]> {
  const rows = await db.delete(photos).where(eq(photos.ownerId, ownerId))
    .returning({ storageKey: photos.storageKey });
  return rows.map((r) => r.storageKey);
}
