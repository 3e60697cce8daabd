/**
 * Photo rules: what an upload must be, how it is stored, who may use it,
 * when anonymous uploads expire, and which stored images may be served.
 */
import type { Db, DbOrTx } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { isUuid } from "../ids.ts";
import { ImageInputError, MAX_INPUT_PIXELS, normalizePhoto } from "../imaging/normalize-photo.ts";
import { log } from "../log.ts";
import { sha256Hex } from "../storage/hex.ts";
import { type BlobStorage, isValidKey, mimeForKey, newKey } from "../storage/storage.ts";
import {
  claimAnonymousPhoto,
  deleteExpiredAnonymousPhotos,
  deletePhotosByOwner,
  findPhotoById,
  findReferencedStorageKeys,
  insertPhoto,
  listPhotosByOwner,
  type PhotoRow,
} from "./photos.repository.ts";
import {
  ANONYMOUS_PHOTO_TTL_MS,
  FILE_TOO_LARGE,
  INVALID_FILE_TYPE,
  MAX_UPLOAD_BYTES,
  NO_FILE_UPLOADED,
  PHOTO_NOT_FOUND,
  UPLOAD_SUCCEEDED,
  type UploadResponse,
} from "./photos.schemas.ts";

export type { PhotoRow } from "./photos.repository.ts";

export interface PhotoDeps {
  db: Db;
  storage: BlobStorage;
}

export const uploadUrl = (key: string) => `/api/uploads/${key}`;

function toAppError(e: ImageInputError): AppError {
  switch (e.problem) {
    case "unsupported-format":
      return new AppError(415, INVALID_FILE_TYPE);
    case "unsupported-codec":
      return new AppError(
        415,
        "Invalid File Type: HEIC photos cannot be read here. Please upload a JPEG, PNG, WebP or AVIF image.",
      );
    case "too-many-pixels":
      return new AppError(
        422,
        `Image Too Large: ${e.message}. Please upload a photo of at most ${
          MAX_INPUT_PIXELS / 1_000_000
        } megapixels.`,
      );
    case "unreadable":
      return new AppError(
        422,
        "Unreadable Image: the file looks damaged or incomplete. Please upload it again.",
      );
  }
}

/**
 * Validates, normalises and stores an upload. `ownerId` null means an
 * anonymous visitor: the photo expires after ANONYMOUS_PHOTO_TTL_MS unless
 * a signed-in user claims it by generating with it.
 */
export async function uploadPhoto(
  deps: PhotoDeps,
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
    if (e instanceof ImageInputError) throw toAppError(e);
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

const SWEEP_BATCH = 500;

/**
 * Removes anonymous photos that expired at or before `now`: rows first (so
 * nothing can claim or reference a half-deleted photo; generations keep
 * working with photo_id set to null), then their blobs. Returns how many.
 */
export async function sweepExpiredPhotos(deps: PhotoDeps, now = new Date()): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows = await deleteExpiredAnonymousPhotos(deps.db, now, SWEEP_BATCH);
    for (const { storageKey } of rows) {
      try {
        await deps.storage.delete(storageKey);
      } catch (error) {
        log.warn("expired photo blob not removed", { key: storageKey, error });
      }
    }
    removed += rows.length;
    if (rows.length < SWEEP_BATCH) return removed;
  }
}

/**
 * A blob younger than this may be an upload or a result whose row is not
 * written yet. It must outlast the longest gap between a put and its row: a
 * job stores its first angle up to 4 model calls before completing, and
 * JOB_TIMEOUT_SECONDS is at most 600 s, so 40 minutes.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

/**
 * Deletes blobs no row points at (see findReferencedStorageKeys) that are
 * older than `minAgeMs`. They are left by a crash between storage.put and the
 * row insert of an upload, or between storing a result and completing its
 * job; every other path removes its own blobs. Walks the whole storage, so it
 * runs rarely. Returns how many blobs it removed.
 */
export async function sweepOrphanBlobs(
  deps: PhotoDeps,
  now = new Date(),
  minAgeMs = ORPHAN_MIN_AGE_MS,
  shouldStop: () => boolean = () => false,
): Promise<number> {
  const cutoff = now.getTime() - minAgeMs;
  let removed = 0;
  let batch: string[] = [];
  const flush = async () => {
    const referenced = await findReferencedStorageKeys(deps.db, batch);
    for (const key of batch) {
      if (referenced.has(key)) continue;
      try {
        await deps.storage.delete(key);
        removed++;
      } catch (error) {
        log.warn("orphan blob not removed", { key, error });
      }
    }
    batch = [];
  };
  for await (const blob of deps.storage.list()) {
    if (shouldStop()) return removed;
    if (blob.modifiedAt.getTime() > cutoff) continue;
    batch.push(blob.key);
    if (batch.length >= SWEEP_BATCH) await flush();
  }
  if (batch.length > 0 && !shouldStop()) await flush();
  return removed;
}

export interface PhotoSweeperOptions {
  /** How often expired anonymous photos are removed (default 10 minutes). */
  intervalMs?: number;
  /** How often the (whole-storage) orphan blob sweep runs (default 6 hours; also once at start). */
  orphanIntervalMs?: number;
}

/**
 * Runs sweepExpiredPhotos now and then every `intervalMs`, and
 * sweepOrphanBlobs at start and then every `orphanIntervalMs` (runs never
 * overlap). The timer does not keep the process alive; on shutdown await
 * stop(), which lets a run in progress end first.
 */
export function startPhotoSweeper(
  deps: PhotoDeps,
  opts: PhotoSweeperOptions = {},
): { stop(): Promise<void> } {
  const intervalMs = opts.intervalMs ?? 10 * 60_000;
  const orphanIntervalMs = opts.orphanIntervalMs ?? 6 * 60 * 60_000;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let nextOrphanSweep = 0;
  const run = async () => {
    try {
      const removed = await sweepExpiredPhotos(deps);
      if (removed > 0) log.info("expired anonymous photos removed", { removed });
      if (!stopped && Date.now() >= nextOrphanSweep) {
        nextOrphanSweep = Date.now() + orphanIntervalMs;
        const orphans = await sweepOrphanBlobs(deps, new Date(), ORPHAN_MIN_AGE_MS, () => stopped);
        if (orphans > 0) log.info("orphan blobs removed", { removed: orphans });
      }
    } catch (error) {
      if (!stopped) log.error("photo sweep failed", { error });
    }
    if (!stopped) schedule(intervalMs);
  };
  const schedule = (ms: number) => {
    const id = setTimeout(() => {
      running = run();
    }, ms);
    Deno.unrefTimer(id);
    timer = id;
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export interface StoredImage {
  key: string;
  bytes: Uint8Array;
  mime: string;
  ext: string;
}

/**
 * Any image this server stored (uploads and generated results share the
 * storage), by key. Keys that newKey() could not have made are refused
 * before storage is touched, so no request text ever becomes a path.
 */
export async function readStoredImage(storage: BlobStorage, key: string): Promise<StoredImage> {
  if (!isValidKey(key)) throw new AppError(404, "Image not found");
  const bytes = await storage.get(key);
  if (!bytes) throw new AppError(404, "Image not found");
  return { key, bytes, mime: mimeForKey(key), ext: key.slice(key.lastIndexOf(".") + 1) };
}

const KNOWN_EXT = /\.(png|jpe?g|webp|avif|heic|heif|gif)$/;

/**
 * `styletwin-<name>.<real ext>`: the requested name lower-cased and reduced
 * to [a-z0-9-] (its own extension and styletwin- prefix dropped), or the
 * key's first 8 characters when nothing usable is left.
 */
export function downloadFilename(key: string, requested?: string): string {
  const ext = key.slice(key.lastIndexOf(".") + 1);
  const base = (requested ?? "")
    .toLowerCase()
    .trim()
    .replace(KNOWN_EXT, "")
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^styletwin(-|$)/, "")
    .slice(0, 80)
    .replace(/-+$/, "");
  return `styletwin-${base || key.slice(0, 8)}.${ext}`;
}

/** The user's photos, newest first (the dashboard's data export). */
export function listPhotosOf(db: DbOrTx, ownerId: string): Promise<PhotoRow[]> {
  return listPhotosByOwner(db, ownerId);
}

/**
 * Deletes the user's photo rows inside the caller's transaction (account
 * deletion) and returns their storage keys: the caller removes the blobs once
 * the transaction has committed, so a rollback never leaves rows without files.
 */
export function deletePhotoRowsOf(tx: DbOrTx, ownerId: string): Promise<string[]> {
  return deletePhotosByOwner(tx, ownerId);
}
