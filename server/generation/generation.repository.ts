/** Moves generation rows; the job-claiming queries live here too. */
import { and, desc, eq, getTableColumns, inArray, lt, lte, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { type GenerationResults, generations, photos } from "../../db/schema.ts";
import { type BalanceChange, balanceChangeCtes, executedRows } from "../credits/credits.repository.ts";

export type GenerationRow = typeof generations.$inferSelect;
export type NewGeneration = typeof generations.$inferInsert;

export async function insertGeneration(db: DbOrTx, values: NewGeneration): Promise<void> {
  await db.insert(generations).values(values);
}

/**
 * The job and its charge in one statement, without a transaction (one round trip where a
 * transaction took five; on PGlite each of them held its one connection), for the common case
 * where every photo named is the user's own: the charge (balanceChangeCtes, under the condition
 * that all `photoIds` are owned by the user) and the job row, inserted only when the charge was.
 * `photos_not_owned`: nothing was written (a photo is anonymous, someone else's or unknown).
 */
export async function insertChargedGeneration(
  db: DbOrTx,
  values: NewGeneration & { id: string; userId: string },
  photoIds: string[],
  charge: BalanceChange,
): Promise<"queued" | "insufficient" | "photos_not_owned"> {
  const ids = [...new Set(photoIds)];
  const columns = getTableColumns(generations);
  const set = Object.entries(values).filter(([, v]) => v !== undefined)
    .map(([key, v]) =>
      columns[key as keyof typeof columns] && [columns[key as keyof typeof columns], v] as const
    )
    .filter((entry) => !!entry);
  // INSERT ... SELECT infers no types from the target: each value is cast to its column's type.
  const names = sql.join(set.map(([column]) => sql.identifier(column.name)), sql`, `);
  const cast = sql.join(
    set.map(([column, v]) =>
      sql`${v === null ? null : column.mapToDriverValue(v)}::${sql.raw(column.getSQLType())}`
    ),
    sql`, `,
  );
  const owned = sql`(select count(*)::int from ${photos} where ${inArray(photos.id, ids)}
    and ${photos.ownerId} = ${values.userId})`;
  const [row] = executedRows<{ owned: unknown; job: unknown }>(
    await db.execute(sql`with ${balanceChangeCtes(charge, sql`${owned} = ${ids.length}`)},
      job as (insert into ${generations} (${names}) select ${cast} from changed returning id)
      select ${owned} as owned, (select id from job) as job`),
  );
  if (Number(row?.owned) !== ids.length) return "photos_not_owned";
  return row?.job ? "queued" : "insufficient";
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
    .where(
      and(
        eq(generations.userId, userId),
        older,
        statuses ? inArray(generations.status, statuses) : undefined,
      ),
    )
    .orderBy(desc(generations.createdAt), desc(generations.id))
    .limit(limit);
}

/**
 * Claims the oldest runnable job: queued and due, or processing with an
 * expired lease (its process died: nothing renewed the lease). SKIP LOCKED
 * lets any number of workers, in any number of processes, claim distinct jobs.
 * `claimedBy` names the claiming process (host:pid) for operators and tests.
 */
export async function claimNextGeneration(
  db: DbOrTx,
  now: Date,
  leaseMs: number,
  claimedBy: string | null = null,
): Promise<GenerationRow | undefined> {
  const runnable = or(
    and(eq(generations.status, "queued"), lte(generations.runAfter, now)),
    and(eq(generations.status, "processing"), lt(generations.leaseUntil, now)),
  );
  // An idle poll is one plain read: no write, so it neither takes PGlite's one connection for a
  // transaction nor moves the write epoch that the auth lookup cache is dropped by.
  const [any] = await db.select({ id: generations.id }).from(generations).where(runnable).limit(1);
  if (!any) return undefined;
  // Then one statement, not a transaction of a select and an update: on PGlite a transaction
  // holds the connection for all its round trips, and every request waits behind it.
  const candidate = db.select({ id: generations.id }).from(generations)
    .where(runnable)
    .orderBy(generations.runAfter, generations.createdAt)
    .limit(1)
    .for("update", { skipLocked: true });
  const [claimed] = await db.update(generations).set({
    status: "processing",
    attempts: sql`${generations.attempts} + 1`,
    leaseUntil: new Date(now.getTime() + leaseMs),
    claimedBy,
    updatedAt: now,
  }).where(sql`${generations.id} = (${candidate})`).returning();
  return claimed;
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
  /** The model and prompt that made the front view, when not already saved with it. */
  made?: { model: string; prompt: string | null },
): Promise<boolean> {
  const now = new Date();
  const rows = await db.update(generations).set({
    status: "completed",
    results,
    notes,
    ...made,
    error: null,
    leaseUntil: null,
    claimedBy: null,
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
    claimedBy: null,
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

/**
 * The heartbeat: extends the lease of a job this worker still holds. False
 * when the claim is gone (the lease expired and another worker took the job).
 */
export async function renewLease(
  db: DbOrTx,
  id: string,
  attempt: number,
  leaseUntil: Date,
): Promise<boolean> {
  const rows = await db.update(generations).set({ leaseUntil })
    .where(stillOwned(id, attempt)).returning({ id: generations.id });
  return rows.length > 0;
}

/**
 * Hands every `processing` job back to the queue at once. Only for the
 * embedded database at start: its lock guarantees no other process exists,
 * so every such job was orphaned by a crash of this DATA_DIR's last server.
 * The attempt stays counted: a job that crashes the process every time still
 * ends failed and refunded after MAX_ATTEMPTS.
 */
export async function requeueAllProcessing(db: DbOrTx, now: Date): Promise<number> {
  const rows = await db.update(generations).set({
    status: "queued",
    leaseUntil: null,
    claimedBy: null,
    runAfter: now,
    updatedAt: now,
  }).where(eq(generations.status, "processing")).returning({ id: generations.id });
  return rows.length;
}

export interface JobCounts {
  queued: number;
  running: number;
  /** created_at of the oldest queued job, or null when none waits. */
  oldestQueuedAt: Date | null;
}

export async function countJobs(db: DbOrTx): Promise<JobCounts> {
  const [row] = await db.select({
    queued: sql<number>`count(*) filter (where ${generations.status} = 'queued')::int`,
    running: sql<number>`count(*) filter (where ${generations.status} = 'processing')::int`,
    oldest: sql<string | null>`min(${generations.createdAt}) filter (where ${generations.status} = 'queued')`,
  }).from(generations).where(inArray(generations.status, ["queued", "processing"]));
  return {
    queued: Number(row?.queued ?? 0),
    running: Number(row?.running ?? 0),
    oldestQueuedAt: row?.oldest ? new Date(row.oldest) : null,
  };
}

export async function findGenerationByIdempotencyKey(db: DbOrTx, userId: string, key: string) {
  const [row] = await db.select().from(generations)
    .where(and(eq(generations.userId, userId), eq(generations.idempotencyKey, key)));
  return row as GenerationRow | undefined;
}

/** Deletes the owner's generation only once it has finished (a running job still writes results). */
export async function deleteFinishedGeneration(db: DbOrTx, id: string, userId: string) {
  const [row] = await db.delete(generations).where(and(
    eq(generations.id, id),
    eq(generations.userId, userId),
    inArray(generations.status, ["completed", "failed"]),
  )).returning();
  return row as GenerationRow | undefined;
}

/** Which of `keys` some generation's results still point at (any angle). */
export async function findReferencedResultKeys(db: DbOrTx, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const wanted = new Set(keys);
  const list = sql.join(keys.map((k) => sql`${k}`), sql`, `);
  // results is {angle: key}; no index covers its values, which is acceptable for a rare sweep.
  const rows = await db.select({ results: generations.results }).from(generations)
    .where(sql`exists (select 1 from jsonb_each_text(${generations.results}) as r(angle, key)
      where r.key in (${list}))`);
  const referenced = new Set<string>();
  for (const { results } of rows) {
    for (const key of Object.values(results)) if (key && wanted.has(key)) referenced.add(key);
  }
  return referenced;
}

/**
 * Stores the angles made so far while the job still runs (the status call
 * shows them at once), with the model and prompt that made them. Only the
 * claim's holder may write; false when the claim is gone.
 */
export async function saveProgress(
  db: DbOrTx,
  id: string,
  attempt: number,
  progress: { results: GenerationResults; model?: string; prompt?: string | null },
): Promise<boolean> {
  const rows = await db.update(generations).set({
    results: progress.results,
    ...(progress.model !== undefined ? { model: progress.model } : {}),
    ...(progress.prompt !== undefined ? { prompt: progress.prompt } : {}),
    updatedAt: new Date(),
  }).where(stillOwned(id, attempt)).returning({ id: generations.id });
  return rows.length > 0;
}
