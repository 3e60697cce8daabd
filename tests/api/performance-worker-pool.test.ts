/**
 * The local model's worker pool: reports `starting` until its workers have
 * loaded, then `ready`, and replaces workers to give their memory back (after
 * a number of jobs, and once the pool has been idle) without failing a job.
 */
import assert from "node:assert/strict";
import { WorkerPool } from "../../server/imaging/local/worker-pool.ts";
import type { RenderJob } from "../../server/imaging/local/render.ts";
import { defaultOptions } from "../../server/styling/catalog.ts";
import { cropFace, DARK_HAIR, FRONTAL_FACES, FULL_INTENSITY } from "../imaging/fixtures.ts";

const TIMEOUT_MS = 60_000;

/** A quick 270x480 render of `photo`. */
function smallJob(photo: Uint8Array, options: RenderJob["options"]): RenderJob {
  return {
    photo,
    studioType: "makeup",
    options,
    intensity: FULL_INTENSITY,
    instructions: null,
    references: 0,
    width: 270,
    height: 480,
    format: "jpeg",
  };
}

async function until(what: string, check: () => boolean, ms = TIMEOUT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

Deno.test("worker pool: starting, then ready; recycles workers after jobs and when idle", async () => {
  const photo = new Uint8Array(await cropFace(DARK_HAIR));
  const pool = new WorkerPool(1, { recycleAfterJobs: 2, idleRecycleMs: 300 });
  try {
    assert.equal(pool.health().state, "starting", "no worker has loaded its models yet");
    await pool.ready(TIMEOUT_MS);
    assert.equal(pool.health().state, "ready");
    assert.equal(pool.health().lastCallAt, undefined);

    const job = smallJob(photo, { ...defaultOptions("makeup"), lookStyle: "soft-glam" });
    await pool.run(job);
    assert.deepEqual(pool.jobCounts(), [1]);
    assert.ok(pool.health().lastCallAt, "the last call is reported");
    // The second job reaches the limit: the worker is replaced and the new one starts at 0.
    const second = await pool.run(job);
    assert.ok(second.image.byteLength > 1000);
    assert.deepEqual(pool.jobCounts(), [0]);
    await pool.ready(TIMEOUT_MS);
    // A job on the fresh worker, then idleness: that worker is replaced too, and then the face-models
    // worker, whose wasm memory grew with the photos it searched (it never shrinks).
    await pool.run(job);
    assert.deepEqual(pool.jobCounts(), [1]);
    const grown = (await pool.stats()).faceModels.wasmBytes;
    await until("the idle recycle", () => pool.jobCounts()[0] === 0);
    await pool.ready(TIMEOUT_MS);
    const end = Date.now() + TIMEOUT_MS;
    let fresh = grown;
    while ((fresh = (await pool.stats()).faceModels.wasmBytes) >= grown && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(fresh < grown, `the face models are replaced when idle (wasm ${grown} -> ${fresh} bytes)`);
    assert.equal((await pool.run(job)).mime, "image/jpeg", "the recycled pool still renders");
  } finally {
    await pool.close();
  }
});

Deno.test("worker pool: an idle recycle of two workers replaces one at a time, health stays ready", async () => {
  const photo = new Uint8Array(await cropFace(DARK_HAIR));
  const pool = new WorkerPool(2, { idleRecycleMs: 300 });
  try {
    await pool.ready(TIMEOUT_MS);
    const job = smallJob(photo, defaultOptions("makeup"));
    await Promise.all([pool.run(job), pool.run(job)]);
    assert.deepEqual(pool.jobCounts(), [1, 1]);
    const states = new Set<string>();
    await until("both workers recycled", () => {
      states.add(pool.health().state);
      return pool.jobCounts().every((n) => n === 0);
    });
    await pool.ready(TIMEOUT_MS);
    assert.deepEqual([...states], ["ready"], "health never left ready while the workers were replaced");
    assert.equal((await pool.run(job)).mime, "image/jpeg", "the recycled pool still renders");
  } finally {
    await pool.close();
  }
});

Deno.test("worker pool: a job stopped mid-render rejects at once; its worker is terminated only after the render answers", async () => {
  const photo = new Uint8Array(await cropFace(DARK_HAIR));
  const pool = new WorkerPool(1);
  try {
    await pool.ready(TIMEOUT_MS);
    // A full-size look with a new backdrop: hundreds of ms of libvips and pixel work.
    const full: RenderJob = {
      ...smallJob(photo, { ...defaultOptions("hair"), setting: "beach-sunset", hairColor: "auburn" }),
      studioType: "hair",
      width: 1080,
      height: 1920,
    };
    const ac = new AbortController();
    const running = pool.run(full, ac.signal);
    setTimeout(() => ac.abort(), 50);
    const start = performance.now();
    await assert.rejects(running, { message: "The generation was cancelled" });
    assert.ok(performance.now() - start < 500, "the caller is not kept waiting for the render");
    // Terminating it now would free buffers libvips threads may still read.
    assert.equal(pool.retiringCount, 1, "the stopped worker runs on until its render answers");
    await until("the stopped worker's render answered", () => pool.retiringCount === 0);
    assert.equal((await pool.run(smallJob(photo, defaultOptions("makeup")))).mime, "image/jpeg");

    // close() fails a running job at once and resolves once its worker is gone.
    const closing = pool.run(full);
    await new Promise((r) => setTimeout(r, 50));
    const closed = pool.close();
    await assert.rejects(closing, { message: "The image model is shut down" });
    await closed;
    assert.equal(pool.retiringCount, 0);
  } finally {
    await pool.close();
  }
});

Deno.test("worker pool: a worker that only prepared a photo keeps it through an idle spell", async () => {
  const photo = new Uint8Array(await cropFace(DARK_HAIR));
  const IDLE_MS = 300;
  const pool = new WorkerPool(1, { idleRecycleMs: IDLE_MS });
  try {
    await pool.ready(TIMEOUT_MS);
    const look = smallJob(photo, {
      ...defaultOptions("makeup"),
      lookStyle: "soft-glam",
      setting: "beach-sunset",
    });
    const cold = await pool.run(look);
    // That look counts as a job: the idle recycle replaces the worker (and what it held).
    await until("the idle recycle", () => pool.jobCounts()[0] === 0);
    await pool.ready(TIMEOUT_MS);
    await pool.run({ ...look, cacheKey: "uploaded", prepareOnly: true });
    assert.deepEqual(pool.jobCounts(), [0], "a preparation is not counted as a job");
    // Three idle periods: the recycle would have replaced a worker that ran a job by now.
    await new Promise((r) => setTimeout(r, 3 * IDLE_MS));
    const warm = await pool.run({ ...look, cacheKey: "uploaded" });
    assert.deepEqual(warm.image, cold.image);
    const photoStages = (t: Record<string, number>) => t.decode + t.detect + (t.segment ?? 0) + t.frame;
    assert.ok(
      photoStages(warm.timings) < photoStages(cold.timings) / 4,
      JSON.stringify({ warm: warm.timings, cold: cold.timings }),
    );
  } finally {
    await pool.close();
  }
});

Deno.test("worker pool: a live preview goes ahead of the generations queued before it", async () => {
  const photo = new Uint8Array(await cropFace(DARK_HAIR));
  const pool = new WorkerPool(1);
  try {
    await pool.ready(TIMEOUT_MS);
    const look = smallJob(photo, { ...defaultOptions("makeup"), lookStyle: "soft-glam" });
    const order: string[] = [];
    const running = pool.run(look).then(() => order.push("look 1"));
    const queued = [2, 3].map((n) => pool.run(look).then(() => order.push(`look ${n}`)));
    const preview = pool.run(look, undefined, { first: true }).then(() => order.push("preview"));
    await Promise.all([running, ...queued, preview]);
    // The look already rendering finishes first; the preview then takes the worker before the queue.
    assert.deepEqual(order, ["look 1", "preview", "look 2", "look 3"]);
  } finally {
    await pool.close();
  }
});

Deno.test("worker pool: a crashed face-models worker is replaced and the pool renders again", async () => {
  const photo = new Uint8Array(await cropFace(DARK_HAIR));
  const pool = new WorkerPool(1);
  try {
    await pool.ready(TIMEOUT_MS);
    const job = smallJob(photo, { ...defaultOptions("makeup"), lookStyle: "soft-glam" });
    assert.equal((await pool.run(job)).mime, "image/jpeg");
    // A message it cannot handle throws inside the face-models worker: an uncaught error, as a crash.
    // deno-lint-ignore no-explicit-any
    (pool as any).models.worker.postMessage({ type: "connect", port: null });
    await until("the face models are restarting", () => pool.health().state === "starting");
    await pool.ready(TIMEOUT_MS);
    assert.equal(pool.health().state, "ready");
    // A photo the model worker has not seen: it needs the new face-models worker.
    const other = new Uint8Array(await cropFace(FRONTAL_FACES[0]));
    assert.equal((await pool.run(smallJob(other, defaultOptions("makeup")))).mime, "image/jpeg");
  } finally {
    await pool.close();
  }
});
