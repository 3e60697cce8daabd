/**
 * The in-process generation job runner. `workers` loops each claim one job
 * at a time (FOR UPDATE SKIP LOCKED with a lease), load the photo, run the
 * image model with a timeout, store every angle it can make and mark the
 * job completed. Transient failures are retried with backoff; the last
 * failure marks the job failed and refunds its credits once.
 *
 * No transaction is held while the model runs (PGlite has one connection and
 * a global transaction lock). A worker that dies leaves its job `processing`
 * with a lease that expires; any runner then reclaims it. Finishing is
 * conditional on still holding the claim, so a job completes exactly once.
 */
import type { Db } from "../../db/client.ts";
import { applyCreditChange } from "../credits/credits.service.ts";
import type { ImageModel } from "../imaging/image-model.ts";
import { ModelError } from "../imaging/image-model.ts";
import { log } from "../log.ts";
import { recordCredits, recordJobFinished, recordModelError } from "../metrics/metrics.ts";
import { findPhotoById } from "../photos/photos.repository.ts";
import { type Angle, ANGLES, OUTPUT_HEIGHT, OUTPUT_WIDTH } from "../styling/option-keys.ts";
import type { BlobStorage } from "../storage/storage.ts";
import { newKey } from "../storage/storage.ts";
import type { GenerationResults } from "../../db/schema.ts";
import { GENERATION_FAILED } from "./generation.schemas.ts";
import {
  claimNextGeneration,
  completeGeneration,
  failGeneration,
  type GenerationRow,
  requeueGeneration,
} from "./generation.repository.ts";
import { generationChanged } from "./generation-events.ts";

export const MAX_ATTEMPTS = 3;

export interface JobRunnerOptions {
  db: Db;
  storage: BlobStorage;
  model: ImageModel;
  workers: number;
  /** One model call may take this long before it is abandoned. */
  timeoutMs: number;
  /** Idle poll interval (new jobs also wake the runner at once through notify()). */
  pollMs?: number;
  /** Backoff before retry n (1-based): base * 4^(n-1). */
  backoffBaseMs?: number;
}

class JobTimeout extends Error {}

export class JobRunner {
  #opts: Required<JobRunnerOptions>;
  #running = false;
  /** Set by stop(): in-flight jobs aborted by it are requeued at once with their attempt given back. */
  #stopping = false;
  #loops: Promise<void>[] = [];
  #wake: (() => void)[] = [];
  #inFlight = new Set<AbortController>();

  constructor(opts: JobRunnerOptions) {
    this.#opts = { pollMs: 1000, backoffBaseMs: 1000, ...opts };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopping = false;
    for (let i = 0; i < this.#opts.workers; i++) this.#loops.push(this.#loop(i));
  }

  /** Wake idle workers (a job was just queued). */
  notify(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }

  /** Stops claiming; aborts running model calls and requeues their jobs for the next start. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stopping = true;
    for (const c of this.#inFlight) c.abort();
    this.notify();
    await Promise.all(this.#loops);
    this.#loops = [];
  }

  /** Claims and runs at most one job; true when one was run. Exposed for tests and benches. */
  async runOnce(): Promise<boolean> {
    const leaseMs = this.#opts.timeoutMs * ((ANGLES.length) + 1) + 30_000;
    const job = await claimNextGeneration(this.#opts.db, new Date(), leaseMs);
    if (!job) return false;
    await this.#run(job);
    return true;
  }

  async #loop(worker: number): Promise<void> {
    while (this.#running) {
      let ran = false;
      try {
        ran = await this.runOnce();
      } catch (error) {
        log.error("job runner loop error", { worker, error });
      }
      if (!ran && this.#running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#opts.pollMs);
          this.#wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
  }

  async #run(job: GenerationRow): Promise<void> {
    const { db, storage } = this.#opts;
    const attempt = job.attempts;
    const started = performance.now();
    if (attempt > MAX_ATTEMPTS) {
      // Its worker died on the last allowed attempt: give up and refund.
      await this.#fail(job, attempt, GENERATION_FAILED);
      return;
    }
    const stored: string[] = [];
    try {
      const photo = job.photoId ? await findPhotoById(db, job.photoId) : undefined;
      const photoBytes = photo ? await storage.get(photo.storageKey) : null;
      if (!photo || !photoBytes) {
        throw new ModelError("The reference photo is no longer available. Please upload it again.", {
          transient: false,
        });
      }
      const references: Uint8Array[] = [];
      for (const id of job.referencePhotoIds) {
        const ref = await findPhotoById(db, id);
        const bytes = ref ? await storage.get(ref.storageKey) : null;
        if (bytes) references.push(bytes);
      }
      const model = this.#opts.model;
      const angles: Angle[] = job.view360
        ? ANGLES.filter((a) => model.capabilities.angles.includes(a))
        : ["front"];
      const results: GenerationResults = {};
      const notes = new Set<string>();
      for (const angle of angles) {
        const out = await this.#generateWithTimeout({
          photo: photoBytes,
          references,
          studioType: job.studioType,
          options: job.options as never,
          intensity: job.intensity as never,
          instructions: job.additionalInstructions,
          angle,
          width: OUTPUT_WIDTH,
          height: OUTPUT_HEIGHT,
        });
        const key = newKey(out.mime === "image/png" ? "png" : out.mime === "image/webp" ? "webp" : "jpg");
        await storage.put(key, out.image);
        stored.push(key);
        results[angle] = key;
        for (const n of out.notes) notes.add(n);
      }
      if (job.view360 && angles.length < ANGLES.length) {
        notes.add(
          `The ${model.name} model renders only the ${angles.join(", ")} view; other angles were not made.`,
        );
      }
      if (await completeGeneration(db, job.id, attempt, results, [...notes])) {
        log.info("generation completed", { id: job.id, attempt, angles });
        recordJobFinished("completed", (performance.now() - started) / 1000);
        generationChanged(job.id);
        return;
      }
      // Someone reclaimed the job after our lease expired: their result wins, ours is removed.
      await Promise.all(stored.map((k) => storage.delete(k)));
    } catch (error) {
      await Promise.all(stored.map((k) => storage.delete(k).catch(() => {})));
      const transient = !(error instanceof ModelError) || error.transient;
      recordModelError(this.#opts.model.name, error instanceof ModelError ? (transient ? "transient" : "refused") : "error");
      if (this.#stopping && transient) {
        // Shutting down aborted it: hand the job back now rather than after its lease expires,
        // and give the attempt back too. A restart is not a model failure; counting it would
        // let a few deploys during one long job fail and refund it without the model failing.
        await requeueGeneration(db, job.id, attempt, new Date(), { giveBackAttempt: true });
        return;
      }
      if (transient && attempt < MAX_ATTEMPTS) {
        const delay = this.#opts.backoffBaseMs * 4 ** (attempt - 1);
        log.warn("generation attempt failed; retrying", { id: job.id, attempt, delayMs: delay, error });
        await requeueGeneration(db, job.id, attempt, new Date(Date.now() + delay));
        return;
      }
      const message = error instanceof ModelError ? error.message : GENERATION_FAILED;
      log.warn("generation failed", { id: job.id, attempt, error });
      await this.#fail(job, attempt, message);
    }
  }

  async #fail(job: GenerationRow, attempt: number, message: string): Promise<void> {
    const refunded = await this.#opts.db.transaction(async (tx) => {
      const failed = await failGeneration(tx, job.id, attempt, message);
      if (failed && failed.creditsCharged > 0) {
        // Idempotent by (generation_refund, id): a second failure path cannot refund twice.
        const refund = await applyCreditChange(tx, {
          userId: failed.userId,
          delta: failed.creditsCharged,
          reason: "generation_refund",
          ref: failed.id,
        });
        return refund.applied ? failed.creditsCharged : 0;
      }
      return failed ? 0 : null;
    });
    if (refunded === null) return; // someone else finished it
    recordJobFinished("failed", (Date.now() - job.updatedAt.getTime()) / 1000);
    generationChanged(job.id);
    if (refunded > 0) recordCredits("refunded", refunded);
  }

  async #generateWithTimeout(req: Parameters<ImageModel["generate"]>[0]) {
    const controller = new AbortController();
    this.#inFlight.add(controller);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new JobTimeout(`model timed out after ${this.#opts.timeoutMs} ms`));
        }, this.#opts.timeoutMs);
      });
      // The race guards against a model that ignores its abort signal.
      return await Promise.race([this.#opts.model.generate({ ...req, signal: controller.signal }), timeout]);
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(controller);
    }
  }
}
