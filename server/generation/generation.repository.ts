/** Moves generation rows; the job-claiming queries live here too. */
import { and, desc, eq, inArray, lt, lte, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { type GenerationResults, generations } from "../../db/schema.ts";

export type GenerationRow = typeof generations.$inferSelect;
export type NewGeneration = typeof generations.$inferInsert;

export async function insertGeneration(db: DbOrTx, values: NewGeneration): Promise<GenerationRow> {
  const [row] = await db.insert(generations).values(values).returning();
  return row;
}

export async function findGenerationForOwner(db: DbOrTx, id: string, userId: string) {
  const [row] = await db.select().from(generations)
    .where(and(eq(generations.id, id), eq(generations.userId, userId)));
  return row as GenerationRow | undefined;
}

/** Newest first; the cursor is the (created_at, id) of the last item seen. */
export async function listGenerationsByOwner(
  db: DbOrTx,
  userId: string,
  limit: number,
  after?: { createdAt: Date; id: string },
  statuses?: GenerationRow["status"][],
): Promise<GenerationRow[]> {
  const older = after
    ? or(
      lt(generations.createdAt, after.createdAt),
      and(eq(generations.createdAt, after.createdAt), lt(generations.id, after.id)),
    )
    : undefined;
  return await db.select().from(generations)
    .where(and(eq(generations.userId, userId), older, statuses ? inArray(generations.status, statuses) : undefined))
    .orderBy(desc(generations.createdAt), desc(generations.id))
    .limit(limit);
}

/**
 * Claims the oldest runnable job: queued and due, or processing with an
 * expired lease (its worker died). SKIP LOCKED lets any number of workers,
 * in any number of processes, claim distinct jobs.
 */
export async function claimNextGeneration(
  db: DbOrTx,
  now: Date,
  leaseMs: number,
): Promise<GenerationRow | undefined> {
  return await db.transaction(async (tx) => {
    const [candidate] = await tx.select({ id: generations.id }).from(generations)
      .where(or(
        and(eq(generations.status, "queued"), lte(generations.runAfter, now)),
        and(eq(generations.status, "processing"), lt(generations.leaseUntil, now)),
      ))
      .orderBy(generations.runAfter, generations.createdAt)
      .limit(1)
      .for("update", { skipLocked: true });
    if (!candidate) return undefined;
    const [claimed] = await tx.update(generations).set({
      status: "processing",
      attempts: sql`${generations.attempts} + 1`,
      leaseUntil: new Date(now.getTime() + leaseMs),
      updatedAt: now,
    }).where(eq(generations.id, candidate.id)).returning();
    return claimed;
  });
}

/** Only the holder of the current claim (same attempt number, still processing) may finish a job. */
const stillOwned = (id: string, attempt: number) =>
  and(eq(generations.id, id), eq(generations.status, "processing"), eq(generations.attempts, attempt));

export async function completeGeneration(
  db: DbOrTx,
  id: string,
  attempt: number,
  results: GenerationResults,
  notes: string[],
): Promise<boolean> {
  const now = new Date();
  const rows = await db.update(generations).set({
    status: "completed",
    results,
    notes,
    error: null,
    leaseUntil: null,
    updatedAt: now,
    completedAt: now,
  }).where(stillOwned(id, attempt)).returning({ id: generations.id });
  return rows.length > 0;
}

/**
 * Hands a claimed job back to the queue. `giveBackAttempt` undoes the claim's
 * attempt count, for a run that ended through no fault of the job (shutdown).
 */
export async function requeueGeneration(
  db: DbOrTx,
  id: string,
  attempt: number,
  runAfter: Date,
  opts: { giveBackAttempt?: boolean } = {},
) {
  const rows = await db.update(generations).set({
    status: "queued",
    leaseUntil: null,
    runAfter,
    updatedAt: new Date(),
    ...(opts.giveBackAttempt ? { attempts: attempt - 1 } : {}),
  }).where(stillOwned(id, attempt)).returning({ id: generations.id });
  return rows.length > 0;
}

export async function failGeneration(db: DbOrTx, id: string, attempt: number, error: string) {
  const now = new Date();
  const rows = await db.update(generations).set({
    status: "failed",
    error,
    leaseUntil: null,
    updatedAt: now,
    completedAt: now,
  }).where(stillOwned(id, attempt)).returning();
  return rows[0] as GenerationRow | undefined;
}
