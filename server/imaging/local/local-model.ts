/**
 * The local image model (offline, no GPU): a face-aware renderer running in a
 * pool of worker threads. See ARCHITECTURE.md "The image model" and
 * notes/local-model.md.
 */
import type { ImageModel, ImageRequest, ImageResult } from "../image-model.ts";
import { ModelError } from "../image-model.ts";
import { LOCAL_CAPABILITIES } from "./capabilities.ts";
import type { OutputFormat, RenderOutput } from "./render.ts";
import { WorkerPool } from "./worker-pool.ts";
import type { WorkerStats } from "./worker.ts";

export interface LocalModelOptions {
  /** Worker threads (JOB_WORKERS); at least 1. */
  workers: number;
  /** Output encoding; default high-quality JPEG. */
  format?: OutputFormat;
}

export interface LocalModel extends ImageModel {
  /** Resolves when every worker has loaded its models. */
  ready(): Promise<void>;
  /** generate() plus per-stage timings (bench and diagnostics). */
  generateWithTimings(req: ImageRequest): Promise<RenderOutput>;
  /** Each worker's heap and live tensors (bench and diagnostics). */
  workerStats(): Promise<WorkerStats[]>;
}

export function createLocalModel(opts: LocalModelOptions): Promise<LocalModel> {
  const pool = new WorkerPool(Math.max(1, Math.floor(opts.workers || 1)));
  const format = opts.format ?? "jpeg";
  const run = (req: ImageRequest): Promise<RenderOutput> => {
    if (req.angle !== "front") {
      return Promise.reject(
        new ModelError("The local model can only render the front view", { transient: false }),
      );
    }
    return pool.run({
      photo: req.photo,
      studioType: req.studioType,
      options: req.options,
      intensity: req.intensity,
      instructions: req.instructions,
      references: req.references.length,
      width: req.width,
      height: req.height,
      format,
    }, req.signal);
  };
  const model: LocalModel = {
    name: "local",
    capabilities: LOCAL_CAPABILITIES,
    async generate(req: ImageRequest): Promise<ImageResult> {
      const out = await run(req);
      return { image: out.image, mime: out.mime, notes: out.notes };
    },
    generateWithTimings: run,
    workerStats: () => pool.stats(),
    ready: () => pool.ready(),
    close: () => pool.close(),
  };
  return Promise.resolve(model);
}
