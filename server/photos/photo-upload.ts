/**
 * Taking photos in: what an upload must be, how it is stored, and who may
 * generate with a photo (an anonymous upload is claimed by its first user).
 */
import type { Db, DbOrTx } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { isUuid } from "../ids.ts";
import { ImageInputError, normalizePhoto } from "../imaging/normalize-photo.ts";
import type { ImageModel } from "../imaging/image-model.ts";
import { log } from "../log.ts";
import { sha256Hex } from "../hex-digest.ts";
import { type BlobStorage, newKey } from "../storage/storage.ts";
import { claimAnonymousPhoto, findPhotoById, insertPhoto, type PhotoRow } from "./photos.repository.ts";
import {
  ANONYMOUS_PHOTO_TTL_MS,
  FILE_TOO_LARGE,
  MAX_UPLOAD_BYTES,
  NO_FILE_UPLOADED,
  PHOTO_NOT_FOUND,
  UPLOAD_SUCCEEDED,
  type UploadResponse,
} from "./photos.schemas.ts";
import { uploadUrl } from "./photo-serving.ts";
import { imageInputAppError } from "./image-input-error.ts";

export type { PhotoRow } from "./photos.repository.ts";

export interface PhotoDeps {
  db: Db;
  storage: BlobStorage;
  /** Deleted photos, for the image models to drop what they keep of them in memory (see ImageModel.forget). */
  forgetPhotos?: (photoIds: readonly string[]) => void;
}

/**
 * Validates, normalises and stores an upload. `ownerId` null means an
 * anonymous visitor: the photo expires after ANONYMOUS_PHOTO_TTL_MS unless
 * a signed-in user claims it by generating with it. The image model, if it
 * can, prepares the stored photo in the background (the answer does not wait).
 */
export async function uploadPhoto(
  deps: PhotoDeps & { preparePhoto?: ImageModel["prepare"] },
  input: { file: Blob; ownerId: string | null },
  now = new Date(),
): Promise<UploadResponse> {
  const { file, ownerId } = input;
  if (file.size === 0) throw new AppError(422, NO_FILE_UPLOADED);
  if (file.size > MAX_UPLOAD_BYTES) throw new AppError(413, FILE_TOO_LARGE);

  let photo;
  try {
    photo = await normalizePhoto(new Uint8Array(await file.arrayBuffer()));
  } catch (e) {
    if (e instanceof ImageInputError) throw imageInputAppError(e);
    throw e;
  }

  // Blob first, then the row; a failed insert removes the blob, so a failure leaves neither.
  const key = newKey(photo.ext);
  await deps.storage.put(key, photo.bytes);
  let row: PhotoRow;
  try {
    row = await insertPhoto(deps.db, {
      ownerId,
      storageKey: key,
      mime: photo.mime,
      width: photo.width,
      height: photo.height,
      bytes: photo.bytes.byteLength,
      sha256: await sha256Hex(photo.bytes),
      expiresAt: ownerId ? null : new Date(now.getTime() + ANONYMOUS_PHOTO_TTL_MS),
    });
  } catch (e) {
    await deps.storage.delete(key).catch((err) =>
      log.warn("orphan upload blob not removed", { key, error: err })
    );
    throw e;
  }
  deps.preparePhoto?.({ photoId: row.id, photo: photo.bytes }).catch(() => {});
  return { photoId: row.id, url: uploadUrl(key), message: UPLOAD_SUCCEEDED };
}

/**
 * The photo `userId` may generate with: their own, or an anonymous one that
 * has not expired, which this CLAIMS (owner set, expiry cleared). Call it
 * inside the generate transaction so a failed generate rolls the claim back.
 * Everything else (unknown, expired, someone else's, not a uuid) is the same 404.
 */
export async function usablePhotoFor(
  tx: DbOrTx,
  photoId: string,
  userId: string,
): Promise<PhotoRow> {
  if (!isUuid(photoId)) throw new AppError(404, PHOTO_NOT_FOUND);
  const photo = await findPhotoById(tx, photoId);
  if (photo?.ownerId === userId) return photo;
  if (photo && photo.ownerId === null) {
    const claimed = await claimAnonymousPhoto(tx, photoId, userId, new Date());
    if (claimed) return claimed;
    // The claim lost a race. If the winner was another request of this same user
    // (two generates with one fresh upload), the photo is theirs now: re-read it.
    const again = await findPhotoById(tx, photoId);
    if (again?.ownerId === userId) return again;
  }
  throw new AppError(404, PHOTO_NOT_FOUND);
}

/**
 * usablePhotoFor for several ids at once (the avatar and its references),
 * keyed by lower-cased id. Claims lock rows, so they are taken in one global
 * order (sorted ids): two users claiming the same anonymous photos in opposite
 * order then queue behind each other instead of deadlocking (Postgres 40P01).
 */
export async function usablePhotosFor(
  tx: DbOrTx,
  photoIds: string[],
  userId: string,
): Promise<Map<string, PhotoRow>> {
  // Every id is checked before the first lookup: a malformed one is a 404 with no work done.
  if (!photoIds.every(isUuid)) throw new AppError(404, PHOTO_NOT_FOUND);
  const sorted = [...new Set(photoIds.map((id) => id.toLowerCase()))].sort();
  const found = new Map<string, PhotoRow>();
  for (const id of sorted) found.set(id, await usablePhotoFor(tx, id, userId));
  return found;
}
