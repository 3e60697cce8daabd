/**
 * The image model interface. The job runner only knows this interface; models
 * live beside it (local/ and the hosted ones) and are chosen by
 * config.IMAGE_MODEL.
 */
import type { Angle, Intensity, OptionKey, SelectedOptions, StudioType } from "../styling/option-keys.ts";

export interface ImageRequest {
  /** The normalised avatar photo (as stored on upload: webp/jpeg/png bytes). */
  photo: Uint8Array;
  /** Optional product reference photos (at most 3). */
  references: Uint8Array[];
  studioType: StudioType;
  /** Catalog ids, every key present (defaults where the user chose nothing). */
  options: SelectedOptions;
  intensity: Intensity;
  instructions: string | null;
  angle: Angle;
  /**
   * The generated front view of this set, for the right, left and back views
   * of a 360° set (hosted models condition on it so outfit, hair and makeup
   * stay consistent). Absent for the front.
   */
  frontImage?: Uint8Array;
  width: number;
  height: number;
  /**
   * The stored photo's id, when the photo is one: a model may keep what it
   * derived from the photo (decode, faces, segmentation) for the next request
   * on the same photo. Absent: nothing is reused.
   */
  photoId?: string;
  signal?: AbortSignal;
}

/** A request as knownRefusal is asked about it: the photo and the choices, resolved as generate resolves them. */
export type KnownLook = Pick<ImageRequest, "studioType" | "options" | "intensity"> & { photoId: string };

export interface ImageResult {
  image: Uint8Array;
  mime: string;
  /** User-facing notes on what was not applied (unsupported options, skipped hair recolour). */
  notes: string[];
  /** The prompt a hosted model sent (stored with the generation, shown in the owner's data export). */
  prompt?: string;
}

export interface ModelCapabilities {
  /** Angles the model can really render; others are absent from results, never faked. */
  angles: Angle[];
  /**
   * For each option key, the catalog ids the model honours. A key that is
   * missing, or an id not listed, is not applied (the default id is always a no-op).
   */
  supported: Partial<Record<OptionKey, string[]>>;
  /**
   * Why what this model cannot do is unavailable, in short user-facing
   * sentences, so the studio can disable those controls and say why. Served
   * as `models.unavailable` by GET /api/styling-options. A model that can do
   * everything leaves it out. Shape:
   *   {
   *     options?: { [key in OptionKey]?: string },  // every non-default id of that key
   *                                                // missing from `supported` has this reason
   *     instructions?: string,                     // additional instructions are not followed
   *     references?: string,                       // reference photos are not used
   *     view360?: string,                          // only `angles` render; the 360 view is off
   *   }
   */
  unavailable?: UnavailableReasons;
}

/** See ModelCapabilities.unavailable. */
export interface UnavailableReasons {
  options?: Partial<Record<OptionKey, string>>;
  instructions?: string;
  references?: string;
  view360?: string;
}

/**
 * What /api/health reports for the model. `starting`: loading (jobs wait);
 * `ready`: its last call (or load) succeeded; `degraded`: it answers but its last
 * call failed for a reason on our side (rate limit, timeout); `failed`: it cannot
 * generate at all (a model file failed to load, the provider refuses the key), so
 * queued jobs fail fast with a refund instead of slow retries.
 */
export interface ModelHealth {
  state: "starting" | "ready" | "degraded" | "failed";
  /** Operator-facing reason for degraded/failed. */
  detail?: string;
  /** When the model last answered a call (ISO time), if it has. */
  lastCallAt?: string;
}

export interface ImageModel {
  readonly name: string;
  readonly capabilities: ModelCapabilities;
  generate(req: ImageRequest): Promise<ImageResult>;
  /** Current health; a model without this method is taken as always ready. */
  health?(): ModelHealth;
  /** Resolves once the model can run (workers loaded); rejects when it cannot. */
  ready?(): Promise<void>;
  /**
   * A hint that this photo was just uploaded and will be styled: a model may
   * derive now what every look on it needs (decode, faces, segmentation) so
   * the first generation is as quick as a restyle. Best effort and never in a
   * generation's way; the result says whether it did.
   */
  prepare?(photo: { photoId: string; photo: Uint8Array }): Promise<boolean>;
  /**
   * These photos were deleted (by their owner, with the account, or expired): the model drops whatever it kept of them
   * in this process (decoded pixels, faces, masks, a copy of the bytes) and any preparation still queued.
   */
  forget?(photoIds: readonly string[]): void;
  /**
   * Why this model would make nothing of this request, when the user was already shown it by a live preview:
   * the photo itself is refused (no usable face, several faces and none the clear subject), or these very
   * choices on this photo were previewed and none of them could be applied. Undefined when no preview showed a
   * refusal. Generate refuses such a request before any charge, with this text.
   */
  knownRefusal?(look: KnownLook): string | undefined;
  /** Release workers and native resources. */
  close(): Promise<void>;
}

/**
 * A failure the model can explain to the user. `transient` failures (a busy
 * provider, a worker crash) are retried by the runner; permanent ones (no face
 * found) fail the job at once. Either way `message` is what the user sees.
 */
export class ModelError extends Error {
  readonly transient: boolean;
  /** The photo itself is refused (no usable face...), so every other request on it would fail the same way. */
  readonly unusablePhoto: boolean;
  constructor(message: string, opts: { transient: boolean; unusablePhoto?: boolean }) {
    super(message);
    this.name = "ModelError";
    this.transient = opts.transient;
    this.unusablePhoto = opts.unusablePhoto ?? false;
  }
}
