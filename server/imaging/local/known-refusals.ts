/**
 * What the local model's live previews found it refuses, so that generate can refuse it before any charge
 * (ImageModel.knownRefusal) and the photo check can answer without a job: a photo refused whatever is asked
 * (ModelError.unusablePhoto: no usable face, no clear subject), and looks on a photo of which nothing could be
 * applied (RenderOutput.refused: a shade the hair cannot take).
 */
import { canonicalJson } from "../../canonical-json.ts";
import type { KnownLook } from "../image-model.ts";

/**
 * Refusals kept, photos and looks together: the oldest is dropped over this. Each is a sentence or two
 * (~100-300 bytes with its key), so the whole memory stays around a megabyte.
 */
export const REFUSALS_KEPT = 4096;

/** A look's key: the choices resolved as generate resolves them, in a canonical order. */
const lookKey = (look: KnownLook) =>
  canonicalJson({ studioType: look.studioType, options: look.options, intensity: look.intensity });

export class KnownRefusals {
  /** By `${photoId}\n` (the photo itself) or `${photoId}\n${lookKey}`, oldest first. */
  private readonly kept = new Map<string, { photoId: string; reason: string | string[] }>();

  constructor(private readonly limit = REFUSALS_KEPT) {}

  /** The photo is refused whatever is asked, with this reason. */
  photoRefused(photoId: string, reason: string): void {
    this.keep(`${photoId}\n`, { photoId, reason });
  }

  /** None of these choices could be applied to this photo; `reasons` says why for each. */
  lookRefused(look: KnownLook, reasons: string[]): void {
    this.keep(`${look.photoId}\n${lookKey(look)}`, { photoId: look.photoId, reason: reasons });
  }

  /** Why the photo is refused whatever is asked, if known. */
  ofPhoto(photoId: string): string | undefined {
    const kept = this.kept.get(`${photoId}\n`)?.reason;
    return typeof kept === "string" ? kept : undefined;
  }

  /** Why each of these choices could not be applied to this photo, if known. */
  ofLook(look: KnownLook): string[] | undefined {
    const kept = this.kept.get(`${look.photoId}\n${lookKey(look)}`)?.reason;
    return Array.isArray(kept) ? kept : undefined;
  }

  /** The photos were deleted: nothing of them is kept. */
  forget(photoIds: readonly string[]): void {
    const gone = new Set(photoIds);
    for (const [key, { photoId }] of this.kept) if (gone.has(photoId)) this.kept.delete(key);
  }

  get size(): number {
    return this.kept.size;
  }

  private keep(key: string, value: { photoId: string; reason: string | string[] }): void {
    this.kept.delete(key);
    this.kept.set(key, value);
    if (this.kept.size > this.limit) this.kept.delete(this.kept.keys().next().value!);
  }
}
