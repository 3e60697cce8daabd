/**
 * An owner deletes a photo: the row first (nothing can claim or use it after
 * that), then its blob, and the image models drop what they keep of it in
 * memory (its pixels, faces and masks, cached for its previews). Generations
 * made from it keep their results (their photo_id becomes null); a job still
 * waiting to run with it fails with a refund, because the photo is gone.
 */
import { keyForLog } from "../storage/storage.ts";
import { AppError } from "../http/errors.ts";
import { isUuid } from "../ids.ts";
import { log } from "../log.ts";
import { deleteOwnedPhoto } from "./photos.repository.ts";
import { PHOTO_NOT_FOUND } from "./photos.schemas.ts";
import type { PhotoDeps } from "./photo-upload.ts";

/** 404 for unknown ids and for other users' photos alike. */
export async function deletePhoto(deps: PhotoDeps, userId: string, photoId: string): Promise<void> {
  const row = isUuid(photoId) ? await deleteOwnedPhoto(deps.db, photoId.toLowerCase(), userId) : undefined;
  if (!row) throw new AppError(404, PHOTO_NOT_FOUND);
  deps.forgetPhotos?.([row.id]);
  try {
    await deps.storage.delete(row.storageKey);
  } catch (error) {
    // The row is gone, so nothing serves the key any more; the orphan sweep retries the blob.
    log.warn("deleted photo's blob not removed", { key: keyForLog(row.storageKey), error });
  }
}
