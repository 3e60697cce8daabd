/**
 * Starting generations (photo check, option validation, the 2-credit charge
 * and the queued job in one transaction), their status and the history.
 */
import type { Db } from "../../db/client.ts";
import { GENERATION_COST } from "../credits/credit-constants.ts";
import type { Config } from "../config.ts";
import { applyCreditChange } from "../credits/credits.service.ts";
import { AppError } from "../http/errors.ts";
import { recordCredits } from "../metrics/metrics.ts";
import { isUuid } from "../ids.ts";
import { uploadUrl, usablePhotosFor } from "../photos/photos.service.ts";
import { defaultOptions, findEntry } from "../styling/catalog.ts";
import { OPTION_KEYS } from "../styling/option-keys.ts";
import { resolveIntensity, resolveOptions } from "../styling/styling.service.ts";
import type { UserRow } from "../users/users.repository.ts";
import { isAdmin } from "../users/users.service.ts";
import {
  type GenerateInput,
  type GenerationStatusResponse,
  type HistoryPage,
  INSUFFICIENT_CREDITS,
} from "./generation.schemas.ts";
import {
  findGenerationForOwner,
  type GenerationRow,
  insertGeneration,
  listGenerationsByOwner,
} from "./generation.repository.ts";

export interface GenerationDeps {
  db: Db;
  config: Config;
  /** Wakes the job runner so a new job starts without waiting for the next poll. */
  onQueued?: () => void;
}

export async function startGeneration(
  deps: GenerationDeps,
  user: UserRow,
  input: GenerateInput,
): Promise<{ generationId: string }> {
  // Validation happens before any write: bad input changes nothing.
  const options = resolveOptions(input.studioType, input.options);
  const intensity = resolveIntensity(input.intensity);
  const photoId = input.photoId.toLowerCase();
  // Lower-cased so one photo named twice in different case is one id (and one lock).
  const referencePhotoIds = [...new Set((input.referencePhotoIds ?? []).map((id) => id.toLowerCase()))];
  const cost = isAdmin(user, deps.config) ? 0 : GENERATION_COST;

  const generationId = crypto.randomUUID();
  await deps.db.transaction(async (tx) => {
    // Photos before the charge: an unknown or foreign photo is a 404 whatever the balance.
    // Claims of anonymous photos happen here; any later throw rolls them back with the rest.
    await usablePhotosFor(tx, [photoId, ...referencePhotoIds], user.id);
    if (cost > 0) {
      // Locks the user row, so concurrent requests of one user queue here and the
      // conditional debit can never take the balance below zero.
      const charge = await applyCreditChange(tx, {
        userId: user.id,
        delta: -cost,
        reason: "generation_charge",
        ref: generationId,
      });
      // Throwing rolls the whole transaction back: no job, no charge, no claim of the photo.
      if (!charge.applied) throw new AppError(402, INSUFFICIENT_CREDITS);
    }
    await insertGeneration(tx, {
      id: generationId,
      userId: user.id,
      photoId,
      referencePhotoIds,
      studioType: input.studioType,
      options,
      intensity,
      additionalInstructions: input.additionalInstructions?.trim() || null,
      view360: input.view360,
      creditsCharged: cost,
    });
  });
  if (cost > 0) recordCredits("debited", cost);
  deps.onQueued?.();
  return { generationId };
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
