/**
 * Worker thread entry: loads the models once, then renders jobs one at a time.
 * Messages in:  { type: "job", id, job: RenderJob }
 * Messages out: { type: "ready" } | { type: "result", id, ok, ... }
 */
/// <reference lib="deno.worker" />
import { FaceEngine } from "./face-engine.ts";
import { render, type RenderJob, UserFacingError } from "./render.ts";

export type WorkerIn = { type: "job"; id: number; job: RenderJob };
export type WorkerOut =
  | { type: "ready" }
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

const engine = FaceEngine.load();
engine.then(
  () => post({ type: "ready" }),
  (err) => post({ type: "fatal", message: String(err?.stack ?? err) }),
);

self.onmessage = async (ev: MessageEvent<WorkerIn>) => {
  const msg = ev.data;
  if (msg.type !== "job") return;
  try {
    const out = await render(await engine, msg.job);
    post({ type: "result", id: msg.id, ok: true, ...out }, [out.image.buffer as ArrayBuffer]);
  } catch (err) {
    if (err instanceof UserFacingError) {
      post({ type: "result", id: msg.id, ok: false, message: err.message, transient: false });
    } else {
      console.error("local image model: job failed", err);
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
