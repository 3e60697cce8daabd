/**
 * Starting generations (photo check, option validation, the 2-credit charge
 * and the queued job in one transaction), their status and the history.
 */
import type { Db } from "../../db/client.ts";
import { GENERATION_COST } from "../auth/auth.schemas.ts";
import type { Config } from "../config.ts";
import { applyCreditChange } from "../credits/credits.service.ts";
import { AppError } from "../http/errors.ts";
import { uploadUrl, usablePhotoFor } from "../photos/photos.service.ts";
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function startGeneration(
  deps: GenerationDeps,
  user: UserRow,
  input: GenerateInput,
): Promise<{ generationId: string }> {
  // Validation happens before any write: bad input changes nothing.
  const options = resolveOptions(input.studioType, input.options);
  const intensity = resolveIntensity(input.intensity);
  const referencePhotoIds = [...new Set(input.referencePhotoIds ?? [])];
  const cost = isAdmin(user, deps.config) ? 0 : GENERATION_COST;

  const generationId = crypto.randomUUID();
  await deps.db.transaction(async (tx) => {
    // The charge comes first: it locks the user row, so concurrent requests of one user queue here.
    if (cost > 0) {
      const charge = await applyCreditChange(tx, {
        userId: user.id,
        delta: -cost,
        reason: "generation_charge",
        ref: generationId,
      });
      // Throwing rolls the whole transaction back: no job, no charge, no claim of the photo.
      if (!charge.applied) throw new AppError(402, INSUFFICIENT_CREDITS);
    }
    const photo = await usablePhotoFor(tx, input.photoId, user.id);
    for (const id of referencePhotoIds) await usablePhotoFor(tx, id, user.id);
    await insertGeneration(tx, {
      id: generationId,
      userId: user.id,
      photoId: photo.id,
      referencePhotoIds,
      studioType: input.studioType,
      options,
      intensity,
      additionalInstructions: input.additionalInstructions?.trim() || null,
      view360: input.view360,
      creditsCharged: cost,
    });
  });
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
  const row = UUID.test(id) ? await findGenerationForOwner(deps.db, id, userId) : undefined;
  if (!row) throw new AppError(404, "Generation not found");
  return toStatus(row);
}

function encodeCursor(row: GenerationRow): string {
  return btoa(`${row.createdAt.toISOString()}|${row.id}`).replaceAll("=", "");
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [iso, id] = atob(cursor).split("|");
    const createdAt = new Date(iso);
    if (!UUID.test(id) || Number.isNaN(createdAt.getTime())) throw new Error();
    return { createdAt, id };
  } catch {
    throw new AppError(422, "Invalid cursor");
  }
}

export async function generationHistory(
  deps: GenerationDeps,
  userId: string,
  query: { limit: number; cursor?: string },
): Promise<HistoryPage> {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const rows = await listGenerationsByOwner(deps.db, userId, query.limit + 1, after);
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
    })),
    next_cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]) : null,
  };
}
