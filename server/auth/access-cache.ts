/**
 * A short-lived, bounded cache of the auth lookup (the account row and whether
 * its session is live), so a burst of reads by one signed-in user costs one
 * database round trip instead of one per request.
 *
 * An entry is used only while both hold:
 * - no write has reached the database from this process since it was read
 *   (db/write-epoch.ts), so logout, a password change, a credit change or an
 *   admin promotion made here show on the very next request;
 * - it is younger than MAX_AGE_MS, which bounds what another process's writes
 *   (several servers on one Postgres) can leave stale: a session revoked there
 *   stops working here within a second.
 * Only reads (GET, HEAD) use it; a write request always checks the database.
 */
import { writeEpoch } from "../../db/write-epoch.ts";
import type { UserRow } from "../users/users.repository.ts";

/** How old a cached lookup may be: the revocation window across processes. */
export const ACCESS_CACHE_MAX_AGE_MS = 1000;
/** Entries kept per database; the oldest go first. */
export const ACCESS_CACHE_MAX_ENTRIES = 10_000;

export interface SessionLookup {
  user: UserRow;
  sessionLive: boolean;
}

interface Entry {
  value: SessionLookup;
  readAt: number;
  epoch: number;
}

const caches = new WeakMap<object, Map<string, Entry>>();

function cacheOf(db: object): Map<string, Entry> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, cache = new Map());
  return cache;
}

/**
 * The lookup of (`userId`, `family`) from the cache when still valid, else from `load`
 * (stored only if no write started while it ran).
 */
export async function cachedSessionLookup(
  db: object,
  userId: string,
  family: string,
  load: () => Promise<SessionLookup | undefined>,
  now: () => number = performance.now.bind(performance),
): Promise<SessionLookup | undefined> {
  const epoch = writeEpoch(db);
  if (epoch === undefined) return load(); // a handle we cannot watch: never cache
  const cache = cacheOf(db);
  const key = `${userId}:${family}`;
  const hit = cache.get(key);
  if (hit && hit.epoch === epoch && now() - hit.readAt < ACCESS_CACHE_MAX_AGE_MS) return hit.value;
  const readAt = now();
  const value = await load();
  cache.delete(key);
  // A write that began while we read may or may not be in `value`: do not keep it.
  if (value && writeEpoch(db) === epoch) {
    // Map order is read order (a refreshed key is deleted and set again): the first is the oldest.
    if (cache.size >= ACCESS_CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { value, readAt, epoch });
  }
  return value;
}

/** Entries held for `db` (tests check the bound). */
export function accessCacheSize(db: object): number {
  return caches.get(db)?.size ?? 0;
}
