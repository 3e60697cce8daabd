/**
 * Removes blobs that no row points at: results of a job whose process died
 * between storing an angle and completing the job, and uploads whose process
 * died between storage.put and the row insert. Every other path removes its
 * own blobs. Each domain says which keys it still uses (photos, generation
 * results, profile images); the sweep deletes only the others.
 */
import type { Db } from "../../db/client.ts";
import { log } from "../log.ts";
import { photoKeysIn } from "../photos/photo-sweeps.ts";
import { startPeriodicTask } from "../storage/periodic-task.ts";
import { type BlobStorage, keyForLog } from "../storage/storage.ts";
import { profileImageKeysIn } from "../users/users.service.ts";
import { findReferencedResultKeys } from "./generation.repository.ts";

const SWEEP_BATCH = 500;

/**
 * A blob younger than this may be an upload or a result whose row is not
 * written yet. It must outlast the longest gap between a put and its row: a
 * job stores its first angle up to 4 model calls before completing, and
 * JOB_TIMEOUT_SECONDS is at most 600 s, so 40 minutes.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

async function referencedKeys(db: Db, keys: string[]): Promise<Set<string>> {
  const sets = await Promise.all([
    photoKeysIn(db, keys),
    findReferencedResultKeys(db, keys),
    profileImageKeysIn(db, keys),
  ]);
  return new Set(sets.flatMap((s) => [...s]));
}

/**
 * Deletes unreferenced blobs older than `minAgeMs`. Walks the whole storage,
 * so it runs rarely. Returns how many blobs it removed.
 */
export async function sweepOrphanBlobs(
  deps: { db: Db; storage: BlobStorage },
  now = new Date(),
  minAgeMs = ORPHAN_MIN_AGE_MS,
  shouldStop: () => boolean = () => false,
): Promise<number> {
  const cutoff = now.getTime() - minAgeMs;
  let removed = 0;
  let batch: string[] = [];
  const flush = async () => {
    const referenced = await referencedKeys(deps.db, batch);
    for (const key of batch) {
      if (referenced.has(key)) continue;
      try {
        await deps.storage.delete(key);
        removed++;
      } catch (error) {
        log.warn("orphan blob not removed", { key: keyForLog(key), error });
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

/** sweepOrphanBlobs at start and then every `intervalMs` (default 6 hours). */
export function startOrphanBlobSweeper(
  deps: { db: Db; storage: BlobStorage },
  opts: { intervalMs?: number } = {},
): { stop(): Promise<void> } {
  return startPeriodicTask(async (stopped) => {
    const removed = await sweepOrphanBlobs(deps, new Date(), ORPHAN_MIN_AGE_MS, stopped);
    if (removed > 0) log.info("orphan blobs removed", { removed });
  }, { intervalMs: opts.intervalMs ?? 6 * 60 * 60_000, name: "orphan blob sweep" });
}
