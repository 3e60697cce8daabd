/**
 * Photo storage maintenance: anonymous uploads nobody claimed expire and are
 * removed, row and blob. (Blobs no row points at are removed by the orphan
 * sweep in server/generation/orphan-blob-sweep.ts, which asks photoKeysIn.)
 */
import { keyForLog } from "../storage/storage.ts";
import type { DbOrTx } from "../../db/client.ts";
import { log } from "../log.ts";
import { startPeriodicTask } from "../storage/periodic-task.ts";
import { deleteExpiredAnonymousPhotos, findPhotoKeysIn } from "./photos.repository.ts";
import type { PhotoDeps } from "./photo-upload.ts";

const SWEEP_BATCH = 500;

/**
 * Removes anonymous photos that expired at or before `now`: rows first (so
 * nothing can claim or reference a half-deleted photo; generations keep
 * working with photo_id set to null), then their blobs and what the image
 * models keep of them in memory. Returns how many.
 */
export async function sweepExpiredPhotos(deps: PhotoDeps, now = new Date()): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows = await deleteExpiredAnonymousPhotos(deps.db, now, SWEEP_BATCH);
    if (rows.length) deps.forgetPhotos?.(rows.map((r) => r.id));
    for (const { storageKey } of rows) {
      try {
        await deps.storage.delete(storageKey);
      } catch (error) {
        log.warn("expired photo blob not removed", { key: keyForLog(storageKey), error });
      }
    }
    removed += rows.length;
    if (rows.length < SWEEP_BATCH) return removed;
  }
}

/** Which of these storage keys are photos' blobs (the orphan sweep keeps them). */
export function photoKeysIn(db: DbOrTx, keys: string[]): Promise<Set<string>> {
  return findPhotoKeysIn(db, keys);
}

/**
 * Runs sweepExpiredPhotos now and then every `intervalMs` (default 10
 * minutes). On shutdown await stop(), which lets a run in progress end first.
 */
export function startPhotoSweeper(
  deps: PhotoDeps,
  opts: { intervalMs?: number } = {},
): { stop(): Promise<void> } {
  return startPeriodicTask(async () => {
    const removed = await sweepExpiredPhotos(deps);
    if (removed > 0) log.info("expired anonymous photos removed", { removed });
  }, { intervalMs: opts.intervalMs ?? 10 * 60_000, name: "photo sweep" });
}
