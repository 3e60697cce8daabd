/**
 * Lighthouse (npm `lighthouse`, Debian's Chromium) against the real server
 * (main.ts on a temporary DATA_DIR, PGlite, the built client): the landing page
 * on the mobile preset (performance >= 90, accessibility 100) and the desktop
 * preset (performance >= 98, accessibility 100). Lighthouse's mobile preset
 * simulates a slow phone (4x CPU slowdown, slow 4G): on a loaded machine its
 * CPU figures are pessimistic, so the load average is printed with the scores.
 * Each preset runs BENCH_LIGHTHOUSE_RUNS times (3), each run with its load average, then the median
 * score; BENCH_LIGHTHOUSE_REPORTS=<dir> keeps every JSON report there.
 */
import { startLiveServer } from "../tests/helpers/live-server.ts";
import { percentile } from "./stats.ts";

const RUNS = Number(Deno.env.get("BENCH_LIGHTHOUSE_RUNS") ?? 3);
const REPORTS = Deno.env.get("BENCH_LIGHTHOUSE_REPORTS");
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");

async function lighthouse(url: string, desktop: boolean) {
  const out = await Deno.makeTempFile({ suffix: ".json" });
  const args = [
    "run",
    "-A",
    "npm:lighthouse@^13.5.0",
    url,
    "--output=json",
    `--output-path=${out}`,
    "--quiet",
    "--only-categories=performance,accessibility,best-practices",
    "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync",
  ];
  if (desktop) args.push("--preset=desktop");
  const run = await new Deno.Command(Deno.execPath(), {
    args,
    env: { CHROME_PATH: "/usr/bin/chromium" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!run.success) throw new Error(new TextDecoder().decode(run.stderr).slice(-2000));
  const report = JSON.parse(await Deno.readTextFile(out));
  if (REPORTS) {
    await Deno.mkdir(REPORTS, { recursive: true });
    await Deno.rename(out, `${REPORTS}/${desktop ? "desktop" : "mobile"}-${Date.now()}.json`);
  } else await Deno.remove(out);
  const audit = (id: string) => report.audits[id]?.displayValue ?? "?";
  return {
    performance: Math.round(report.categories.performance.score * 100),
    accessibility: Math.round(report.categories.accessibility.score * 100),
    lcp: audit("largest-contentful-paint"),
    fcp: audit("first-contentful-paint"),
    tbt: audit("total-blocking-time"),
    // A page that throws before it hydrates does no work and scores well: its console errors are
    // printed with the scores (best-practices' errors-in-console; that category's score is not a target).
    consoleErrors: (report.audits["errors-in-console"]?.details?.items ?? []).map((
      i: { description?: string },
    ) => String(i.description ?? "").slice(0, 120)),
    failing: Object.values(report.audits as Record<string, { id: string; score: number | null }>)
      .filter((a) => report.categories.accessibility.auditRefs.some((r: { id: string }) => r.id === a.id))
      .filter((a) => a.score !== null && a.score < 1).map((a) => a.id),
  };
}

const server = await startLiveServer({ env: { JOB_WORKERS: "1" } });
try {
  console.log(`[lighthouse] load average before: ${await load()} (2 cores)`);
  for (const desktop of [false, true]) {
    const name = desktop ? "desktop" : "mobile";
    const target = desktop ? 98 : 90;
    const scores: number[] = [];
    const a11y: number[] = [];
    let consoleErrors = 0;
    for (let i = 1; i <= RUNS; i++) {
      // Lighthouse itself fails now and then on a loaded machine (NO_NAVSTART): one more try.
      const r = await lighthouse(`${server.url}/`, desktop).catch((err) => {
        console.log(
          `[lighthouse:${name} ${i}/${RUNS}] retrying after: ${String(err).split("\n")[0].slice(0, 200)}`,
        );
        return lighthouse(`${server.url}/`, desktop);
      });
      scores.push(r.performance);
      a11y.push(r.accessibility);
      consoleErrors += r.consoleErrors.length;
      console.log(
        `[lighthouse:${name} ${i}/${RUNS}] performance ${r.performance}  accessibility ${r.accessibility}  ` +
          `FCP ${r.fcp}  LCP ${r.lcp}  TBT ${r.tbt}  load ${await load()}` +
          (r.failing.length ? `  failing: ${r.failing.join(", ")}` : "") +
          (r.consoleErrors.length ? `  CONSOLE ERRORS: ${r.consoleErrors.join(" | ")}` : ""),
      );
    }
    const perf = percentile(scores, 50);
    const access = Math.min(...a11y);
    console.log(
      `[lighthouse:${name}] median performance ${perf} (target >= ${target}) ${
        perf >= target && !consoleErrors ? "OK" : "MISSED"
      }${consoleErrors ? ` (${consoleErrors} console errors: the page did not run as users see it)` : ""}  ` +
        `accessibility ${access} (target 100) ${access === 100 ? "OK" : "MISSED"}  load ${await load()}`,
    );
  }
  console.log(`[lighthouse] load average after: ${await load()}`);
} finally {
  await server.close();
}
