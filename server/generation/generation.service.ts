/**
 * Starting generations (photo check, option validation, the 2-credit charge
 * and the queued job in one transaction), their status and the history.
 */
import type { Db } from "../../db/client.ts";
import { GENERATION_COST } from "../credits/credit-constants.ts";
import type { Config } from "../config.ts";
import { applyCreditChange, type CreditChange } from "../credits/credits.service.ts";
import { AppError } from "../http/errors.ts";
import { recordCredits } from "../metrics/metrics.ts";
import { isUuid } from "../ids.ts";
import { uploadUrl } from "../photos/photo-serving.ts";
import { usablePhotosFor } from "../photos/photo-upload.ts";
import { log } from "../log.ts";
import { sha256Hex } from "../hex-digest.ts";
import { canonicalJson } from "../canonical-json.ts";
import type { BlobStorage } from "../storage/storage.ts";
import { defaultOptions, findEntry } from "../styling/catalog.ts";
import { OPTION_KEYS } from "../styling/option-keys.ts";
import { resolveStyleRequest } from "../styling/styling.service.ts";
import type { ImageModel } from "../imaging/image-model.ts";
import type { UserRow } from "../users/users.repository.ts";
import { isAdmin } from "../users/users.service.ts";
import {
  type GenerateInput,
  type GenerationStatusResponse,
  type HistoryPage,
  INSUFFICIENT_CREDITS,
} from "./generation.schemas.ts";
import {
  countJobs,
  deleteFinishedGeneration,
  findGenerationByIdempotencyKey,
  findGenerationForOwner,
  type GenerationRow,
  insertChargedGeneration,
  insertGeneration,
  type JobCounts,
  listGenerationsByOwner,
} from "./generation.repository.ts";

export interface GenerationDeps {
  db: Db;
  config: Config;
  /** Wakes the job runner so a new job starts without waiting for the next poll. */
  onQueued?: () => void;
  /**
   * The active image model: with the local one, a request it would render as the unchanged photo is refused, and
   * so is one it already knows it would make nothing of (knownRefusal).
   */
  model?: Pick<ImageModel, "name" | "capabilities" | "knownRefusal">;
}

export const IDEMPOTENCY_KEY_REUSED =
  "This Idempotency-Key was already used for a different request. Send a new key for a new generation.";

/** The unique index on (user_id, idempotency_key) refused a concurrent twin (Postgres 23505). */
function isUniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: string; cause?: unknown } | undefined, i = 0; err && i < 4; i++) {
    if (err.code === "23505") return true;
    err = err.cause as typeof err;
  }
  return false;
}

/**
 * The job an earlier request with this key made: the same request gets its
 * id back (charged once); another request under the same key is refused.
 */
function replay(existing: GenerationRow, requestHash: string): { generationId: string } {
  if (existing.requestHash !== requestHash) {
    throw new AppError(422, IDEMPOTENCY_KEY_REUSED, { code: "idempotency_key_reused" });
  }
  return { generationId: existing.id };
}

/**
 * Queues a generation and charges for it. With `idempotencyKey` (the
 * client's Idempotency-Key header, one per click) a retried request, after a
 * lost response, returns the first request's job instead of charging again.
 */
export async function startGeneration(
  deps: GenerationDeps,
  user: UserRow,
  input: GenerateInput,
  opts: { idempotencyKey?: string } = {},
): Promise<{ generationId: string }> {
  // Validation happens before any write: bad input changes nothing, and a request this model
  // would render as nothing is refused before the transaction, so no credit moves.
  const { options, intensity } = resolveStyleRequest(
    input,
    deps.model?.name === "local" ? deps.model.capabilities : null,
  );
  const photoId = input.photoId.toLowerCase();
  // Lower-cased so one photo named twice in different case is one id (and one lock).
  const referencePhotoIds = [...new Set((input.referencePhotoIds ?? []).map((id) => id.toLowerCase()))];
  const cost = isAdmin(user, deps.config) ? 0 : GENERATION_COST;
  const additionalInstructions = input.additionalInstructions?.trim() || null;
  // What the job is asked to do: stored on the row, and (canonical, hashed) what a replay must repeat.
  const request = {
    photoId,
    referencePhotoIds,
    studioType: input.studioType,
    options,
    intensity,
    additionalInstructions,
    view360: input.view360,
  };
  const key = opts.idempotencyKey;
  const requestHash = key ? await sha256Hex(canonicalJson(request)) : null;
  if (key) {
    const existing = await findGenerationByIdempotencyKey(deps.db, user.id, key);
    if (existing) return replay(existing, requestHash!);
  }

  const refusal = deps.model?.knownRefusal?.({ photoId, studioType: input.studioType, options, intensity });
  if (refusal !== undefined) await refuseKnownRefusal(deps, user, photoId, refusal);

  const generationId = crypto.randomUUID();
  try {
    await queueCharged(deps, user, {
      generationId,
      cost,
      photoIds: [photoId, ...referencePhotoIds],
      values: { ...request, idempotencyKey: key ?? null, requestHash },
    });
  } catch (e) {
    // A concurrent request with the same key won the insert; this one's charge rolled back with it.
    if (key && isUniqueViolation(e)) {
      const winner = await findGenerationByIdempotencyKey(deps.db, user.id, key);
      if (winner) return replay(winner, requestHash!);
    }
    throw e;
  }
  if (cost > 0) recordCredits("debited", cost);
  deps.onQueued?.();
  return { generationId };
}

/**
 * A live preview already showed the user the model would make nothing of this request (the photo has no
 * usable face; or these very choices on this photo could not be applied), so a generation would fail and
 * refund: refused before any charge, with the model's reason. Still the photo rule first (another user's
 * photo is a 404, not the model's verdict on it); a claim of an anonymous upload rolls back with the refusal.
 */
async function refuseKnownRefusal(deps: GenerationDeps, user: UserRow, photoId: string, reason: string) {
  await deps.db.transaction(async (tx) => {
    await usablePhotosFor(tx, [photoId], user.id);
    throw new AppError(422, reason, { code: "model_refused" });
  });
}

/**
 * The photo check, the charge and the queued job, all or nothing: one statement when every
 * photo is already the user's, else one transaction (claims of anonymous photos, 404s).
 */
async function queueCharged(
  deps: GenerationDeps,
  user: UserRow,
  job: {
    generationId: string;
    cost: number;
    photoIds: string[];
    values: Omit<Parameters<typeof insertGeneration>[1], "id" | "userId" | "creditsCharged">;
  },
): Promise<void> {
  const { generationId, cost } = job;
  const row = { ...job.values, id: generationId, userId: user.id, creditsCharged: cost };
  const charge: CreditChange = {
    userId: user.id,
    delta: -cost,
    reason: "generation_charge",
    ref: generationId,
  };
  // A malformed id goes to the transaction, whose photo check answers it with a 404.
  if (cost > 0 && job.photoIds.every(isUuid)) {
    const fast = await insertChargedGeneration(deps.db, row, job.photoIds, charge);
    if (fast === "queued") return;
    if (fast === "insufficient") throw new AppError(402, INSUFFICIENT_CREDITS);
    // A photo is not (yet) the user's: the transaction below claims it, or answers 404.
  }
  await deps.db.transaction(async (tx) => {
    // Photos before the charge: an unknown or foreign photo is a 404 whatever the balance.
    // Claims of anonymous photos happen here; any later throw rolls them back with the rest.
    await usablePhotosFor(tx, job.photoIds, user.id);
    if (cost > 0) {
      // Locks the user row, so concurrent requests of one user queue here and the
      // conditional debit can never take the balance below zero.
      const applied = await applyCreditChange(tx, charge);
      // Throwing rolls the whole transaction back: no job, no charge, no claim of the photo.
      if (!applied.applied) throw new AppError(402, INSUFFICIENT_CREDITS);
    }
    await insertGeneration(tx, row);
  });
}

export function toStatus(row: GenerationRow): GenerationStatusResponse {
  const resultUrls = Object.fromEntries(
    Object.entries(row.results).map(([angle, key]) => [angle, uploadUrl(key!)]),
  );
  return {
    status: row.status,
    resultUrl: row.results.front ? uploadUrl(row.results.front) : null,
    resultUrls,
    error: row.error,
    notes: row.notes,
  };
}

export async function generationStatus(deps: GenerationDeps, userId: string, id: string) {
  // Another user's job and a job that does not exist answer the same 404.
  const row = isUuid(id) ? await findGenerationForOwner(deps.db, id, userId) : undefined;
  if (!row) throw new AppError(404, "Generation not found");
  return toStatus(row);
}

function encodeCursor(row: GenerationRow): string {
  return btoa(`${row.createdAt.toISOString()}|${row.id}`).replaceAll("=", "");
}

/**
 * Exactly what toISOString() writes: millisecond precision, UTC. Anything
 * else (other years, offsets, no milliseconds) was not made by encodeCursor.
 */
const CURSOR_TIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A cursor is only ever made by encodeCursor, so anything else is refused
 * with 422 before it reaches SQL. Date() alone is not enough: it accepts
 * years like 0000, -271821 or +275760 that Postgres and PGlite reject (500),
 * and rolls 2024-02-30 over into March. The year range 1970-9999 covers every
 * created_at this service can write.
 */
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const invalid = new AppError(422, "Invalid cursor");
  let decoded: string;
  try {
    decoded = atob(cursor);
  } catch {
    throw invalid;
  }
  const parts = decoded.split("|");
  if (parts.length !== 2) throw invalid;
  const [iso, id] = parts;
  const match = CURSOR_TIME.exec(iso);
  if (!match || !isUuid(id)) throw invalid;
  const year = Number(match[1]);
  const createdAt = new Date(iso);
  if (year < 1970 || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== iso) throw invalid;
  return { createdAt, id };
}

/** The options changed from the studio's defaults, labelled, in catalog order (history chips). */
function chosenOptions(studio: GenerationRow["studioType"], options: Record<string, string>) {
  const defaults = defaultOptions(studio);
  return OPTION_KEYS.filter((key) => options[key] !== undefined && options[key] !== defaults[key])
    .map((key) => ({ key, label: findEntry(key, studio, options[key])?.label ?? options[key] }));
}

export async function generationHistory(
  deps: GenerationDeps,
  userId: string,
  query: { limit: number; cursor?: string; status?: GenerationRow["status"][] },
): Promise<HistoryPage> {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const rows = await listGenerationsByOwner(deps.db, userId, query.limit + 1, after, query.status);
  const page = rows.slice(0, query.limit);
  return {
    items: page.map((r) => ({
      id: r.id,
      created_at: r.createdAt.toISOString(),
      studio_type: r.studioType,
      status: r.status,
      result_url: r.results.front ? uploadUrl(r.results.front) : null,
      view360: r.view360,
      options: r.options,
      chosen_options: chosenOptions(r.studioType, r.options),
      result_urls: toStatus(r).resultUrls,
      // A failed job's charge was refunded (job-runner), so it cost nothing in the end.
      credits_charged: r.status === "failed" ? 0 : r.creditsCharged,
    })),
    next_cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]) : null,
  };
}

/** Queued and running jobs, and how long the oldest queued one has waited (GET /api/health). */
export function jobQueueSummary(db: Db): Promise<JobCounts> {
  return countJobs(db);
}

export const GENERATION_RUNNING = "This generation is still running. You can delete it once it has finished.";

/**
 * The owner deletes a finished generation and its result images. A queued or
 * running job is refused (409): its worker would still write results, so it
 * can be deleted once it has completed or failed. The ledger rows that name it
 * stay (the credit history is an audit trail).
 */
export async function deleteGeneration(
  deps: { db: Db; storage: BlobStorage },
  userId: string,
  id: string,
): Promise<void> {
  if (!isUuid(id)) throw new AppError(404, "Generation not found");
  const deleted = await deleteFinishedGeneration(deps.db, id.toLowerCase(), userId);
  if (!deleted) {
    const row = await findGenerationForOwner(deps.db, id.toLowerCase(), userId);
    if (!row) throw new AppError(404, "Generation not found");
    throw new AppError(409, GENERATION_RUNNING, { code: "generation_running" });
  }
  for (const key of Object.values(deleted.results)) {
    if (!key) continue;
    try {
      await deps.storage.delete(key);
    } catch (error) {
      // The row is gone, so nothing serves the key; the orphan sweep retries the blob.
      log.warn("deleted generation's result not removed", { key, error });
    }
  }
}
