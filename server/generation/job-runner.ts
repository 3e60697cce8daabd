/**
 * The in-process generation job runner. `workers` loops each claim one job
 * at a time (FOR UPDATE SKIP LOCKED with a lease), load the photo, run the
 * image model with a timeout, store every angle it can make and mark the
 * job completed. Transient failures are retried with backoff; the last
 * failure marks the job failed and refunds its credits once.
 *
 * No transaction is held while the model runs (PGlite has one connection and
 * a global transaction lock). A claim is a lease (JOB_LEASE_SECONDS) that a
 * heartbeat renews while the job runs; a process that dies stops renewing, so
 * its jobs are reclaimed by any runner within one lease. On the embedded
 * database no other process can exist, so a start requeues them at once
 * (requeueOrphanedJobs). Finishing is conditional on still holding the claim,
 * so a job completes exactly once.
 *
 * A model that failed to load (health `failed`) cannot run anything: claimed
 * jobs then fail at once with a refund instead of three slow retries.
 */
import { hostname } from "node:os";
import type { Db } from "../../db/client.ts";
import { applyCreditChange } from "../credits/credits.service.ts";
import type { ImageModel } from "../imaging/image-model.ts";
import { ModelError } from "../imaging/image-model.ts";
import { log } from "../log.ts";
import { recordCredits, recordJobFinished, recordModelError } from "../metrics/metrics.ts";
import { readPhotoBytes } from "../photos/photo-serving.ts";
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
  renewLease,
  requeueAllProcessing,
  requeueGeneration,
  saveProgress,
} from "./generation.repository.ts";
import { generationChanged } from "./generation-events.ts";

export const MAX_ATTEMPTS = 3;

const ANGLE_NAMES: Record<Angle, string> = { front: "front", right: "right", left: "left", back: "back" };

/** Tells the user which views of a 360 set are missing (the grid shows the gaps, never copies). */
export function partialSetNote(missing: Angle[]): string {
  const names = missing.map((a) => ANGLE_NAMES[a]);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return `The 360° set is partial: the ${list} ${
    names.length === 1 ? "view" : "views"
  } could not be generated and ${names.length === 1 ? "is" : "are"} missing. The other views are complete.`;
}

/** Default JOB_LEASE_SECONDS: a dead process's jobs are retaken within this long. */
export const DEFAULT_LEASE_MS = 30_000;

export const MODEL_UNAVAILABLE =
  "The image model is not available right now, so this look could not be generated. Your credits have been refunded. Please try again later.";

/**
 * Embedded database only, at start, before the runner starts: the DATA_DIR
 * lock proves no other process exists, so every `processing` job was orphaned
 * by a crash and goes back to the queue now instead of after its lease.
 */
export async function requeueOrphanedJobs(db: Db): Promise<number> {
  const n = await requeueAllProcessing(db, new Date());
  if (n > 0) log.info("requeued jobs orphaned by a crash", { jobs: n });
  return n;
}

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
  /** How long a claim lasts without a heartbeat (renewed every third of it while the job runs). */
  leaseMs?: number;
  /** Recorded as the claim's owner (default host:pid). */
  claimedBy?: string;
}

class JobTimeout extends Error {}

export class JobRunner {
  #opts: Required<JobRunnerOptions>;
  #running = false;
  /** Set by stop(): in-flight jobs aborted by it are requeued at once with their attempt given back. */
  #stopping = false;
  #loops: Promise<void>[] = [];
  #wake: (() => void)[] = [];
  /** Moves on every notify(): a worker whose claim missed a job queued meanwhile sees it moved. */
  #notified = 0;
  #inFlight = new Set<AbortController>();

  constructor(opts: JobRunnerOptions) {
    this.#opts = {
      pollMs: 1000,
      backoffBaseMs: 1000,
      leaseMs: DEFAULT_LEASE_MS,
      claimedBy: `${hostname()}:${Deno.pid}`,
      ...opts,
    };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopping = false;
    for (let i = 0; i < this.#opts.workers; i++) this.#loops.push(this.#loop(i));
    // Jobs queued while the model loads wait for it (runOnce): start them the moment it is ready.
    const ready = this.#opts.model.ready?.();
    ready?.then(() => this.notify(), () => this.notify());
  }

  /** Every worker is asleep until a notify() or its next poll (tests wait for this). */
  get idle(): boolean {
    return this.#running && this.#wake.length === this.#opts.workers;
  }

  /** Wake idle workers (a job was just queued). */
  notify(): void {
    this.#notified++;
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
    const { db, model, leaseMs, claimedBy } = this.#opts;
    const modelState = model.health?.().state;
    if (modelState === "starting") return false; // jobs wait until the model has loaded
    const job = await claimNextGeneration(db, new Date(), leaseMs, claimedBy);
    if (!job) return false;
    if (modelState === "failed" || model.health?.().state === "failed") {
      log.warn("generation failed fast: the image model is unavailable", { id: job.id });
      await this.#fail(job, job.attempts, MODEL_UNAVAILABLE);
      return true;
    }
    const heartbeat = this.#heartbeat(job);
    try {
      await this.#run(job);
    } finally {
      clearInterval(heartbeat);
    }
    return true;
  }

  /** Renews the claim every third of the lease while the job runs; stops when the claim is lost. */
  #heartbeat(job: GenerationRow): ReturnType<typeof setInterval> {
    const { db, leaseMs } = this.#opts;
    const timer = setInterval(async () => {
      try {
        const held = await renewLease(db, job.id, job.attempts, new Date(Date.now() + leaseMs));
        if (!held) {
          clearInterval(timer);
          log.warn("job lease lost: another worker took the job over", { id: job.id, attempt: job.attempts });
        }
      } catch (error) {
        // A missed beat is not fatal: the lease has two more before it expires.
        log.warn("job heartbeat failed", { id: job.id, error });
      }
    }, Math.max(250, Math.floor(leaseMs / 3)));
    return timer;
  }

  async #loop(worker: number): Promise<void> {
    while (this.#running) {
      let ran = false;
      // A job queued after this worker's claim query looked, but before it went to sleep, would
      // otherwise wait a whole poll interval: its notify() found no sleeper to wake.
      const notified = this.#notified;
      try {
        ran = await this.runOnce();
      } catch (error) {
        log.error("job runner loop error", { worker, error });
      }
      if (!ran && this.#running && notified === this.#notified) {
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
      const photoBytes = job.photoId ? await readPhotoBytes(db, storage, job.photoId) : null;
      if (!photoBytes) {
        throw new ModelError("The reference photo is no longer available. Please upload it again.", {
          transient: false,
        });
      }
      const references: Uint8Array[] = [];
      for (const id of job.referencePhotoIds) {
        const bytes = await readPhotoBytes(db, storage, id);
        if (bytes) references.push(bytes);
      }
      const model = this.#opts.model;
      const angles: Angle[] = job.view360
        ? ANGLES.filter((a) => model.capabilities.angles.includes(a))
        : ["front"];
      const results: GenerationResults = {};
      const notes = new Set<string>();
      const base = {
        photo: photoBytes,
        photoId: job.photoId ?? undefined,
        references,
        studioType: job.studioType,
        options: job.options as never,
        intensity: job.intensity as never,
        instructions: job.additionalInstructions,
        width: OUTPUT_WIDTH,
        height: OUTPUT_HEIGHT,
      };
      // The front first; the other angles of a 360 set are conditioned on it (same outfit, hair, makeup).
      let front: Uint8Array | undefined;
      const missing: Angle[] = [];
      let made: { model: string; prompt: string | null } | undefined;
      const modelStarted = performance.now();
      let modelMs = 0;
      for (const angle of angles) {
        const request = { ...base, angle, frontImage: angle === "front" ? undefined : front };
        // A failed front fails (or retries) the whole job; a failed other angle leaves a partial set.
        const out = angle === "front"
          ? await this.#generateWithTimeout(request)
          : await this.#otherAngle(job, request);
        if (!out) {
          missing.push(angle);
          continue;
        }
        const key = newKey(out.mime === "image/png" ? "png" : out.mime === "image/webp" ? "webp" : "jpg");
        await storage.put(key, out.image);
        stored.push(key);
        results[angle] = key;
        if (angle === "front") front = out.image;
        for (const n of out.notes) notes.add(n);
        if (angle === "front") {
          modelMs = performance.now() - modelStarted;
          made = { model: model.name, prompt: out.prompt ?? null };
        }
        // A set's angles are stored as they complete: the status call lists them in resultUrls while
        // the rest still run. A single view is stored by the completion itself (one write, not two).
        if (angles.length > 1) {
          await saveProgress(db, job.id, attempt, { results: { ...results }, ...made });
          generationChanged(job.id); // open status streams show the new angle now
        }
      }
      if (missing.length > 0) notes.add(partialSetNote(missing));
      if (job.view360 && angles.length < ANGLES.length) {
        notes.add(
          `The ${model.name} model renders only the ${angles.join(", ")} view; other angles were not made.`,
        );
      }
      if (await completeGeneration(db, job.id, attempt, results, [...notes], made)) {
        // Where a result's time went (benches read these): waiting in the queue (queued -> claimed),
        // the model's front view, and the whole run (reading the photo, storing, the other angles).
        log.info("generation completed", {
          id: job.id,
          attempt,
          angles,
          queued_ms: Math.max(0, job.updatedAt.getTime() - job.createdAt.getTime()),
          model_ms: Math.round(modelMs),
          run_ms: Math.round(performance.now() - started),
        });
        recordJobFinished("completed", (performance.now() - started) / 1000);
        generationChanged(job.id);
        return;
      }
      // Someone reclaimed the job after our lease expired: their result wins, ours is removed.
      await Promise.all(stored.map((k) => storage.delete(k)));
    } catch (error) {
      await Promise.all(stored.map((k) => storage.delete(k).catch(() => {})));
      // Angles stored as they completed point at the deleted blobs: clear them (a no-op once the claim is gone).
      if (stored.length > 0) await saveProgress(db, job.id, attempt, { results: {} }).catch(() => {});
      const transient = !(error instanceof ModelError) || error.transient;
      recordModelError(
        this.#opts.model.name,
        error instanceof ModelError ? (transient ? "transient" : "refused") : "error",
      );
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

  /**
   * A side or back view of a 360 set, or null (the set is marked partial and keeps its front; the missing
   * angle is never replaced by a copy). Tried once more after a transient failure (a timeout, a crash); a
   * refusal (declined for safety, no image, a refused key, the model's time budget spent) is not: it would be
   * refused, and billed, again, and the set would run past its time. Shutting down propagates, so the job is
   * requeued whole.
   */
  async #otherAngle(job: GenerationRow, req: Parameters<ImageModel["generate"]>[0]) {
    for (let tries = 1; tries <= 2; tries++) {
      try {
        return await this.#generateWithTimeout(req);
      } catch (error) {
        if (this.#stopping) throw error;
        const refused = error instanceof ModelError && !error.transient;
        recordModelError(this.#opts.model.name, refused ? "refused" : "transient");
        log.warn("360 angle failed", { id: job.id, angle: req.angle, try: tries, error });
        if (refused) break;
      }
    }
    return null;
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
