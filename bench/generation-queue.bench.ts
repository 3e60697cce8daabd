/**
 * Queue overhead with a trivial model, so the image model's own cost can be
 * read off later: the time from POST /api/generate to `completed` (through
 * the real app, runner and database) and the runner's throughput in jobs/s.
 * Runs on PGlite, and on Postgres too when TEST_DATABASE_URL is set.
 *
 * Every wait has a deadline and a failed job stops the bench: a broken queue
 * must end the run with an error, not hang it.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import sharp from "sharp";
import { generations } from "../db/schema.ts";
import { backends } from "../tests/helpers/backends.ts";
import { openTestContext, type TestContext } from "../tests/helpers/test-app.ts";
import { succeedingModel } from "../tests/helpers/test-models.ts";
import { JobRunner } from "../server/generation/job-runner.ts";
import { percentile } from "./stats.ts";

/** One job through a trivial model takes milliseconds; this is only a hang guard. */
const JOB_DEADLINE_MS = 30_000;
const DRAIN_DEADLINE_MS = 180_000;
const LATENCY_JOBS = 30;
const THROUGHPUT_JOBS = 200;

const photo = new Uint8Array(
  await sharp({ create: { width: 64, height: 64, channels: 3, background: "#886655" } }).jpeg().toBuffer(),
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function submit(ctx: TestContext, token: string, photoId: string): Promise<string> {
  const res = await ctx.call("POST", "/api/generate", {
    token,
    body: { photoId, studioType: "makeup" },
  });
  if (res.status !== 202) {
    throw new Error(`POST /api/generate answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res.body.generationId;
}

/** Counts `ids` by status; throws as soon as one failed (the bench measures a working queue). */
async function progress(ctx: TestContext, ids: string[]): Promise<number> {
  const rows = await ctx.database.db.select({ status: generations.status, n: sql<number>`count(*)::int` })
    .from(generations).where(inArray(generations.id, ids)).groupBy(generations.status);
  const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  if (by.failed) {
    const [failed] = await ctx.database.db.select({ id: generations.id, error: generations.error })
      .from(generations).where(and(inArray(generations.id, ids), eq(generations.status, "failed"))).limit(1);
    throw new Error(`generation ${failed.id} failed: ${failed.error}`);
  }
  return by.completed ?? 0;
}

for (const backend of backends()) {
  if (backend.skip) continue;
  const ctx = await openTestContext(backend, {
    WELCOME_CREDITS: "10000",
    AUTH_RATE_LIMIT_PER_MINUTE: "100000",
  });
  const runners: JobRunner[] = [];
  try {
    const u = await ctx.register();
    const form = new FormData();
    form.append("file", new File([photo], "p.jpg", { type: "image/jpeg" }));
    const res = await ctx.app.request("/api/upload-photo", {
      method: "POST",
      body: form,
      headers: { Authorization: `Bearer ${u.access_token}` },
    });
    const up = await res.json();
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${JSON.stringify(up)}`);

    const newRunner = () => {
      const runner = new JobRunner({
        db: ctx.database.db,
        storage: ctx.storage,
        model: succeedingModel(),
        workers: 2,
        timeoutMs: 10_000,
        pollMs: 5,
        backoffBaseMs: 0,
      });
      runners.push(runner);
      return runner;
    };

    // Latency: one job at a time, POST -> status completed (status polled every 5 ms).
    const runner = newRunner();
    runner.start();
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_JOBS; i++) {
      const t0 = performance.now();
      const id = await submit(ctx, u.access_token, up.photoId);
      runner.notify();
      for (;;) {
        const s = await ctx.call("GET", `/api/generation/${id}/status`, { token: u.access_token });
        if (s.body.status === "completed") break;
        if (s.body.status === "failed") throw new Error(`generation ${id} failed: ${s.body.error}`);
        if (performance.now() - t0 > JOB_DEADLINE_MS) {
          throw new Error(`generation ${id} not completed after ${JOB_DEADLINE_MS} ms (${s.body.status})`);
        }
        await sleep(5);
      }
      latencies.push(performance.now() - t0);
    }
    await runner.stop();

    // Throughput: THROUGHPUT_JOBS queued jobs drained by 2 workers; drained means every one completed.
    const ids: string[] = [];
    for (let i = 0; i < THROUGHPUT_JOBS; i++) ids.push(await submit(ctx, u.access_token, up.photoId));
    const runner2 = newRunner();
    const t0 = performance.now();
    runner2.start();
    let completed = 0;
    while ((completed = await progress(ctx, ids)) < ids.length) {
      if (performance.now() - t0 > DRAIN_DEADLINE_MS) {
        throw new Error(`only ${completed} of ${ids.length} jobs completed after ${DRAIN_DEADLINE_MS} ms`);
      }
      await sleep(20);
    }
    const seconds = (performance.now() - t0) / 1000;
    await runner2.stop();
    console.log(
      `[queue/${backend.name}] POST->completed with a trivial model: median ${
        percentile(latencies, 50).toFixed(1)
      } ms, ` +
        `p95 ${percentile(latencies, 95).toFixed(1)} ms; throughput ${
          (THROUGHPUT_JOBS / seconds).toFixed(1)
        } jobs/s (2 workers, ${THROUGHPUT_JOBS} jobs)`,
    );
  } finally {
    // A throw above must not leave workers polling a closed database.
    for (const r of runners) await r.stop();
    await ctx.close();
  }
}
