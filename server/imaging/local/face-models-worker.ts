/**
 * The pool's one face-models worker: Human's face detector and mesh and the
 * selfie segmenter (FaceEngine), loaded once for every model worker.
 *
 * Each model worker loading its own copy cost ~30 MB (Human's code and the
 * models' tensors) plus the tfjs wasm memory its first photos touched (~25
 * MB, never given back): two workers held two copies of the same weights. The
 * model workers now ask this worker over a MessagePort each (the pool connects
 * them); requests are answered one at a time in arrival order (Human's detect
 * is not re-entrant, and tfjs runs one model at a time anyway).
 *
 * It also counts the faces in an encoded image for the hosted models' output
 * check in hybrid mode (countFaces), so that mode loads the models once.
 *
 * Messages in (from the pool): { type: "connect", port } | { type: "stats", id } | { type: "count", id, image }
 * Messages out: { type: "ready" } | { type: "fatal", message } | { type: "stats", id, ... } | { type: "count", id, ... }
 * On a port: FaceModelsRequest in, FaceModelsReply out.
 */
/// <reference lib="deno.worker" />
import { type DetectedFace, FaceEngine, type RawImage } from "./face-engine.ts";
import type { FaceCount } from "./face-count.ts";
import { heapFigures } from "./worker-memory.ts";

export type FaceModelsRequest =
  | { id: number; type: "detect"; image: RawImage }
  | { id: number; type: "segment"; input: Float32Array };

export type FaceModelsReply =
  | { id: number; ok: true; faces: DetectedFace[] }
  | { id: number; ok: true; mask: Float32Array }
  | { id: number; ok: false; message: string };

export type FaceModelsIn =
  | { type: "connect"; port: MessagePort }
  | { type: "stats"; id: number }
  | { type: "count"; id: number; image: Uint8Array };

/** The face-models worker's own memory (bench and diagnostics). */
export interface FaceModelsStats {
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** Live tfjs tensors (flat from job to job: nothing leaks). */
  tensors: number;
  /** The tfjs wasm module's linear memory (it only grows). */
  wasmBytes: number;
}

export type FaceModelsOut =
  | { type: "ready" }
  | { type: "fatal"; message: string }
  | ({ type: "stats"; id: number } & FaceModelsStats)
  | ({ type: "count"; id: number } & FaceCount);

const post = (msg: FaceModelsOut) => self.postMessage(msg);
const engine = FaceEngine.load();
engine.then(
  () => post({ type: "ready" }),
  (err) => post({ type: "fatal", message: String(err?.stack ?? err) }),
);

/** The requests of every model worker, one at a time. */
let turn: Promise<unknown> = Promise.resolve();

async function answer(req: FaceModelsRequest): Promise<{ reply: FaceModelsReply; transfer: Transferable[] }> {
  try {
    const e = await engine;
    if (req.type === "detect") {
      return { reply: { id: req.id, ok: true, faces: await e.detect(req.image) }, transfer: [] };
    }
    const mask = await e.segment(req.input);
    // dataSync may hand back a view of tfjs's own memory: answer a copy the port can move.
    const own = mask.byteOffset === 0 && mask.byteLength === mask.buffer.byteLength ? mask : mask.slice();
    return { reply: { id: req.id, ok: true, mask: own }, transfer: [own.buffer] };
  } catch (err) {
    return {
      reply: { id: req.id, ok: false, message: String((err as Error)?.message ?? err) },
      transfer: [],
    };
  }
}

self.onmessage = async (ev: MessageEvent<FaceModelsIn>) => {
  const msg = ev.data;
  if (msg.type === "connect") {
    const port = msg.port;
    port.onmessage = (m: MessageEvent<FaceModelsRequest>) => {
      const next = turn.then(() => answer(m.data)).then(({ reply, transfer }) =>
        port.postMessage(reply, transfer)
      );
      turn = next.catch(() => {});
    };
    return;
  }
  if (msg.type === "count") {
    const { id, image } = msg;
    // Loaded on the first count (hybrid mode only): sharp and the decoder are not this worker's
    // start-up cost, which every start waits for.
    const next = turn.then(async () => {
      try {
        const { countFaces } = await import("./face-count.ts");
        post({ type: "count", id, ...await countFaces(await engine, image) });
      } catch (err) {
        // Always answered: the pool holds the count until it is.
        post({
          type: "count",
          id,
          faces: 0,
          largestFaceWidth: 0,
          error: String((err as Error)?.message ?? err),
        });
      }
    });
    turn = next.catch(() => {});
    return;
  }
  const e = await engine;
  post({
    type: "stats",
    id: msg.id,
    ...heapFigures(),
    tensors: e.tensorCount(),
    wasmBytes: e.wasmBytes(),
  });
};
