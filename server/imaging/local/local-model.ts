/**
 * The local image model (offline, no GPU): a face-aware renderer running in a
 * pool of worker threads. See docs/decisions/014-local-model-realism.md.
 */
import type { ImageModel, ImageRequest, ImageResult, KnownLook } from "../image-model.ts";
import { ModelError } from "../image-model.ts";
import { defaultOptions } from "../../styling/catalog.ts";
import { log } from "../../log.ts";
import {
  DEFAULT_INTENSITY,
  type Intensity,
  MAKEUP_CATEGORIES,
  type SelectedOptions,
  type StudioType,
} from "../../styling/option-keys.ts";
import { LOCAL_CAPABILITIES, nothingAppliedMessage, nothingAppliesMessage } from "./capabilities.ts";
import { KnownRefusals } from "./known-refusals.ts";
import type { OutputFormat, RenderJob, RenderOutput } from "./render.ts";
import { PREPARE_STEPS, type PrepareStep } from "./prepare-steps.ts";
import type { FaceCounter } from "./face-count.ts";
import { type PoolOptions, type PoolStats, WorkerPool } from "./worker-pool.ts";

export interface LocalModelOptions {
  /** Worker threads (JOB_WORKERS); at least 1. */
  workers: number;
  /** Output encoding; default high-quality JPEG (PNG, uncompressed, is for tests: see OutputFormat). */
  format?: OutputFormat;
  /** See PREPARE_AFTER_LOOK_MS (tests of the steps themselves set 0). */
  prepareAfterLookMs?: number;
  /** The pool's RECYCLE_AFTER_JOBS and IDLE_MS (tests of a worker's replacement set them low). */
  pool?: Pick<PoolOptions, "recycleAfterJobs" | "idleMs">;
}

/** A live preview: the generate request, small, for one photo id (what depends on the photo alone is cached). */
export interface PreviewRequest extends Omit<ImageRequest, "angle" | "width" | "height"> {
  photoId: string;
}

/** Preview size: a quarter of the 1080x1920 output's area, 9:16. */
export const PREVIEW_WIDTH = 540, PREVIEW_HEIGHT = 960;

export interface LocalModel extends ImageModel {
  /** See ImageModel.prepare; resolves true when the photo's first look will render warm. */
  prepare(photo: { photoId: string; photo: Uint8Array }): Promise<boolean>;
  /** See ImageModel.forget: the workers' photo caches, the queued preparations and the pool's copies. */
  forget(photoIds: readonly string[]): void;
  /** A small, quick JPEG of what generate() would make (free live preview). */
  preview(req: PreviewRequest): Promise<RenderOutput>;
  /** See ImageModel.knownRefusal. */
  knownRefusal(look: KnownLook): string | undefined;
  /**
   * Why the photo cannot be styled at all: what a refused preview found (ModelError.unusablePhoto), else the
   * faces step, a job of its own ahead of queued generations (the faces are cached once the photo was prepared
   * at upload). Teaches knownRefusal nothing.
   */
  checkPhoto(req: { photoId: string; photo: Uint8Array; signal?: AbortSignal }): Promise<string | undefined>;
  /** Resolves when every worker has loaded its models. */
  ready(): Promise<void>;
  /** generate() plus per-stage timings (bench and diagnostics). */
  generateWithTimings(req: ImageRequest): Promise<RenderOutput>;
  /** Each model worker's heap and photo cache, and the face-models worker's heap, tensors and wasm memory. */
  workerStats(): Promise<PoolStats>;
  /**
   * Face counts by this model's face-models worker, for a hosted model's
   * output check in hybrid mode (one copy of the face models in the process).
   * Closing it does nothing: it lives as long as this model.
   */
  faceCounter(): FaceCounter;
}

/** The output size a photo is prepared for (the generate size: the job runner's 9:16 output). */
export const PREPARE_WIDTH = 1080, PREPARE_HEIGHT = 1920;
const OUTPUT_SIZE = { width: PREPARE_WIDTH, height: PREPARE_HEIGHT };
/** Uploads that may wait for a free worker to be prepared (each holds its photo's bytes). */
export const PREPARE_BACKLOG = 4;
/**
 * A preparation's steps are background work: after a look (a preview, a generation) they wait until no look has
 * settled for this long, so that looks asked for one after another (a user trying shades) never queue behind a
 * step of 0.4-0.7 s. See decision 022 (2026-11-30).
 */
export const PREPARE_AFTER_LOOK_MS = 500;

/**
 * The look a fresh worker renders once, as a preview, on the photo handed over by the worker it replaced (see
 * WorkerPool's onReplaced), after preparing it: makeup, a hair colour, a backdrop and a light, each a part of the
 * renderer whose code would otherwise compile during its owner's next look. Measured on a fresh worker with the
 * photo prepared: a hair colour's preview took 654-680 ms before this look, 62-67 ms after it (2026-11-30).
 */
const WARM_UP_LOOK: SelectedOptions = {
  ...defaultOptions("hair"),
  lookStyle: "soft-glam",
  lips: "classic-red-matte",
  eyeshadow: "bronze",
  cheeks: "dusty-rose",
  hairColor: "auburn",
  setting: "beach-sunset",
  lighting: "warm",
};

/** The live preview's JPEG quality. */
const PREVIEW_QUALITY = 82;

/** A look nobody asked for (a preparation's step, the warm-up) on `photo`, at the output's size or the preview's. */
function backgroundRequest(
  photoId: string,
  photo: Uint8Array,
  studioType: StudioType,
  options: SelectedOptions,
  preview: boolean,
): ImageRequest {
  return {
    photo,
    photoId,
    references: [],
    studioType,
    options,
    intensity: Object.fromEntries(MAKEUP_CATEGORIES.map((c) => [c, DEFAULT_INTENSITY])) as Intensity,
    instructions: null,
    angle: "front",
    width: preview ? PREVIEW_WIDTH : PREPARE_WIDTH,
    height: preview ? PREVIEW_HEIGHT : PREPARE_HEIGHT,
  };
}

export function createLocalModel(opts: LocalModelOptions): Promise<LocalModel> {
  const pool = new WorkerPool(Math.max(1, Math.floor(opts.workers || 1)), {
    ...opts.pool,
    // The photo a replaced worker ran last is prepared again on the fresh one, which then renders a look on it
    // (the user styling that photo finds it warm).
    onReplaced: (photos) => {
      for (const { cacheKey, photo } of photos) {
        queuePreparation({ photoId: cacheKey, photo, step: PREPARE_STEPS[0], warmUp: true, done: () => {} });
      }
    },
  });
  const format = opts.format ?? "jpeg";
  /** Jobs given to the pool and not settled yet (a preparation runs only when a worker is free). */
  let busy = 0;
  /** When the last look settled (see PREPARE_AFTER_LOOK_MS), and the timer that starts the steps after it. */
  let lastLookAt = -Infinity;
  let afterLook: ReturnType<typeof setTimeout> | undefined;
  /**
   * What the user's live previews showed refused (see knownRefusal): only previews teach it. The user saw the
   * refusal before paying; a refusal learned elsewhere (an upload's preparation, a failed generation) leaves
   * Generate as it was: charged, failed with the reason, refunded.
   */
  const refusals = new KnownRefusals();
  const run = (
    req: ImageRequest,
    extra: Pick<RenderJob, "cacheKey" | "quality" | "prepareOnly" | "coloursAt"> = {},
    queue: { first?: boolean; background?: boolean } = {},
  ): Promise<RenderOutput> => {
    if (req.angle !== "front") {
      return Promise.reject(
        new ModelError("The local model can only render the front view", { transient: false }),
      );
    }
    busy++;
    return pool.run(
      {
        photo: req.photo,
        studioType: req.studioType,
        options: req.options,
        intensity: req.intensity,
        instructions: req.instructions,
        references: req.references.length,
        width: req.width,
        height: req.height,
        format: extra.quality ? "jpeg" : format,
        ...extra,
      },
      req.signal,
      queue,
    ).finally(() => {
      busy--;
      // (The warm-up look is nobody's: it does not hold the steps back.)
      if (!extra.prepareOnly && !queue.background) lastLookAt = performance.now();
      startPreparations();
    });
  };

  let closed = false;
  /**
   * Uploads waiting for a free worker, newest last (at most PREPARE_BACKLOG): each is prepared for the output
   * size, one step after another (PREPARE_STEPS: a look asked for meanwhile goes between two steps), then for
   * the live preview's (`preview`: the studio previews a photo as soon as its owner picks an option, and that
   * first preview would otherwise segment the photo again at its own size).
   */
  const waiting: {
    photoId: string;
    photo: Uint8Array;
    /**
     * The step to run next; a preview's size has one, `person` (its hair is painted at the output size). `look`:
     * WARM_UP_LOOK, after the preview's step, for a photo handed over by a replaced worker.
     */
    step: PrepareStep | "look";
    preview?: boolean;
    /** A photo handed over by a replaced worker (see onReplaced): its steps wait for every upload's. */
    warmUp?: boolean;
    done: (prepared: boolean) => void;
  }[] = [];
  const startPreparations = () => {
    const quiet = lastLookAt + (opts.prepareAfterLookMs ?? PREPARE_AFTER_LOOK_MS) - performance.now();
    if (quiet > 0 && waiting.length && !closed) {
      if (afterLook === undefined) {
        afterLook = setTimeout(() => {
          afterLook = undefined;
          startPreparations();
        }, quiet);
        Deno.unrefTimer(afterLook as unknown as number);
      }
      return;
    }
    while (waiting.length && busy < pool.size && pool.health().state === "ready") {
      // The newest upload first: its owner is the one about to style it. A photo handed over by a replaced
      // worker (`warmUp`) waits for every upload.
      const upload = waiting.findLastIndex((w) => !w.warmUp);
      const entry = waiting.splice(upload >= 0 ? upload : waiting.length - 1, 1)[0];
      const { photoId, photo, step, preview, done } = entry;
      if (step === "look") {
        run(
          backgroundRequest(photoId, photo, "hair", WARM_UP_LOOK, true),
          { cacheKey: photoId, quality: PREVIEW_QUALITY, coloursAt: OUTPUT_SIZE },
          { background: true },
        ).then(() => done(true), (e) => {
          log.debug("local image model: warm-up look failed", { photoId, error: String(e) });
          done(false);
        });
        continue;
      }
      run(
        backgroundRequest(photoId, photo, "makeup", defaultOptions("makeup"), !!preview),
        { cacheKey: photoId, prepareOnly: step, ...(preview ? { coloursAt: OUTPUT_SIZE } : {}) },
      ).then(
        () => {
          const next = preview ? undefined : PREPARE_STEPS[PREPARE_STEPS.indexOf(step) + 1];
          if (closed) return done(false);
          if (next) return queuePreparation({ ...entry, step: next });
          done(true);
          if (preview && entry.warmUp) {
            queuePreparation({ photoId, photo, step: "look", warmUp: true, done: () => {} });
          }
          if (!preview) {
            queuePreparation({
              photoId,
              photo,
              step: "person",
              preview: true,
              warmUp: entry.warmUp,
              done: () => {},
            });
          }
        },
        (e) => {
          // No face, a shutdown: the first look on this photo reports it (or renders cold).
          log.debug("local image model: photo not prepared", { photoId, error: String(e) });
          done(false);
        },
      );
    }
  };
  // Workers that were loading when photos arrived take them once ready.
  pool.ready().then(startPreparations, () => {});
  const queuePreparation = (entry: (typeof waiting)[number]) => {
    waiting.push(entry);
    // Over the backlog the oldest goes: a warm-up look first, then a preview's preparation, then an upload's.
    if (waiting.length > PREPARE_BACKLOG) {
      const look = waiting.findIndex((w) => w.step === "look");
      const i = look >= 0 ? look : waiting.findIndex((w) => w.preview);
      waiting.splice(Math.max(0, i), 1)[0].done(false);
    }
    startPreparations();
  };
  /**
   * Runs on a worker that nothing else is waiting for, one step at a time,
   * each once no look has settled for PREPARE_AFTER_LOOK_MS: a look asked for
   * meanwhile waits at most for the step under way. Until a worker is free it
   * waits in a short backlog (the oldest upload is dropped first); a look on
   * the photo before then renders it anyway, so its preparation is dropped.
   */
  const prepare = ({ photoId, photo }: { photoId: string; photo: Uint8Array }) =>
    new Promise<boolean>((done) => {
      if (closed) return done(false);
      queuePreparation({ photoId, photo, step: PREPARE_STEPS[0], done });
    });
  /**
   * A look on a photo renders its framing itself: the photo's preparation for that size is dropped when it has
   * not begun. One under way goes on after the look (what its later steps measure serves the next looks). The
   * warm-up look waiting on the photo goes too: its owner's look compiles the same code.
   */
  const dropPreparation = (photoId: string | undefined, preview = false) => {
    if (!photoId) return;
    const i = waiting.findIndex((w) =>
      w.photoId === photoId && w.step !== "look" && !w.preview === !preview &&
      (preview || w.step === PREPARE_STEPS[0])
    );
    if (i >= 0) waiting.splice(i, 1)[0].done(false);
    const look = waiting.findIndex((w) => w.photoId === photoId && w.step === "look");
    if (look >= 0) waiting.splice(look, 1)[0].done(false);
  };
  const model: LocalModel = {
    name: "local",
    capabilities: LOCAL_CAPABILITIES,
    forget(photoIds) {
      const gone = new Set(photoIds);
      refusals.forget(photoIds);
      for (let i = waiting.length - 1; i >= 0; i--) {
        if (gone.has(waiting[i].photoId)) waiting.splice(i, 1)[0].done(false);
      }
      pool.forget(photoIds);
    },
    async generate(req: ImageRequest): Promise<ImageResult> {
      const out = await model.generateWithTimings(req);
      return { image: out.image, mime: out.mime, notes: out.notes };
    },
    async generateWithTimings(req) {
      dropPreparation(req.photoId);
      const out = await run(req, { cacheKey: req.photoId });
      // The photo took nothing that was asked: the generation fails (and is refunded) with the reasons.
      if (out.refused) throw new ModelError(nothingAppliedMessage(out.refused), { transient: false });
      return out;
    },
    prepare,
    preview: (req) => {
      dropPreparation(req.photoId, true);
      return run(
        { ...req, angle: "front", width: PREVIEW_WIDTH, height: PREVIEW_HEIGHT },
        // Hair and beard colours painted at the output's size, as the result paints them (see coloursAt).
        { cacheKey: req.photoId, quality: PREVIEW_QUALITY, coloursAt: OUTPUT_SIZE },
        // A preview goes ahead of queued generations: its user is waiting on each choice.
        { first: true },
      ).then(
        (out) => {
          if (out.refused) refusals.lookRefused(req, out.refused);
          return out;
        },
        (err) => {
          if (err instanceof ModelError && err.unusablePhoto) refusals.photoRefused(req.photoId, err.message);
          throw err;
        },
      );
    },
    knownRefusal(look) {
      const photo = refusals.ofPhoto(look.photoId);
      if (photo !== undefined) return photo;
      const choices = refusals.ofLook(look);
      return choices && nothingAppliesMessage(choices);
    },
    async checkPhoto({ photoId, photo, signal }) {
      const known = refusals.ofPhoto(photoId);
      if (known !== undefined) return known;
      try {
        // The cheapest job that runs chooseFace: decode and detect, or only the choice on cached faces.
        await run(
          { ...backgroundRequest(photoId, photo, "makeup", defaultOptions("makeup"), true), signal },
          { cacheKey: photoId, prepareOnly: "faces" },
          { first: true },
        );
        return undefined;
      } catch (err) {
        if (err instanceof ModelError && err.unusablePhoto) return err.message;
        throw err;
      }
    },
    workerStats: () => pool.stats(),
    faceCounter: () => ({
      count: (image) => pool.countFaces(image),
      ready: () => pool.ready(),
      loaded: () => pool.faceModelsReady(),
      close: () => Promise.resolve(),
    }),
    ready: () => pool.ready(),
    health: () => pool.health(),
    close: () => {
      closed = true;
      clearTimeout(afterLook);
      for (const w of waiting.splice(0)) w.done(false);
      return pool.close();
    },
  };
  return Promise.resolve(model);
}
