/**
 * POST /api/users/profile/image: any photo the upload pipeline accepts,
 * square-cropped around the face and stored small; the previous picture is
 * removed once the new one is in place.
 */
import type { Db } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { ImageInputError } from "../imaging/normalize-photo.ts";
import { squarePortrait } from "../imaging/square-portrait.ts";
import { log } from "../log.ts";
import { FILE_TOO_LARGE, MAX_UPLOAD_BYTES, NO_FILE_UPLOADED } from "../photos/photos.schemas.ts";
import { imageInputAppError } from "../photos/image-input-error.ts";
import { uploadUrl } from "../photos/photo-serving.ts";
import { type BlobStorage, isValidKey, newKey } from "../storage/storage.ts";
import { replaceProfileImageUrl } from "./account-data.repository.ts";
import { PROFILE_IMAGE_SIZE } from "./users.schemas.ts";

export interface ProfileImageDeps {
  db: Db;
  storage: BlobStorage;
}

/** The storage key of an /api/uploads/<key> URL, or null for anything else. */
export function storageKeyOf(url: string | null): string | null {
  if (!url?.startsWith("/api/uploads/")) return null;
  const key = url.slice("/api/uploads/".length);
  return isValidKey(key) ? key : null;
}

export async function setProfileImage(
  deps: ProfileImageDeps,
  userId: string,
  file: Blob,
): Promise<{ image_url: string }> {
  if (file.size === 0) throw new AppError(422, NO_FILE_UPLOADED, { code: "no_file" });
  if (file.size > MAX_UPLOAD_BYTES) throw new AppError(413, FILE_TOO_LARGE);
  let portrait;
  try {
    portrait = await squarePortrait(new Uint8Array(await file.arrayBuffer()), PROFILE_IMAGE_SIZE);
  } catch (e) {
    if (e instanceof ImageInputError) throw imageInputAppError(e);
    throw e;
  }
  // New blob first, then the row, then the old blob: a failure leaves the old picture working.
  const key = newKey(portrait.ext);
  await deps.storage.put(key, portrait.bytes);
  const url = uploadUrl(key);
  let replaced;
  try {
    replaced = await deps.db.transaction((tx) => replaceProfileImageUrl(tx, userId, url));
  } catch (e) {
    await deps.storage.delete(key).catch(() => {});
    throw e;
  }
  if (!replaced) {
    await deps.storage.delete(key).catch(() => {});
    throw new AppError(401, "Not authenticated");
  }
  const oldKey = storageKeyOf(replaced.previous);
  if (oldKey && oldKey !== key) {
    // A failed delete leaves an unreferenced blob, which the orphan sweep removes later.
    await deps.storage.delete(oldKey).catch((error) =>
      log.warn("old profile image not removed", { key: oldKey, error })
    );
  }
  return { image_url: url };
}
