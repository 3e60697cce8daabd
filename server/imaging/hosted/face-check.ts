/**
 * Counts faces in an image with the local model's detector. A hosted model
 * alone gets its own worker thread for it, started on first use (~130 MB;
 * loads in about a second); in hybrid mode the local model's face-models
 * worker answers (LocalModel.faceCounter), so the models load once.
 */
import type { FaceCount, FaceCounter } from "../local/face-count.ts";
import type { FaceCheckIn, FaceCheckOut } from "./face-check-worker.ts";

export type { FaceCount, FaceCounter };

export function createFaceCounter(): FaceCounter {
  let worker: Worker | undefined;
  let ready: Promise<void> | undefined;
  let nextId = 1;
  let isLoaded = false;
  const waiting = new Map<number, { resolve: (c: FaceCount) => void; reject: (e: Error) => void }>();

  const start = () => {
    worker = new Worker(new URL("./face-check-worker.ts", import.meta.url).href, { type: "module" });
    const w = worker;
    ready = new Promise<void>((resolve, reject) => {
      w.onmessage = (ev: MessageEvent<FaceCheckOut>) => {
        const msg = ev.data;
        if (msg.type === "ready") {
          isLoaded = true;
          return resolve();
        }
        if (msg.type === "fatal") {
          const err = new Error(`face detector failed to load: ${msg.message}`);
          for (const p of waiting.values()) p.reject(err);
          waiting.clear();
          worker = undefined;
          w.terminate();
          return reject(err);
        }
        const p = waiting.get(msg.id);
        waiting.delete(msg.id);
        const { type: _, id: __, ...count } = msg;
        p?.resolve(count);
      };
      w.onerror = (ev: ErrorEvent) => {
        ev.preventDefault();
        const err = new Error(`face detector crashed: ${ev.message}`);
        for (const p of waiting.values()) p.reject(err);
        waiting.clear();
        worker = undefined;
        w.terminate();
        reject(err);
      };
    });
    ready.catch(() => {});
  };

  return {
    async ready() {
      if (!worker) start();
      await ready;
    },
    loaded: () => isLoaded && !!worker,
    async count(image: Uint8Array): Promise<FaceCount> {
      if (!worker) start();
      await ready;
      const id = nextId++;
      return await new Promise<FaceCount>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker!.postMessage({ id, image } satisfies FaceCheckIn);
      });
    },
    close() {
      worker?.terminate();
      worker = undefined;
      for (const p of waiting.values()) p.reject(new Error("face detector closed"));
      waiting.clear();
      return Promise.resolve();
    },
  };
}
