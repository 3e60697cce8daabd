/**
 * Model worker entry: renders jobs one at a time. The neural models are not
 * loaded here: they run in the pool's one face-models worker, which this
 * worker asks over the port the pool sends first (face-models-client.ts).
 * Messages in:  { type: "connect", port } | { type: "job", id, job: RenderJob } | { type: "stats", id }
 *               | { type: "trim" } (idle: give back scratch memory, keep the photo cache)
 *               | { type: "forget", keys } (photos deleted: drop what the cache holds of them)
 * Messages out: { type: "ready" } | { type: "result", id, ok, ... } | { type: "stats", id, ... }
 */
/// <reference lib="deno.worker" />
import sharp from "sharp";
import { log } from "../../log.ts";
import { FaceModelsClient } from "./face-models-client.ts";
import { PhotoCache, render, type RenderJob, UserFacingError } from "./render.ts";
import { matteScratchBytes, releaseMatteScratch } from "./matte-refine.ts";
import { backdropBytes, releaseBackdrops } from "./scene.ts";
import { collectGarbage, heapFigures } from "./worker-memory.ts";

export type WorkerIn =
  | { type: "connect"; port: MessagePort }
  | { type: "trim" }
  | { type: "forget"; keys: string[] }
  | { type: "job"; id: number; job: RenderJob }
  | { type: "stats"; id: number };

/** A worker's own memory, for diagnostics and the memory benchmark. */
export interface WorkerStats {
  /** V8 heap in use in this worker's isolate (after a full GC when `gc` is exposed). */
  heapUsed: number;
  /** V8 heap reserved by this worker's isolate. */
  heapTotal: number;
  /** Array buffers and other memory V8 tracks outside its heap (photos, masks). */
  external: number;
  /** Pixels and masks held by the worker's photo cache. */
  cacheBytes: number;
  /** Scratch planes and backdrops kept from render to render (freed by a trim). */
  scratchBytes: number;
}

export type WorkerOut =
  | { type: "ready" }
  | ({ type: "stats"; id: number } & WorkerStats)
  | {
    type: "result";
    id: number;
    ok: true;
    image: Uint8Array;
    mime: string;
    notes: string[];
    timings: Record<string, number>;
    photoCached: boolean;
    refused?: string[];
  }
  | { type: "result"; id: number; ok: false; message: string; transient: boolean; unusablePhoto?: boolean };

/**
 * Process RSS (bytes; every worker is a thread of the server) above which a worker collects its garbage after
 * a job. A job leaves up to ~120 MB of dead buffers at 1080x1920; the server's target is 600 MB.
 */
const COLLECT_ABOVE_RSS = 450e6;

const post = (msg: WorkerOut, transfer: Transferable[] = []) => self.postMessage(msg, transfer);

// libvips' operation cache (process-wide, up to 50 MB by default) only pays when the same operation runs
// on the same input again; a render never repeats one, so it held memory for nothing.
sharp.cache(false);

const models = new FaceModelsClient();
// Previews of one photo arrive many times a minute: its decode and faces are kept. 40 MB holds the
// photo being styled (a 2048 px photo is ~12 MB decoded) with its output and preview framings (~20 MB
// and ~5 MB with their masks, matte plans and hair measures: the hair's 2.8-5.4 MB at 1080x1920); the
// server's memory target leaves no room for 96 MB per worker.
const photos = new PhotoCache(4, 40e6);
post({ type: "ready" });

self.onmessage = async (ev: MessageEvent<WorkerIn>) => {
  const msg = ev.data;
  if (msg.type === "connect") {
    models.connect(msg.port);
    return;
  }
  if (msg.type === "trim") {
    // The pool is idle: scratch planes, backdrops and the photos' framed canvases and matte plans go (the
    // next look rebuilds them); the photos' decodes, faces and person masks stay, and the last photo's hair
    // measure, so the look their owners ask for after a pause needs neither the face models nor a decode,
    // and its owner's next hair colour no new measure (see PhotoCache.trim).
    releaseMatteScratch();
    releaseBackdrops();
    photos.trim();
    collectGarbage();
    return;
  }
  if (msg.type === "forget") {
    for (const key of msg.keys) photos.delete(key);
    return;
  }
  if (msg.type === "stats") {
    post({
      type: "stats",
      id: msg.id,
      ...heapFigures(),
      cacheBytes: photos.bytes,
      scratchBytes: matteScratchBytes() + backdropBytes(),
    });
    return;
  }
  try {
    const out = await render(models, msg.job, photos);
    post({ type: "result", id: msg.id, ok: true, ...out }, [out.image.buffer as ArrayBuffer]);
  } catch (err) {
    if (err instanceof UserFacingError) {
      // Only chooseFace throws these: the photo's faces, whatever the job asked.
      post({
        type: "result",
        id: msg.id,
        ok: false,
        message: err.message,
        transient: false,
        unusablePhoto: true,
      });
    } else {
      log.error("local image model: job failed", { error: err });
      post({
        type: "result",
        id: msg.id,
        ok: false,
        message: "The image model failed on this photo, please try again",
        transient: true,
      });
    }
  }
  // The job's buffers are dead now. A full collection frees them before the next job allocates its own, but
  // the looks this worker renders next run slower after one (a new photo's 3-34 %, a restyle nearly twice as
  // long; the main thread shows no such effect: docs/decisions/022-photos-prepared-on-upload.md), so it runs
  // only when the process nears its memory target.
  if (Deno.memoryUsage().rss > COLLECT_ABOVE_RSS) collectGarbage();
};
