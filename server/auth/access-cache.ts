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
/** From this age an entry is reloaded in the background while it is still answered from. */
export const ACCESS_CACHE_REFRESH_AFTER_MS = 750;
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

interface Flight {
  promise: Promise<SessionLookup | undefined>;
  readAt: number;
  epoch: number;
}

const caches = new WeakMap<object, Map<string, Entry>>();
const flights = new WeakMap<object, Map<string, Flight>>();

function mapOf<V>(maps: WeakMap<object, Map<string, V>>, db: object): Map<string, V> {
  let map = maps.get(db);
  if (!map) maps.set(db, map = new Map());
  return map;
}

/**
 * The lookup of (`userId`, `family`) from the cache when still valid, else from `load`
 * (stored only if no write started while it ran).
 *
 * Under a steady stream of reads the entry would expire under all of them at once, and every
 * request arriving during the reload would send its own copy of the query (50 concurrent
 * requests: 50 queries queued on the pool, the p99 of GET /api/users/me). So:
 * - one load per key is in flight at a time; a request joins it when it started under the
 *   same write epoch less than MAX_AGE_MS ago (its answer is then as fresh as a cached one);
 * - an entry past REFRESH_AFTER_MS is still answered from, and reloaded in the background,
 *   so a busy session never waits for the reload. An entry is never used past MAX_AGE_MS.
 */
export function cachedSessionLookup(
  db: object,
  userId: string,
  family: string,
  load: () => Promise<SessionLookup | undefined>,
  now: () => number = performance.now.bind(performance),
): Promise<SessionLookup | undefined> {
  const epoch = writeEpoch(db);
  if (epoch === undefined) return load(); // a handle we cannot watch: never cache
  const key = `${userId}:${family}`;
  const hit = caches.get(db)?.get(key);
  if (hit && hit.epoch === epoch) {
    const age = now() - hit.readAt;
    if (age < ACCESS_CACHE_MAX_AGE_MS) {
      if (age >= ACCESS_CACHE_REFRESH_AFTER_MS) reload(db, key, epoch, load, now);
      return Promise.resolve(hit.value);
    }
  }
  return reload(db, key, epoch, load, now);
}

/** The in-flight load of `key` when it may be shared, else a new one (stored when it ends, if still valid). */
function reload(
  db: object,
  key: string,
  epoch: number,
  load: () => Promise<SessionLookup | undefined>,
  now: () => number,
): Promise<SessionLookup | undefined> {
  const inFlight = mapOf(flights, db);
  const running = inFlight.get(key);
  if (running && running.epoch === epoch && now() - running.readAt < ACCESS_CACHE_MAX_AGE_MS) {
    return running.promise;
  }
  const readAt = now();
  const flight: Flight = {
    readAt,
    epoch,
    promise: load().then((value) => {
      const cache = mapOf(caches, db);
      // A write that began while we read may or may not be in `value`: do not keep it.
      if (value && writeEpoch(db) === epoch) {
        const held = cache.get(key);
        // A load started later (after a write) may have finished first: keep the newer one.
        if (!held || held.readAt <= readAt) {
          cache.delete(key);
          // Map order is read order (a refreshed key is deleted and set again): the first is the oldest.
          if (cache.size >= ACCESS_CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
          cache.set(key, { value, readAt, epoch });
        }
      } else if (!value) {
        cache.delete(key);
      }
      return value;
    }).finally(() => {
      if (inFlight.get(key) === flight) inFlight.delete(key);
    }),
  };
  // A background refresh has no caller to see its failure; a waiting request still gets it.
  flight.promise.catch(() => {});
  inFlight.set(key, flight);
  return flight.promise;
}

/** Entries held for `db` (tests check the bound). */
export function accessCacheSize(db: object): number {
  return caches.get(db)?.size ?? 0;
}
