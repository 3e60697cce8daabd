/** A user's photos as a whole: the account data export lists them, account deletion removes them. */
import type { DbOrTx } from "../../db/client.ts";
import { deletePhotosByOwner, listPhotosByOwner, type PhotoRow } from "./photos.repository.ts";

/** The user's photos, newest first (the dashboard's data export). */
export function listPhotosOf(db: DbOrTx, ownerId: string): Promise<PhotoRow[]> {
  return listPhotosByOwner(db, ownerId);
}

/**
 * Deletes the user's photo rows inside the caller's transaction (account
 * deletion) and returns their ids and storage keys: the caller removes the
 * blobs (and has the image models forget the photos) once the transaction has
 * committed, so a rollback never leaves rows without files.
 */
export function deletePhotoRowsOf(
  tx: DbOrTx,
  ownerId: string,
): Promise<{ id: string; storageKey: string }[]> {
  return deletePhotosByOwner(tx, ownerId);
}
