/**
 * Queue overhead with a trivial model, so the image model's own cost can be
 * read off later: the time from POST /api/generate to `completed` (through
 * the real app, runner and database) and the runner's throughput in jobs/s.
 * Runs on PGlite, and on Postgres too when TEST_DATABASE_URL is set.
 */
import sharp from "sharp";
import { backends } from "../tests/helpers/backends.ts";
import { openTestContext } from "../tests/helpers/test-app.ts";
import { succeedingModel } from "../tests/helpers/test-models.ts";
import { JobRunner } from "../server/generation/job-runner.ts";
import { percentile } from "./stats.ts";

const photo = new Uint8Array(
  await sharp({ create: { width: 64, height: 64, channels: 3, background: "#886655" } }).jpeg().toBuffer(),
);

for (const backend of backends()) {
  if (backend.skip) continue;
  const ctx = await openTestContext(backend, {
    WELCOME_CREDITS: "10000",
    AUTH_RATE_LIMIT_PER_MINUTE: "100000",
  });
  try {
    const u = await ctx.register();
    const form = new FormData();
    form.append("file", new File([photo], "p.jpg", { type: "image/jpeg" }));
    const up = await (await ctx.app.request("/api/upload-photo", {
      method: "POST",
      body: form,
      headers: { Authorization: `Bearer ${u.access_token}` },
    })).json();

    const newRunner = () =>
      new JobRunner({
        db: ctx.database.db,
        storage: ctx.storage,
        model: succeedingModel(),
        workers: 2,
        timeoutMs: 10_000,
        pollMs: 5,
      });
    const runner = newRunner();
    runner.start();
    // Latency: one job at a time, POST -> status completed (status polled every 5 ms).
    const latencies: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const res = await ctx.call("POST", "/api/generate", {
        token: u.access_token,
        body: { photoId: up.photoId, studioType: "makeup" },
      });
      runner.notify();
      while (true) {
        const s = await ctx.call("GET", `/api/generation/${res.body.generationId}/status`, {
          token: u.access_token,
        });
        if (s.body.status === "completed") break;
        await new Promise((r) => setTimeout(r, 5));
      }
      latencies.push(performance.now() - t0);
    }
    await runner.stop();

    // Throughput: 200 queued jobs drained by 2 workers.
    const N = 200;
    for (let i = 0; i < N; i++) {
      await ctx.call("POST", "/api/generate", {
        token: u.access_token,
        body: { photoId: up.photoId, studioType: "makeup" },
      });
    }
    const runner2 = newRunner();
    const t0 = performance.now();
    runner2.start();
    while (
      (await ctx.call("GET", "/api/generations?limit=1", { token: u.access_token })).body.items[0].status !==
        "completed"
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // The newest job done means the queue is drained (jobs are claimed oldest first).
    const seconds = (performance.now() - t0) / 1000;
    await runner2.stop();
    console.log(
      `[queue/${backend.name}] POST->completed with a trivial model: median ${
        percentile(latencies, 50).toFixed(1)
      } ms, ` +
        `p95 ${percentile(latencies, 95).toFixed(1)} ms; throughput ${
          (N / seconds).toFixed(1)
        } jobs/s (2 workers, ${N} jobs)`,
    );
  } finally {
    await ctx.close();
  }
}
