/**
 * Fresh start: main.ts on an empty DATA_DIR (embedded PGlite, local disk, the
 * local model with the default JOB_WORKERS), timed from spawn to
 * - the first answer of GET /api/health (the server listens; the model may
 *   still say `starting`, and then health answers 503),
 * - the first 200 (database migrated, model workers able to run a job).
 * Target: health ready <= 2 s. Run BENCH_STARTS (3) times; prints the median
 * and the load average. Runs `deno task build`'s database template step first,
 * as `deno task start` does.
 */
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { openDatabase, PGLITE_START_PARAMS } from "../db/client.ts";
import { ensureDatabaseTemplate } from "../db/pglite-template.ts";
import { percentile } from "./stats.ts";
import { SERVER_V8_FLAGS } from "../server/runtime-memory.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const STARTS = Number(Deno.env.get("BENCH_STARTS") ?? 3);
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

await ensureDatabaseTemplate();

function freePort(): { port: number } {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return { port };
}

async function oneStart(): Promise<{ answered: number; ready: number; firstModel: string }> {
  const dataDir = await Deno.makeTempDir({ prefix: "styletwin-startup-bench-" });
  const { port } = freePort();
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    // As `deno task start` runs it.
    args: ["run", "-A", `--v8-flags=${SERVER_V8_FLAGS.join(",")}`, "main.ts"],
    cwd: ROOT,
    env: { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "warn" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const errors = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let answered = 0, firstModel = "";
  try {
    const deadline = t0 + 120_000;
    while (performance.now() < deadline) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`, {
          signal: AbortSignal.timeout(5_000),
        });
        const report = await res.json();
        if (!answered) {
          answered = performance.now() - t0;
          firstModel = report.components?.model?.status;
        }
        if (res.status === 200) return { answered, ready: performance.now() - t0, firstModel };
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("health not ready in 120 s");
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await errors.cancel();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

console.log(`[startup] load average before: ${await load()} (2 cores); ${STARTS} fresh starts`);
const runs = [];
for (let i = 0; i < STARTS; i++) {
  const r = await oneStart();
  runs.push(r);
  console.log(
    `[startup] start ${i + 1}: health answers after ${s(r.answered)} (model: ${r.firstModel}), 200 after ${
      s(r.ready)
    }`,
  );
}
const answered = percentile(runs.map((r) => r.answered), 50);
const ready = percentile(runs.map((r) => r.ready), 50);
console.log(`[startup] fresh start -> health answers: median ${s(answered)}`);
console.log(
  `[startup] fresh start -> health ready (200, model can run): median ${s(ready)} (target <= 2 s) ${
    ready <= 2000 ? "OK" : "MISSED"
  }`,
);

// The database's share, in this process: a fresh directory from the template (what main.ts does)
// against creating the cluster and running every migration (what it did before the template).
async function timeOpen(fromTemplate: boolean): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "styletwin-startup-db-" });
  const t = performance.now();
  try {
    if (fromTemplate) {
      await (await openDatabase({ dataDir: `${dir}/db` })).close();
    } else {
      const pg = new PGlite({ dataDir: `${dir}/db`, startParams: PGLITE_START_PARAMS });
      await migrate(drizzle(pg), {
        migrationsFolder: fileURLToPath(new URL("../migrations", import.meta.url)),
      });
      await pg.close();
    }
    return performance.now() - t;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
await timeOpen(true); // PGlite's WASM compiled once
const opens = { template: [] as number[], initdb: [] as number[] };
for (let i = 0; i < 2; i++) {
  opens.template.push(await timeOpen(true));
  opens.initdb.push(await timeOpen(false));
}
const tpl = Math.min(...opens.template), init = Math.min(...opens.initdb);
console.log(
  `[startup] embedded database, fresh: from the template ${s(tpl)}, initdb + migrations ${s(init)} (${
    (init / tpl).toFixed(1)
  }x faster)`,
);
console.log(`[startup] load average after: ${await load()}`);
