/**
 * Rate limits kept in the database (the `rate_limits` table), so every
 * process sharing one Postgres counts against the same windows. Chosen when
 * DATABASE_URL is set; the in-memory store stays the single-process default.
 *
 * Each hit is one atomic upsert: a window that has ended restarts at 1, a live
 * one is incremented, and the statement returns the new count and the window's
 * end. Two processes hitting one key at once serialise on its row.
 */
import { and, gt, inArray, lt, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { rateLimits } from "../../db/schema.ts";
import { MemoryRateLimitStore, type RateLimitStore, type RateRule, tooMany } from "./rate-limit.ts";

export class DbRateLimitStore implements RateLimitStore {
  constructor(private readonly db: DbOrTx) {}

  async hit(rules: RateRule[], now = Date.now()): Promise<void> {
    for (const rule of rules) {
      const at = new Date(now);
      const reset = new Date(now + rule.windowMs);
      const [row] = await this.db.insert(rateLimits)
        .values({ key: rule.key, count: 1, resetAt: reset })
        .onConflictDoUpdate({
          target: rateLimits.key,
          set: {
            count:
              sql`case when ${rateLimits.resetAt} <= ${at.toISOString()}::timestamptz then 1 else ${rateLimits.count} + 1 end`,
            resetAt:
              sql`case when ${rateLimits.resetAt} <= ${at.toISOString()}::timestamptz then ${reset.toISOString()}::timestamptz else ${rateLimits.resetAt} end`,
          },
        })
        .returning({ count: rateLimits.count, resetAt: rateLimits.resetAt });
      if (row.count > rule.limit) throw tooMany(row.resetAt.getTime() - now);
    }
  }

  async forgive(rules: RateRule[], now = Date.now()): Promise<void> {
    if (rules.length === 0) return;
    await this.db.update(rateLimits)
      .set({ count: sql`greatest(${rateLimits.count} - 1, 0)` })
      .where(and(
        inArray(rateLimits.key, rules.map((r) => r.key)),
        gt(rateLimits.resetAt, new Date(now)),
      ));
  }
}

/**
 * The store for limits that must hold across processes: the database when DATABASE_URL is set
 * (several processes may share it), process memory otherwise (PGlite is one process's).
 */
export function sharedRateLimitStore(
  deps: { db: DbOrTx; config: { databaseUrl: string | undefined } },
): RateLimitStore {
  return deps.config.databaseUrl ? new DbRateLimitStore(deps.db) : new MemoryRateLimitStore();
}

/** Deletes windows that have ended; returns how many. */
export async function sweepRateLimits(db: DbOrTx, now = new Date()): Promise<number> {
  const gone = await db.delete(rateLimits).where(lt(rateLimits.resetAt, now)).returning({
    key: rateLimits.key,
  });
  return gone.length;
}
