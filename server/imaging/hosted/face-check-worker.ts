/**
 * Worker thread for the hosted models' output check when no local model runs
 * (IMAGE_MODEL=gemini, openai or fal): the local model's face detector
 * answering how many faces an image shows (countFaces). Detection blocks its
 * thread for ~70 ms, so it never runs on the HTTP event loop. In hybrid mode
 * the local model's face-models worker answers instead (one copy of the
 * models: this worker costs ~130 MB).
 */
/// <reference lib="deno.worker" />
import { FaceEngine } from "../local/face-engine.ts";
import { countFaces, type FaceCount } from "../local/face-count.ts";

export type FaceCheckIn = { id: number; image: Uint8Array };
export type FaceCheckOut =
  | { type: "ready" }
  | { type: "fatal"; message: string }
  | ({ type: "result"; id: number } & FaceCount);

const post = (msg: FaceCheckOut) => self.postMessage(msg);
const engine = FaceEngine.load();
engine.then(
  () => post({ type: "ready" }),
  (err) => post({ type: "fatal", message: String(err?.stack ?? err) }),
);

self.onmessage = async (ev: MessageEvent<FaceCheckIn>) => {
  const { id, image } = ev.data;
  post({ type: "result", id, ...await countFaces(await engine, image) });
};
