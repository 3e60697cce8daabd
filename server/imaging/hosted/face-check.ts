/**
 * Counts faces in an image with the local model's detector, in one worker
 * thread started on first use (about 250 MB; loads in well under a second).
 */
import type { FaceCheckIn, FaceCheckOut } from "./face-check-worker.ts";

export interface FaceCount {
  faces: number;
  /** Width of the largest face as a fraction of the image width. */
  largestFaceWidth: number;
  /** The largest face's eye centre and cheek-to-cheek width, as fractions of the image size. */
  eye?: [number, number];
  meshWidth?: number;
  /** Set when the image could not be decoded. */
  error?: string;
}

export interface FaceCounter {
  count(image: Uint8Array): Promise<FaceCount>;
  /** Starts the worker (if needed) and resolves once the detector has loaded. */
  ready(): Promise<void>;
  /** True once the detector has loaded. */
  loaded(): boolean;
  close(): Promise<void>;
}

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
        const { faces, largestFaceWidth, eye, meshWidth, error } = msg;
        p?.resolve({ faces, largestFaceWidth, eye, meshWidth, error });
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
