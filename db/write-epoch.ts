/**
 * A counter per database that moves whenever this process sends it anything
 * but a plain SELECT (an insert, update, delete, DDL, a CTE). Read caches in
 * this process (the auth lookup: server/auth/access-cache.ts) keep an entry
 * only while the counter has not moved since they read it, so a write made
 * here, by any code path (a route, the job runner, a test or an admin
 * script on the same handle), is seen by the next read. Writes by other
 * processes (several servers on one Postgres) are not seen: those caches
 * bound their entries' age instead.
 */
import type { Logger } from "drizzle-orm/logger";

const epochs = new WeakMap<object, { value: number }>();

const READ_ONLY = /^\s*select\b/i;

/** The drizzle logger that moves `db`'s counter; attach it when the handle is created. */
export function writeEpochLogger(): Logger & { attach(db: object): void } {
  const counter = { value: 0 };
  return {
    attach(db: object) {
      epochs.set(db, counter);
    },
    logQuery(query: string) {
      if (!READ_ONLY.test(query)) counter.value++;
    },
  };
}

/** The counter of `db`, or undefined for a handle not opened through db/client.ts (nothing may be cached). */
export function writeEpoch(db: object): number | undefined {
  return epochs.get(db)?.value;
}

/** Moves the counter by hand: for a write whose end the logger cannot see (a request's commit). */
export function bumpWriteEpoch(db: object): void {
  const counter = epochs.get(db);
  if (counter) counter.value++;
}
