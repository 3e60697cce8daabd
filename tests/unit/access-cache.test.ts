/**
 * The auth lookup cache's own rules, on a watched handle without a database:
 * bounded size, at most a second old, dropped by any write, never kept when a
 * write began while it was read, and unused on a handle nobody watches;
 * concurrent misses share one load (never across a write, never one over a second old).
 */
import assert from "node:assert/strict";
import { writeEpochLogger } from "../../db/write-epoch.ts";
import {
  ACCESS_CACHE_MAX_AGE_MS,
  ACCESS_CACHE_MAX_ENTRIES,
  ACCESS_CACHE_REFRESH_AFTER_MS,
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
    clock = ACCESS_CACHE_REFRESH_AFTER_MS - 1;
    assert.equal((await cachedSessionLookup(db, "u", "s", load(99), now))?.user.credits, 10);
    assert.equal(loads, 1);
    // Nearly a second old: still answered from, and reloaded behind the answer.
    clock = ACCESS_CACHE_REFRESH_AFTER_MS;
    assert.equal((await cachedSessionLookup(db, "u", "s", load(11), now))?.user.credits, 10);
    assert.equal(loads, 2);
    clock = 1000; // the first read is a second old, the reload is not
    assert.equal((await cachedSessionLookup(db, "u", "s", load(99), now))?.user.credits, 11);
    clock = ACCESS_CACHE_REFRESH_AFTER_MS + 1000; // a second old: read again before answering
    assert.equal((await cachedSessionLookup(db, "u", "s", load(12), now))?.user.credits, 12);
    assert.equal(loads, 3);
    logger.logQuery("select 1", []); // a read moves nothing
    assert.equal((await cachedSessionLookup(db, "u", "s", load(13), now))?.user.credits, 12);
    logger.logQuery("update users set credits = 8", []);
    assert.equal((await cachedSessionLookup(db, "u", "s", load(8), now))?.user.credits, 8);
    assert.equal(loads, 4);

    // A write that starts while the lookup runs: its answer is used once, not kept.
    logger.logQuery("delete from sessions", []);
    const racing = () => {
      loads++;
      logger.logQuery("insert into credit_ledger values (1)", []);
      return Promise.resolve(lookup(7));
    };
    assert.equal((await cachedSessionLookup(db, "u", "s", racing, now))?.user.credits, 7);
    assert.equal((await cachedSessionLookup(db, "u", "s", load(6), now))?.user.credits, 6);
    assert.equal(loads, 6);

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

Deno.test("access cache: requests arriving during a load share it, unless a write or a second came between", async () => {
  const { db, logger } = watched();
  let clock = 0;
  const now = () => clock;
  const pending: ((v: SessionLookup) => void)[] = [];
  const slowLoad = () => new Promise<SessionLookup>((resolve) => pending.push(resolve));
  const first = Array.from({ length: 50 }, () => cachedSessionLookup(db, "u", "s", slowLoad, now));
  assert.equal(pending.length, 1); // 50 concurrent misses: one query
  // A write made here while it runs: the next request must not take the answer read before it.
  logger.logQuery("update refresh_tokens set revoked_at = now()", []);
  const afterWrite = cachedSessionLookup(db, "u", "s", slowLoad, now);
  assert.equal(pending.length, 2);
  // A load that has run for a second is too old to join.
  clock = ACCESS_CACHE_MAX_AGE_MS;
  const late = cachedSessionLookup(db, "u", "s", slowLoad, now);
  assert.equal(pending.length, 3);
  pending[0](lookup(1));
  pending[1](lookup(2));
  pending[2](lookup(3));
  assert.deepEqual((await Promise.all(first)).map((v) => v?.user.credits), Array(50).fill(1));
  assert.equal((await afterWrite)?.user.credits, 2);
  assert.equal((await late)?.user.credits, 3);

  // A failed load fails every request that waited for it, and is not remembered.
  clock = 10_000;
  let fail!: (e: Error) => void;
  const failing = () => new Promise<SessionLookup>((_, reject) => fail = reject);
  const waiting = [
    cachedSessionLookup(db, "v", "s", failing, now),
    cachedSessionLookup(db, "v", "s", failing, now),
  ];
  fail(new Error("connection lost"));
  for (const w of waiting) await assert.rejects(w, /connection lost/);
  assert.equal(
    (await cachedSessionLookup(db, "v", "s", () => Promise.resolve(lookup(4)), now))?.user.credits,
    4,
  );
});
