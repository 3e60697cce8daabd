/**
 * The auth lookup cache's own rules, on a watched handle without a database:
 * bounded size, at most a second old, dropped by any write, never kept when a
 * write began while it was read, and unused on a handle nobody watches.
 */
import assert from "node:assert/strict";
import { writeEpochLogger } from "../../db/write-epoch.ts";
import {
  ACCESS_CACHE_MAX_ENTRIES,
  accessCacheSize,
  cachedSessionLookup,
  type SessionLookup,
} from "../../server/auth/access-cache.ts";
import type { UserRow } from "../../server/users/users.repository.ts";

const lookup = (credits: number): SessionLookup => ({ user: { credits } as UserRow, sessionLive: true });

function watched() {
  const db = {};
  const logger = writeEpochLogger();
  logger.attach(db);
  return { db, logger };
}

Deno.test({
  name: "access cache: one load per second per session, a write drops it, a stale load is not kept",
  sanitizeOps: true,
  fn: async () => {
    const { db, logger } = watched();
    let clock = 0;
    const now = () => clock;
    let loads = 0;
    const load = (credits: number) => () => (loads++, Promise.resolve(lookup(credits)));
    assert.equal((await cachedSessionLookup(db, "u", "s", load(10), now))?.user.credits, 10);
    clock = 999;
    assert.equal((await cachedSessionLookup(db, "u", "s", load(11), now))?.user.credits, 10);
    assert.equal(loads, 1);
    clock = 1000; // a second old: read again
    assert.equal((await cachedSessionLookup(db, "u", "s", load(12), now))?.user.credits, 12);
    logger.logQuery("select 1", []); // a read moves nothing
    assert.equal((await cachedSessionLookup(db, "u", "s", load(13), now))?.user.credits, 12);
    logger.logQuery("update users set credits = 8", []);
    assert.equal((await cachedSessionLookup(db, "u", "s", load(8), now))?.user.credits, 8);
    assert.equal(loads, 3);

    // A write that starts while the lookup runs: its answer is used once, not kept.
    logger.logQuery("delete from sessions", []);
    const racing = () => {
      loads++;
      logger.logQuery("insert into credit_ledger values (1)", []);
      return Promise.resolve(lookup(7));
    };
    assert.equal((await cachedSessionLookup(db, "u", "s", racing, now))?.user.credits, 7);
    assert.equal((await cachedSessionLookup(db, "u", "s", load(6), now))?.user.credits, 6);
    assert.equal(loads, 5);

    // Not found (or deleted) is never cached.
    assert.equal(
      await cachedSessionLookup(db, "gone", "s", () => Promise.resolve(undefined), now),
      undefined,
    );
    assert.equal((await cachedSessionLookup(db, "gone", "s", load(1), now))?.user.credits, 1);
  },
});

Deno.test("access cache: bounded per database; an unwatched handle is never cached", async () => {
  const { db } = watched();
  for (let i = 0; i <= ACCESS_CACHE_MAX_ENTRIES; i++) {
    await cachedSessionLookup(db, `u${i}`, "s", () => Promise.resolve(lookup(i)));
  }
  assert.equal(accessCacheSize(db), ACCESS_CACHE_MAX_ENTRIES);

  const unwatched = {};
  let loads = 0;
  for (let i = 0; i < 3; i++) {
    await cachedSessionLookup(unwatched, "u", "s", () => (loads++, Promise.resolve(lookup(1))));
  }
  assert.equal(loads, 3);
  assert.equal(accessCacheSize(unwatched), 0);
});
