/**
 * Live previews: free, small renders by the local model of the same request
 * as /api/generate. No credit moves and nothing is stored; the photo must be
 * one the caller may generate with.
 */
import type { Db } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { ModelError } from "../imaging/image-model.ts";
import { LOCAL_CAPABILITIES } from "../imaging/local/capabilities.ts";
import { usablePhotosFor } from "../photos/photo-upload.ts";
import type { BlobStorage } from "../storage/storage.ts";
import { resolveStyleRequest } from "../styling/styling.service.ts";
import type { GenerateInput } from "../generation/generation.schemas.ts";
import type { Previewer } from "./previewer.ts";

/** Previews per user per minute: a slider drag sends a few a second, debounced. */
export const PREVIEWS_PER_MINUTE = 60;

/** Longest a preview may take before it is abandoned (a warm one takes ~0.2 s). */
const PREVIEW_TIMEOUT_MS = 10_000;

export interface PreviewDeps {
  db: Db;
  storage: BlobStorage;
  previewer?: Previewer;
  limiter: RateLimiter;
}

export interface PreviewImage {
  image: Uint8Array;
  mime: string;
  notes: string[];
  /** The model the final image will come from. */
  finalModel: string;
  /**
   * The final image would be this one unchanged: the local model is the final model and the photo
   * refuses every change asked for (see RenderOutput.refused), so Generate would fail and refund.
   */
  refused: boolean;
}

export function previewLimiter(): RateLimiter {
  return new RateLimiter(PREVIEWS_PER_MINUTE);
}

/** The previewer, once this request is counted against the user's preview budget; 503 when there is none. */
function admit(deps: PreviewDeps, userId: string): Previewer {
  if (!deps.previewer) {
    throw new AppError(503, "Live preview is not available on this server", { code: "preview_unavailable" });
  }
  deps.limiter.hit([`preview:user:${userId}`]);
  return deps.previewer;
}

/** The caller's signal (a closed connection), bounded by PREVIEW_TIMEOUT_MS. */
function bounded(signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(PREVIEW_TIMEOUT_MS);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/** The photo's bytes, by the same rule as generate (own photo, or a fresh anonymous upload this user now claims). */
async function photoBytes(deps: PreviewDeps, userId: string, photoId: string): Promise<Uint8Array> {
  const photo = await deps.db.transaction(async (tx) =>
    (await usablePhotosFor(tx, [photoId], userId)).get(photoId)!
  );
  const bytes = await deps.storage.get(photo.storageKey);
  if (!bytes) throw new AppError(404, "The reference photo is no longer available. Please upload it again.");
  return bytes;
}

export async function renderPreview(
  deps: PreviewDeps,
  userId: string,
  input: GenerateInput,
  signal?: AbortSignal,
): Promise<PreviewImage> {
  // Counted first: even refused previews cost the server a little.
  const previewer = admit(deps, userId);
  // A preview is one still frame: a 360 request changes nothing it shows.
  const { options, intensity } = resolveStyleRequest({ ...input, view360: undefined }, LOCAL_CAPABILITIES);

  const photoId = input.photoId.toLowerCase();
  const bytes = await photoBytes(deps, userId, photoId);
  try {
    const out = await previewer.preview({
      photoId,
      photo: bytes,
      references: [],
      studioType: input.studioType,
      options,
      intensity,
      instructions: input.additionalInstructions ?? null,
      signal: bounded(signal),
    });
    const finalModel = previewer.finalModel;
    return {
      image: out.image,
      mime: out.mime,
      notes: out.notes,
      finalModel,
      refused: finalModel === "local" && !!out.refused,
    };
  } catch (err) {
    if (err instanceof ModelError && !err.transient) {
      throw new AppError(422, err.message, { code: "model_refused" });
    }
    if (err instanceof ModelError) throw new AppError(503, err.message, { code: "preview_failed" });
    throw err;
  }
}

/** GET /api/photos/{id}/check: whether the final model can style a photo at all (see checkPhoto). */
export interface PhotoCheck {
  /** False only when the local model makes the final image and refuses this photo whatever is chosen. */
  usable: boolean;
  /** Why not, in the model's words ("No face found: ..."); absent when usable. */
  detail?: string;
  /** The model the final image will come from. */
  finalModel: string;
}

/**
 * Whether the photo can be styled at all, asked by the studio right after an upload: with the local model
 * the final one, a photo with no usable face or several faces of which none stands out makes every
 * generation fail, and the user would otherwise learn it only once they chose a look. Only the photo's faces are
 * looked at (found at upload, so usually a lookup; the preview's photo rule and rate limit: one request per
 * photo); a hosted model generates from any photo, so with one active nothing is asked of the local model.
 */
export async function checkPhoto(
  deps: PreviewDeps,
  userId: string,
  photoId: string,
  signal?: AbortSignal,
): Promise<PhotoCheck> {
  const finalModel = deps.previewer?.finalModel;
  if (finalModel !== undefined && finalModel !== "local") {
    // Still the preview's photo rule: no answer about a photo the caller may not use.
    await deps.db.transaction((tx) => usablePhotosFor(tx, [photoId], userId));
    return { usable: true, finalModel };
  }
  const previewer = admit(deps, userId);
  const bytes = await photoBytes(deps, userId, photoId);
  try {
    const refusal = await previewer.checkPhoto({ photoId, photo: bytes, signal: bounded(signal) });
    return refusal === undefined
      ? { usable: true, finalModel: "local" }
      : { usable: false, detail: refusal, finalModel: "local" };
  } catch (err) {
    if (err instanceof ModelError) throw new AppError(503, err.message, { code: "preview_failed" });
    throw err;
  }
}
