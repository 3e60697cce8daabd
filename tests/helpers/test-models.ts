/**
 * Test-only image models for exercising the job runner: one that succeeds,
 * one that fails (permanently or transiently), one that hangs. The product
 * never ships these; it runs the real local model.
 */
import sharp from "sharp";
import { type ImageModel, type ImageRequest, ModelError } from "../../server/imaging/image-model.ts";
import type { Angle } from "../../server/styling/option-keys.ts";

interface Counting {
  calls: ImageRequest[];
}

const capabilities = (angles: Angle[]) => ({
  angles,
  supported: { lips: ["classic-red"] },
});

/** Renders a small tinted copy of the photo per angle. */
export function succeedingModel(opts: { angles?: Angle[]; delayMs?: number } = {}): ImageModel & Counting {
  const calls: ImageRequest[] = [];
  return {
    name: "test-succeeding",
    capabilities: capabilities(opts.angles ?? ["front"]),
    calls,
    async generate(req) {
      calls.push(req);
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      const image = await sharp(req.photo).resize(54, 96, { fit: "cover" }).png().toBuffer();
      return { image: new Uint8Array(image), mime: "image/png", notes: [`rendered ${req.angle}`] };
    },
    close: () => Promise.resolve(),
  };
}

/** Fails every call; `transient` decides whether the runner retries. */
export function failingModel(
  transient: boolean,
  message = "No face found: use a front-facing photo with one person",
) {
  const calls: ImageRequest[] = [];
  return {
    name: "test-failing",
    capabilities: capabilities(["front"]),
    calls,
    generate(req: ImageRequest) {
      calls.push(req);
      return Promise.reject(
        transient ? new Error("worker crashed") : new ModelError(message, { transient: false }),
      );
    },
    close: () => Promise.resolve(),
  } satisfies ImageModel & Counting;
}

/** Never answers and ignores its abort signal: only the runner's own timeout can end it. */
export function hangingModel() {
  const calls: ImageRequest[] = [];
  return {
    name: "test-hanging",
    capabilities: capabilities(["front"]),
    calls,
    generate(req: ImageRequest) {
      calls.push(req);
      return new Promise<never>(() => {});
    },
    close: () => Promise.resolve(),
  } satisfies ImageModel & Counting;
}

/** Rejects when `signal` aborts, the way a real model gives up on a cancelled job. */
export function abortable<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(new Error("aborted"));
      signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
    }),
  ]);
}
