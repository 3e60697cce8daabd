/**
 * A fixed pool of Deno workers running the local model. Jobs queue until a
 * worker is free; a crashed or aborted worker is replaced, and its in-flight
 * job rejects at once with a transient ModelError.
 *
 * A worker stopped mid-render (an abort, a timeout, close) is retired, not
 * terminated on the spot: libvips threads may still be reading its buffers,
 * and terminating the worker frees them under those threads (a segfault that
 * takes the whole process down). It is terminated when its render answers
 * (render settles all its libvips work first), or after RETIRE_TIMEOUT_MS.
 *
 * Memory: a worker is replaced by a fresh one after RECYCLE_AFTER_JOBS jobs,
 * a bound on whatever its process memory gains over a long busy spell (its
 * heap stays flat: 11-13 MB over 200 looks). The replacement waits for the
 * pool's next idle spell (at most until twice as many jobs): it is loaded
 * beside the old worker and swapped in once ready, and the photo the old one
 * ran last is handed to `onReplaced` (the model prepares it again on the fresh
 * worker), so a user styling a photo never meets it cold. Once the pool has been
 * idle for IDLE_MS, every other worker that ran anything is trimmed (its scratch
 * planes and backdrops are freed; its photo cache stays, so a look asked for
 * after a pause still renders warm) and the face-models worker is replaced, and
 * the process returns to near its idle size after a busy spell.
 *
 * The neural models (face detector, mesh, segmenter) run in one face-models
 * worker shared by the pool (face-models-worker.ts): each model worker gets a
 * MessagePort to it. The pool waits for it before running jobs, replaces it
 * when it crashes (the renders waiting on it fail, transient), and replaces it
 * after an idle spell too (its wasm memory only grows). A model that fails to
 * load fails the pool. It also answers face counts (countFaces: the hosted
 * models' output check in hybrid mode), outside the render queue.
 */
import { log } from "../../log.ts";
import { ModelError, type ModelHealth } from "../image-model.ts";
import type { RenderJob, RenderOutput } from "./render.ts";
import type { WorkerIn, WorkerOut, WorkerStats } from "./worker.ts";
import type { FaceModelsIn, FaceModelsOut, FaceModelsStats } from "./face-models-worker.ts";
import type { FaceCount } from "./face-count.ts";

interface Pending {
  job: RenderJob;
  /** Goes ahead of the queued jobs without it (a live preview: its user is waiting on each choice). */
  first?: boolean;
  signal?: AbortSignal;
  resolve: (r: RenderOutput) => void;
  reject: (e: Error) => void;
}

/**
 * Jobs a worker runs before it is due for replacement by a fresh one, at the pool's next idle spell (at twice as
 * many it is replaced at once). The fresh worker has none of the photos the old one held, and its code is not
 * compiled yet: a look on the photo being styled renders cold there (1.0-1.4 s for a hair colour's preview), so
 * the last photo is prepared again on it (see `onReplaced`). At 40, a user trying shades met a cold photo about
 * once a minute; 200 looks on six photos took 26.1 s with it and 17.9 s without, and the process RSS went
 * 404 -> 465 MB without it (371-444 MB with).
 */
export const RECYCLE_AFTER_JOBS = 400;
/** A pool idle this long trims its workers and replaces the face-models worker (see the top of this file). */
export const IDLE_MS = 30_000;
/** A retired worker whose render has not answered by then is terminated anyway (a stuck job). */
export const RETIRE_TIMEOUT_MS = 30_000;

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Jobs this worker has run, preparations not counted (RECYCLE_AFTER_JOBS). */
  jobs: number;
  /** It ran a job or a preparation since it was last trimmed. */
  dirty: boolean;
  current?: { id: number; pending: Pending; onAbort?: () => void };
  /** Cache keys of the photos this worker last prepared (mirrors its PhotoCache). */
  keys: string[];
  /** The photo of the last job with a cache key (prepared again on this worker's replacement). */
  lastPhoto?: CachedPhoto;
  /** A fresh worker loading to replace this one at an idle spell (see renew). */
  successor?: Slot;
  /** On a successor: the slot it replaces. */
  predecessor?: Slot;
  /** Deleted photos' keys to forget again once the current job settles (it may cache them meanwhile). */
  forgetAfterJob?: string[];
}

/** A photo a worker holds in its PhotoCache, under its cache key. */
export interface CachedPhoto {
  cacheKey: string;
  photo: Uint8Array;
}

export interface PoolOptions {
  /** See RECYCLE_AFTER_JOBS. */
  recycleAfterJobs?: number;
  /** See IDLE_MS. */
  idleMs?: number;
  /** A worker was replaced: the photo it ran last, to prepare again (the fresh worker holds no photo). */
  onReplaced?: (photos: CachedPhoto[]) => void;
}

/** As many keys as a worker's PhotoCache holds. */
const CACHED_KEYS = 4;

interface ModelsSlot {
  worker: Worker;
  ready: boolean;
  /** A job was given to the pool since it started (the wasm memory it holds may have grown). */
  used: boolean;
}

/** A face count asked of the face-models worker (see countFaces). */
interface Count {
  /** The image, until it is sent. */
  image?: Uint8Array;
  /** The face-models worker it was sent to, once sent (it waits for one that is ready). */
  sentTo?: ModelsSlot;
  resolve: (c: FaceCount) => void;
  reject: (e: Error) => void;
}

/** A stats request waiting for its worker's answer (see askStats). */
interface StatsRequest {
  worker: Worker;
  resolve: (s: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** A stats request whose worker was terminated or retired before it answered (stats asks again). */
class WorkerGone extends Error {}

/** A worker that has not answered a stats request by then fails it (stats never hangs). */
export const STATS_TIMEOUT_MS = 30_000;

/** What the pool's workers hold (bench and diagnostics). */
export interface PoolStats {
  /** Each model worker's own figures, and the jobs it has run (RECYCLE_AFTER_JOBS: a fresh worker's start at 0). */
  workers: (WorkerStats & { jobs: number })[];
  faceModels: FaceModelsStats;
}

export class WorkerPool {
  private slots: Slot[] = [];
  private queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Stats requests to any of the pool's workers, by id (see askStats). */
  private statsWaiting = new Map<number, StatsRequest>();
  /** Face counts not answered yet, by id. */
  private counts = new Map<number, Count>();
  private models: ModelsSlot;
  /** A fresh face-models worker loading to replace `models` once the pool is idle (see onIdle). */
  private nextModels: ModelsSlot | undefined;
  private failure: string | null = null;
  private lastCallAt: string | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Workers stopped mid-render, each settling when it is terminated (see retire). */
  private retiring = new Set<Promise<void>>();

  private readonly recycleAfterJobs: number;
  private readonly idleMs: number;
  private readonly onReplaced: (photos: CachedPhoto[]) => void;

  constructor(readonly size: number, opts: PoolOptions = {}) {
    this.recycleAfterJobs = opts.recycleAfterJobs ?? RECYCLE_AFTER_JOBS;
    this.idleMs = opts.idleMs ?? IDLE_MS;
    this.onReplaced = opts.onReplaced ?? (() => {});
    this.models = this.spawnModels();
    for (let i = 0; i < Math.max(1, size); i++) this.slots.push(this.spawn());
  }

  private spawnModels(): ModelsSlot {
    const worker = new Worker(new URL("./face-models-worker.ts", import.meta.url).href, { type: "module" });
    const models: ModelsSlot = { worker, ready: false, used: false };
    worker.onmessage = (ev: MessageEvent<FaceModelsOut>) => this.onModelsMessage(models, ev.data);
    worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      log.error("local image model: face-models worker crashed", { message: ev.message });
      this.kill(worker);
      if (this.closed) return;
      if (models === this.nextModels) {
        this.nextModels = undefined;
        return;
      }
      // The renders and counts waiting on it fail (their ports are replaced); the next ones wait for the new one.
      const err = new ModelError("The image model crashed, please try again", { transient: true });
      for (const [id, c] of this.counts) {
        if (c.sentTo !== models) continue;
        this.counts.delete(id);
        c.reject(err);
      }
      this.models = this.spawnModels();
      for (const slot of this.withSuccessors()) this.connect(slot);
    };
    return models;
  }

  private onModelsMessage(models: ModelsSlot, msg: FaceModelsOut): void {
    if (msg.type === "ready") {
      models.ready = true;
      if (models === this.nextModels) this.swapModels();
      this.pump();
      return;
    }
    if (msg.type === "stats") return this.answerStats(msg);
    if (msg.type === "count") {
      const { type: _, id, ...count } = msg;
      this.counts.get(id)?.resolve(count);
      this.counts.delete(id);
      // The idle swap may have waited for this count.
      this.pump();
      return;
    }
    log.error("local image model: models failed to load", { message: msg.message });
    this.failure = `A model file failed to load: ${msg.message}`;
    void this.stop(new ModelError("The image model could not start", { transient: true }));
  }

  /** The slots and the fresh workers loading to replace them (each needs a port to the face models). */
  private withSuccessors(): Slot[] {
    return this.slots.flatMap((s) => (s.successor ? [s, s.successor] : [s]));
  }

  /** A fresh channel between `slot`'s worker and the current face-models worker. */
  private connect(slot: Slot): void {
    const { port1, port2 } = new MessageChannel();
    const toModels: FaceModelsIn = { type: "connect", port: port1 };
    this.models.worker.postMessage(toModels, [port1]);
    const toWorker: WorkerIn = { type: "connect", port: port2 };
    slot.worker.postMessage(toWorker, [port2]);
  }

  /** Puts the fresh face-models worker in place once no render can be waiting on the old one. */
  private swapModels(): void {
    const next = this.nextModels;
    if (!next?.ready || this.slots.some((s) => s.current)) return;
    const old = this.models;
    if ([...this.counts.values()].some((c) => c.sentTo === old)) return;
    this.models = next;
    this.nextModels = undefined;
    for (const slot of this.withSuccessors()) this.connect(slot);
    this.kill(old.worker);
  }

  private spawn(): Slot {
    const worker = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
    const slot: Slot = { worker, ready: false, jobs: 0, dirty: false, keys: [] };
    this.connect(slot);
    worker.onmessage = (ev: MessageEvent<WorkerOut>) => this.onMessage(slot, ev.data);
    worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      log.error("local image model: worker crashed", { message: ev.message });
      if (slot.predecessor) return this.dropSuccessor(slot.predecessor);
      const err = new ModelError("The image model crashed, please try again", { transient: true });
      this.replace(slot, err, { crashed: true });
    };
    return slot;
  }

  /** Stops the fresh worker loading to replace `slot`, if any (the slot was replaced another way, or closed). */
  private dropSuccessor(slot: Slot): void {
    const next = slot.successor;
    if (!next) return;
    slot.successor = undefined;
    next.predecessor = undefined;
    this.kill(next.worker);
  }

  /** Loads a fresh worker beside `slot`, swapped in once it is ready and `slot` is free (see promote). */
  private renew(slot: Slot): void {
    if (slot.successor || this.closed) return;
    const next = this.spawn();
    next.predecessor = slot;
    slot.successor = next;
  }

  /**
   * Puts a ready successor in its predecessor's place, when that one runs nothing, and hands the photo the old
   * worker ran last to onReplaced. A predecessor still rendering is replaced when its job settles.
   */
  private promote(next: Slot): void {
    const old = next.predecessor;
    if (!old || !next.ready || old.current || this.closed) return;
    const i = this.slots.indexOf(old);
    if (i < 0) return this.dropSuccessor(old);
    old.successor = undefined;
    next.predecessor = undefined;
    this.swap(i, old, next);
  }

  /** Puts `next` in slot `i`, terminates `old` (it runs nothing) and hands over the photo it ran last. */
  private swap(i: number, old: Slot, next: Slot): void {
    this.slots[i] = next;
    this.kill(old.worker);
    if (old.lastPhoto) this.onReplaced([old.lastPhoto]);
  }

  /** Has `slot`'s worker drop what its PhotoCache holds under `keys`. */
  private tellForget(slot: Slot, keys: string[]): void {
    const msg: WorkerIn = { type: "forget", keys };
    slot.worker.postMessage(msg);
  }

  /**
   * Stops the slot's worker and fails the job it was running, if any. A
   * worker still rendering is retired (see the top of this file), unless it
   * crashed: then nothing of it runs on.
   */
  private terminate(slot: Slot, err: ModelError, { crashed = false } = {}): void {
    this.dropSuccessor(slot);
    const cur = slot.current;
    slot.current = undefined;
    if (cur && !crashed) this.retire(slot.worker);
    else this.kill(slot.worker);
    if (cur) {
      if (cur.onAbort) cur.pending.signal?.removeEventListener("abort", cur.onAbort);
      cur.pending.reject(err);
    }
  }

  /** Terminates `worker` once its render answers (its libvips work settled), or after RETIRE_TIMEOUT_MS. */
  private retire(worker: Worker): void {
    // Its answers are no longer read (onmessage is replaced below).
    this.failStats(worker);
    const gone = new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        worker.terminate();
        resolve();
      };
      const timer = setTimeout(stop, RETIRE_TIMEOUT_MS);
      worker.onmessage = (ev: MessageEvent<WorkerOut>) => {
        if (ev.data.type === "result") stop();
      };
      worker.onerror = (ev: ErrorEvent) => {
        ev.preventDefault();
        stop();
      };
    });
    this.retiring.add(gone);
    gone.then(() => this.retiring.delete(gone));
  }

  /** Workers stopped mid-render that have not answered yet. */
  get retiringCount(): number {
    return this.retiring.size;
  }

  private replace(slot: Slot, err: ModelError, how: { crashed?: boolean } = {}): void {
    this.terminate(slot, err, how);
    const i = this.slots.indexOf(slot);
    if (i >= 0 && !this.closed) {
      this.slots[i] = this.spawn();
    } else if (i >= 0) this.slots.splice(i, 1);
  }

  private onMessage(slot: Slot, msg: WorkerOut): void {
    if (msg.type === "ready") {
      slot.ready = true;
      if (slot.predecessor) this.promote(slot);
      this.pump();
      return;
    }
    if (msg.type === "stats") return this.answerStats(msg);
    const cur = slot.current;
    if (!cur || cur.id !== msg.id) return;
    slot.current = undefined;
    if (!cur.pending.job.prepareOnly) slot.jobs++;
    if (slot.forgetAfterJob) {
      this.tellForget(slot, slot.forgetAfterJob);
      slot.forgetAfterJob = undefined;
    }
    this.lastCallAt = new Date().toISOString();
    if (cur.onAbort) cur.pending.signal?.removeEventListener("abort", cur.onAbort);
    // Due since the last idle spell: its successor, loaded meanwhile, takes over now. A pool never idle replaces
    // it at twice its jobs all the same.
    if (slot.successor?.ready) this.promote(slot.successor);
    else if (slot.jobs >= 2 * this.recycleAfterJobs) this.recycle(slot);
    if (msg.ok) {
      const { image, mime, notes, timings, photoCached, refused } = msg;
      cur.pending.resolve({ image, mime, notes, timings, photoCached, ...(refused ? { refused } : {}) });
    } else {
      cur.pending.reject(
        new ModelError(msg.message, { transient: msg.transient, unusablePhoto: msg.unusablePhoto }),
      );
    }
    this.pump();
  }

  /** Replaces an idle worker by a fresh one at once (its memory goes with it); see RECYCLE_AFTER_JOBS. */
  private recycle(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0 || slot.current || this.closed) return;
    this.dropSuccessor(slot);
    this.swap(i, slot, this.spawn());
  }

  /**
   * The pool has been idle for IDLE_MS: the workers that ran anything give back their scratch memory
   * (they stay, ready, with their photo caches) and a fresh face-models worker is loaded, swapped in
   * once it is ready and no render can be waiting on the old one.
   */
  private onIdle(): void {
    if (this.closed) return;
    for (const slot of this.slots.filter((s) => s.dirty && s.ready)) {
      slot.dirty = false;
      // A worker due for replacement is replaced now (nothing to trim on the fresh one).
      if (slot.jobs >= this.recycleAfterJobs) {
        this.renew(slot);
        continue;
      }
      const msg: WorkerIn = { type: "trim" };
      slot.worker.postMessage(msg);
    }
    if (this.models.used && !this.nextModels) this.nextModels = this.spawnModels();
  }

  private scheduleIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.closed || this.queue.length || this.counts.size || this.slots.some((s) => s.current)) return;
    if (!this.slots.some((s) => s.dirty) && !this.models.used) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.onIdle();
    }, this.idleMs);
    // An idle pool must not keep the process (or a test) alive.
    Deno.unrefTimer(this.idleTimer as unknown as number);
  }

  /** `starting` until the face models have loaded and a model worker is up, `failed` when they could not load. */
  health(): ModelHealth {
    if (this.failure) return { state: "failed", detail: this.failure, lastCallAt: this.lastCallAt };
    const ready = this.models.ready && this.slots.some((s) => s.ready);
    return { state: ready ? "ready" : "starting", lastCallAt: this.lastCallAt };
  }

  private pump(): void {
    this.swapModels();
    this.scheduleIdle();
    if (!this.models.ready) return;
    this.sendCounts();
    for (let q = 0; q < this.queue.length;) {
      const free = this.slots.filter((s) => s.ready && !s.current);
      if (free.length === 0) return;
      // A photo goes back to the worker that has it decoded, when that one is free. A look waits for a worker
      // still preparing the photo (see RenderJob.prepareOnly): it then starts warm, sooner than a cold render of
      // the photo on another worker would end. A preparation's next step (see PREPARE_STEPS) waits for the
      // worker that holds the photo while that one runs a look: elsewhere it would decode and search it again.
      const { job } = this.queue[q], key = job.cacheKey;
      const holder = key ? free.find((s) => s.keys.includes(key)) : undefined;
      const waitFor = job.prepareOnly
        ? (s: Slot) => s.keys.includes(key!)
        : (s: Slot) => !!s.current?.pending.job.prepareOnly && s.current.pending.job.cacheKey === key;
      if (key && !holder && this.slots.some(waitFor)) {
        q++;
        continue;
      }
      const pending = this.queue.splice(q, 1)[0];
      const slot = holder ?? free[0];
      if (key) {
        slot.keys = [key, ...slot.keys.filter((k) => k !== key)].slice(0, CACHED_KEYS);
        slot.lastPhoto = { cacheKey: key, photo: pending.job.photo };
      }
      const id = this.nextId++;
      const onAbort = () => {
        this.replace(slot, abortError(pending.signal));
        this.pump();
      };
      pending.signal?.addEventListener("abort", onAbort, { once: true });
      slot.current = { id, pending, onAbort };
      slot.dirty = true;
      this.models.used = true;
      const photo = pending.job.photo.slice();
      const msg: WorkerIn = { type: "job", id, job: { ...pending.job, photo } };
      slot.worker.postMessage(msg, [photo.buffer]);
    }
  }

  /**
   * The photos under `keys` were deleted: every worker (and a fresh one loading) drops what its cache holds of
   * them, a worker rendering one drops it again once that job settles, queued jobs on them keep nothing (a
   * queued preparation is dropped, failing), and no replaced worker hands them over (see onReplaced).
   */
  forget(keys: readonly string[]): void {
    const gone = new Set(keys);
    if (gone.size === 0 || this.closed) return;
    for (const slot of this.withSuccessors()) {
      slot.keys = slot.keys.filter((k) => !gone.has(k));
      if (slot.lastPhoto && gone.has(slot.lastPhoto.cacheKey)) slot.lastPhoto = undefined;
      this.tellForget(slot, [...gone]);
      const running = slot.current?.pending.job.cacheKey;
      if (running && gone.has(running)) slot.forgetAfterJob = [...slot.forgetAfterJob ?? [], running];
    }
    for (const p of this.queue.slice()) {
      if (!p.job.cacheKey || !gone.has(p.job.cacheKey)) continue;
      if (p.job.prepareOnly) {
        this.queue.splice(this.queue.indexOf(p), 1);
        p.reject(new ModelError("The photo was deleted", { transient: false }));
      } else p.job = { ...p.job, cacheKey: undefined };
    }
  }

  run(job: RenderJob, signal?: AbortSignal, { first = false } = {}): Promise<RenderOutput> {
    if (this.closed) {
      return Promise.reject(new ModelError("The image model is shut down", { transient: true }));
    }
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const pending: Pending = { job, first, signal, resolve, reject };
      const onQueuedAbort = () => {
        const i = this.queue.indexOf(pending);
        if (i >= 0) {
          this.queue.splice(i, 1);
          reject(abortError(signal));
        }
      };
      signal?.addEventListener("abort", onQueuedAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onQueuedAbort);
      pending.resolve = (r) => {
        done();
        resolve(r);
      };
      pending.reject = (e) => {
        done();
        reject(e);
      };
      const behind = first ? this.queue.findIndex((p) => !p.first) : -1;
      if (behind >= 0) this.queue.splice(behind, 0, pending);
      else this.queue.push(pending);
      this.pump();
    });
  }

  /**
   * How many faces an encoded image shows (countFaces in the face-models
   * worker). Counts do not queue behind renders: the face-models worker takes
   * them between the renders' requests.
   */
  countFaces(image: Uint8Array): Promise<FaceCount> {
    if (this.closed) {
      return Promise.reject(new ModelError("The image model is shut down", { transient: true }));
    }
    return new Promise<FaceCount>((resolve, reject) => {
      this.counts.set(this.nextId++, { image, resolve, reject });
      this.pump();
    });
  }

  /** Sends the counts not sent yet to the face-models worker (it is ready). */
  private sendCounts(): void {
    for (const [id, c] of this.counts) {
      if (c.sentTo || !c.image) continue;
      c.sentTo = this.models;
      this.models.used = true;
      // A copy to move: the caller may still use its image.
      const image = c.image.slice();
      c.image = undefined;
      const msg: FaceModelsIn = { type: "count", id, image };
      this.models.worker.postMessage(msg, [image.buffer]);
    }
  }

  /** True once the face models have loaded (countFaces answers without waiting for them). */
  faceModelsReady(): boolean {
    return this.models.ready && !this.failure;
  }

  /** Jobs run by each current worker (a recycled worker starts again at 0). */
  jobCounts(): number[] {
    return this.slots.map((s) => s.jobs);
  }

  /**
   * Each model worker's own memory (answered between jobs), and the face-models worker's. A worker
   * replaced while it was asked (recycled, retired, the idle swap of the face models) is not waited
   * for: the pool as it then stands is asked again.
   */
  async stats(): Promise<PoolStats> {
    for (let attempt = 1;; attempt++) {
      if (this.closed) throw new ModelError("The image model is shut down", { transient: true });
      const asked = this.slots.map((slot) =>
        this.askStats<WorkerStats>(slot.worker).then((s) => ({ ...s, jobs: slot.jobs }))
      );
      const faceModels = this.askStats<FaceModelsStats>(this.models.worker);
      try {
        const [models, ...workers] = await Promise.all([faceModels, ...asked]);
        return { workers, faceModels: models };
      } catch (e) {
        // Every ask settles before the next attempt (none is left to reject unheard).
        await Promise.allSettled([faceModels, ...asked]);
        if (!(e instanceof WorkerGone) || attempt >= 5) throw e;
      }
    }
  }

  /** A model worker's or the face-models worker's stats (both answer `{ type: "stats", id }`). */
  private askStats<T>(worker: Worker): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.statsWaiting.delete(id);
        reject(new ModelError("The image model did not answer in time", { transient: true }));
      }, STATS_TIMEOUT_MS);
      this.statsWaiting.set(id, { worker, resolve: resolve as (s: unknown) => void, reject, timer });
      const msg: WorkerIn & FaceModelsIn = { type: "stats", id };
      worker.postMessage(msg);
    });
  }

  private answerStats({ type: _, id, ...stats }: { type: "stats"; id: number }): void {
    const req = this.statsWaiting.get(id);
    if (!req) return;
    this.statsWaiting.delete(id);
    clearTimeout(req.timer);
    req.resolve(stats);
  }

  /** Fails the stats requests `worker` will no longer answer. */
  private failStats(worker: Worker): void {
    for (const [id, req] of this.statsWaiting) {
      if (req.worker !== worker) continue;
      this.statsWaiting.delete(id);
      clearTimeout(req.timer);
      req.reject(new WorkerGone("The worker was replaced"));
    }
  }

  /** Terminates `worker` at once (nothing of it may still run: see retire). */
  private kill(worker: Worker): void {
    this.failStats(worker);
    worker.terminate();
  }

  /** Resolves once every worker has loaded its models. */
  async ready(timeoutMs = 60_000): Promise<void> {
    const start = Date.now();
    while (!this.models.ready || !this.slots.every((s) => s.ready)) {
      if (this.closed) throw new ModelError("The image model could not start", { transient: true });
      if (Date.now() - start > timeoutMs) {
        throw new ModelError("The image model did not start in time", { transient: true });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Fails queued and running jobs at once; resolves when every worker is terminated. */
  close(): Promise<void> {
    return this.stop(new ModelError("The image model is shut down", { transient: true }));
  }

  /** Fails queued and running jobs with `err` and stops every worker (close, or models that cannot load). */
  private async stop(err: ModelError): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const p of this.queue.splice(0)) p.reject(err);
    for (const c of this.counts.values()) c.reject(err);
    this.counts.clear();
    for (const slot of this.slots.splice(0)) this.terminate(slot, err);
    if (this.nextModels) this.kill(this.nextModels.worker);
    // Retired workers may still wait on the face models to finish their render.
    await Promise.all(this.retiring);
    this.kill(this.models.worker);
  }
}

function abortError(signal?: AbortSignal): ModelError {
  const reason = signal?.reason;
  const msg = reason instanceof Error && reason.name === "TimeoutError"
    ? "The image model took too long"
    : "The generation was cancelled";
  return new ModelError(msg, { transient: true });
}
