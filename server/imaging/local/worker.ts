/**
 * Worker thread entry: loads the models once, then renders jobs one at a time.
 * Messages in:  { type: "job", id, job: RenderJob } | { type: "stats", id }
 * Messages out: { type: "ready" } | { type: "result", id, ok, ... } | { type: "stats", id, ... }
 */
/// <reference lib="deno.worker" />
import sharp from "sharp";
import { log } from "../../log.ts";
import { FaceEngine } from "./face-engine.ts";
import { PhotoCache, render, type RenderJob, UserFacingError } from "./render.ts";

export type WorkerIn = { type: "job"; id: number; job: RenderJob } | { type: "stats"; id: number };

/** A worker's own memory, for diagnostics and the memory benchmark. */
export interface WorkerStats {
  /** V8 heap in use in this worker's isolate (after a full GC when `gc` is exposed). */
  heapUsed: number;
  /** Live tfjs tensors. */
  tensors: number;
}

export type WorkerOut =
  | { type: "ready" }
  | ({ type: "stats"; id: number } & WorkerStats)
  | { type: "fatal"; message: string }
  | {
    type: "result";
    id: number;
    ok: true;
    image: Uint8Array;
    mime: string;
    notes: string[];
    timings: Record<string, number>;
  }
  | { type: "result"; id: number; ok: false; message: string; transient: boolean };

const post = (msg: WorkerOut, transfer: Transferable[] = []) => self.postMessage(msg, transfer);

// libvips' operation cache (process-wide, up to 50 MB by default) only pays when the same operation runs
// on the same input again; a render never repeats one, so it held memory for nothing.
sharp.cache(false);

const engine = FaceEngine.load();
// Previews of one photo arrive many times a minute: its decode and faces are kept.
const photos = new PhotoCache(4);
engine.then(
  () => post({ type: "ready" }),
  (err) => post({ type: "fatal", message: String(err?.stack ?? err) }),
);

self.onmessage = async (ev: MessageEvent<WorkerIn>) => {
  const msg = ev.data;
  if (msg.type === "stats") {
    // Run with --v8-flags=--expose-gc (the benchmark does) for a heap figure free of GC timing.
    (globalThis as { gc?: () => void }).gc?.();
    const tensors = (await engine).tensorCount();
    post({ type: "stats", id: msg.id, heapUsed: Deno.memoryUsage().heapUsed, tensors });
    return;
  }
  try {
    const out = await render(await engine, msg.job, photos);
    post({ type: "result", id: msg.id, ok: true, ...out }, [out.image.buffer as ArrayBuffer]);
  } catch (err) {
    if (err instanceof UserFacingError) {
      post({ type: "result", id: msg.id, ok: false, message: err.message, transient: false });
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
};
