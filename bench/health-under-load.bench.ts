/**
 * The HTTP event loop while the local image model works: spawns the real
 * server (main.ts, JOB_WORKERS=2, PGlite, local model) on a free port.
 * First a burst of 10 generate requests sent at once, `GET /api/health`
 * probed every 20 ms until all completed (target p99 <= 50 ms); then it keeps
 * two generations running at all times (a full look at 1080x1920) until
 * BENCH_LOAD_JOBS (20) are done, and measures `GET /api/health` every 20 ms
 * meanwhile. Prints health p50/p99 idle and under load, and the end-to-end
 * POST /api/generate -> `completed` median. Each job is awaited as the studio
 * awaits it, on its event stream: polling /status every 25 ms for 10 jobs
 * (400 queries/s on PGlite's one thread) was load the product does not make.
 * Plain script: `deno run -A bench/health-under-load.bench.ts`.
 * The photo is a face cropped at run time from @vladmandic/face-api's demo
 * sample6.jpg (MIT, test-only data in node_modules).
 */
import { startLiveServer } from "../tests/helpers/live-server.ts";
import { SERVER_V8_FLAGS } from "../server/runtime-memory.ts";
import { fullLook, liveApi, untilCompleted, userWithPortrait } from "./live-api.ts";
import { percentile } from "./stats.ts";

const JOBS = Number(Deno.env.get("BENCH_LOAD_JOBS") ?? 20);
const BURST = 10;
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const ms = (n: number) => `${n.toFixed(1)} ms`;

console.log(`[health] load average before: ${await load()} (2 cores)`);
const server = await startLiveServer({
  env: {
    JOB_WORKERS: "2",
    WELCOME_CREDITS: "10000",
    AUTH_RATE_LIMIT_PER_MINUTE: "1000",
    // As `deno task start` and the Docker image run it (a GC after each job, small semi-spaces).
    DENO_V8_FLAGS: SERVER_V8_FLAGS.join(","),
  },
});
try {
  const api = liveApi(server.url);
  const { token, photoId } = await userWithPortrait(api);

  const health: number[] = [];
  let measuring = true;
  const probe = async (out: number[], until: () => boolean) => {
    while (until()) {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/health`);
      await res.arrayBuffer();
      out.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  // Idle baseline (workers loaded, nothing running).
  const idle: number[] = [];
  const idleEnd = performance.now() + 2000;
  await probe(idle, () => performance.now() < idleEnd);

  const generate = async (): Promise<number> => {
    const t0 = performance.now();
    const { generationId } = await api("POST", "/api/generate", { token, body: fullLook(photoId) });
    await untilCompleted(server.url, token, generationId);
    return performance.now() - t0;
  };

  // Warm-up: one job per worker (first detections are slower).
  await Promise.all([generate(), generate()]);

  // The target's case: a burst of BURST generate requests sent at once (their transactions queue
  // on PGlite's one connection), health probed until every one of them completed.
  const burst: number[] = [];
  let bursting = true;
  const burstProber = probe(burst, () => bursting);
  const burstT0 = performance.now();
  await Promise.all(Array.from({ length: BURST }, () => generate()));
  const burstSeconds = (performance.now() - burstT0) / 1000;
  bursting = false;
  await burstProber;
  const burstP99 = percentile(burst, 99);
  console.log(`[health] load average during the burst: ${await load()}`);
  console.log(
    `GET /api/health during a burst of ${BURST} generate requests (PGlite, done in ${
      burstSeconds.toFixed(1)
    } s): ` +
      `p50 ${ms(percentile(burst, 50))}, p99 ${ms(burstP99)}, max ${
        ms(Math.max(...burst))
      } (${burst.length} probes; ` +
      `target p99 <= 50 ms) ${burstP99 <= 50 ? "OK" : "MISSED"}`,
  );

  const e2e: number[] = [];
  let started = 0;
  const lane = async () => {
    while (started < JOBS) {
      started++;
      e2e.push(await generate());
    }
  };
  const prober = probe(health, () => measuring);
  const t0 = performance.now();
  await Promise.all([lane(), lane()]);
  const seconds = (performance.now() - t0) / 1000;
  measuring = false;
  await prober;

  console.log(`server: main.ts, JOB_WORKERS=2, ${JOBS} jobs (two always running) in ${seconds.toFixed(1)} s`);
  console.log(
    `GET /api/health idle: p50 ${ms(percentile(idle, 50))}, p99 ${
      ms(percentile(idle, 99))
    } (${idle.length} probes)`,
  );
  console.log(
    `GET /api/health under two jobs: p50 ${ms(percentile(health, 50))}, p99 ${
      ms(percentile(health, 99))
    }, max ${ms(Math.max(...health))} (${health.length} probes; target p99 < 50 ms)`,
  );
  console.log(
    `POST /api/generate -> completed (full look 1080x1920, 2 concurrent): median ${
      ms(percentile(e2e, 50))
    }, p95 ${ms(percentile(e2e, 95))}`,
  );
} finally {
  await server.close();
}
