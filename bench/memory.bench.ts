/**
 * Whole-server memory through a queue of jobs: main.ts as a child process
 * (DATA_DIR in a temp dir, the local model, default JOB_WORKERS) on PGlite and
 * on Postgres (bench/postgres-url.ts; a fresh database, dropped after). A user
 * registers, uploads a portrait (bench/live-api.ts) and queues BENCH_MEMORY_JOBS (20) full looks at once
 * (the server's default JOB_WORKERS and render threads; BENCH_MEMORY_WORKERS sets LOCAL_MODEL_WORKERS). VmRSS of the process
 * (the model workers are threads, so it covers them) is sampled every 100 ms:
 * idle (model ready, nothing run), peak through the queue, and a minute after
 * it drained. Targets: peak <= 600 MB PGlite / <= 400 MB Postgres; after a
 * minute within 15% of idle.
 */
import postgres from "postgres";
import { ensureDatabaseTemplate } from "../db/pglite-template.ts";
import { startLiveServer } from "../tests/helpers/live-server.ts";
import { fullLook, liveApi, userWithPortrait } from "./live-api.ts";
import { benchPostgresUrl } from "./postgres-url.ts";
import { SERVER_V8_FLAGS } from "../server/runtime-memory.ts";
import { localModelWorkersFor } from "../server/config.ts";

const JOBS = Number(Deno.env.get("BENCH_MEMORY_JOBS") ?? 20);
/** The local model's render threads (LOCAL_MODEL_WORKERS); the server's default unless set, to weigh another pool. */
const WORKERS = Deno.env.get("BENCH_MEMORY_WORKERS");
const SETTLE_MS = Number(Deno.env.get("BENCH_MEMORY_SETTLE_MS") ?? 60_000);
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const mb = (kb: number) => `${Math.round(kb / 1024)} MB`;
const verdict = (ok: boolean) => ok ? "OK" : "MISSED";

async function rssKb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

async function measure(name: "pglite" | "postgres", databaseUrl: string) {
  const tag = `[memory:${name}]`;
  // The server's defaults (JOB_WORKERS 2, render threads for this machine's cores) unless
  // BENCH_MEMORY_WORKERS says otherwise, not the test servers' ones.
  const server = await startLiveServer({
    buildClient: false,
    env: {
      DATABASE_URL: databaseUrl,
      JOB_WORKERS: "2",
      ...(WORKERS ? { LOCAL_MODEL_WORKERS: WORKERS } : {}),
      WELCOME_CREDITS: "10000",
      AUTH_RATE_LIMIT_PER_MINUTE: "1000",
      // As `deno task start` and the Docker image run it.
      DENO_V8_FLAGS: SERVER_V8_FLAGS.join(","),
    },
  });
  const pid = server.pid;
  const base = server.url;
  const api = liveApi(base);
  try {
    // Idle: model ready, nothing run yet.
    for (;;) {
      const res = await fetch(`${base}/api/health`);
      await res.body?.cancel();
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = await rssKb(pid);
    const idleLoad = await load();

    const { token, photoId } = await userWithPortrait(api);

    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssKb(pid));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const t0 = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const { generationId } = await api("POST", "/api/generate", { token, body: fullLook(photoId) });
      ids.push(generationId);
    }
    for (const id of ids) {
      for (;;) {
        const s = await api("GET", `/api/generation/${id}/status`, { token });
        if (s.status === "completed" || s.status === "failed") break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const drainedIn = (performance.now() - t0) / 1000;
    const drainedLoad = await load();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    sampling = false;
    await sampler;
    const after = await rssKb(pid);
    const target = name === "postgres" ? 400 : 600;
    console.log(`${tag} idle ${mb(idle)} (model ready, nothing run), load average ${idleLoad}`);
    console.log(
      `${tag} peak ${mb(peak)} through ${JOBS} queued jobs (drained in ${
        drainedIn.toFixed(1)
      } s, load average ${drainedLoad}) (target <= ${target} MB) ${verdict(peak / 1024 <= target)}`,
    );
    const ratio = after / idle;
    console.log(
      `${tag} ${SETTLE_MS / 1000} s after the queue drained ${mb(after)}, ${
        ratio.toFixed(2)
      }x idle (target <= 1.15x) ${verdict(ratio <= 1.15)}, load average ${await load()}`,
    );
  } finally {
    await server.close();
  }
}

console.log(
  `[memory] load average before: ${await load()} (${navigator.hardwareConcurrency} cores); ${JOBS} jobs queued at once, ${
    WORKERS ?? localModelWorkersFor(2, navigator.hardwareConcurrency)
  } render threads and the face-models thread`,
);
await ensureDatabaseTemplate();
await measure("pglite", "");
const pgUrl = await benchPostgresUrl();
if (!pgUrl) console.log("[memory:postgres] skipped: no Postgres server (set BENCH_DATABASE_URL)");
else {
  const admin = postgres(pgUrl, { max: 1, onnotice: () => {} });
  const name = `styletwin_memory_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin.unsafe(`create database ${name}`);
  try {
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    await measure("postgres", url.toString());
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
console.log(`[memory] load average after: ${await load()}`);
