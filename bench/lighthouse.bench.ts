/**
 * Lighthouse (npm `lighthouse`, Debian's Chromium) against the real server
 * (main.ts on a temporary DATA_DIR, PGlite, the built client): the landing page
 * on the mobile preset (performance >= 90, accessibility 100) and the desktop
 * preset (performance >= 98, accessibility 100). Lighthouse's mobile preset
 * simulates a slow phone (4x CPU slowdown, slow 4G): on a loaded machine its
 * CPU figures are pessimistic, so the load average is printed with the scores.
 */
import { startLiveServer } from "../tests/helpers/live-server.ts";

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
    "--only-categories=performance,accessibility",
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
  await Deno.remove(out);
  const audit = (id: string) => report.audits[id]?.displayValue ?? "?";
  return {
    performance: Math.round(report.categories.performance.score * 100),
    accessibility: Math.round(report.categories.accessibility.score * 100),
    lcp: audit("largest-contentful-paint"),
    fcp: audit("first-contentful-paint"),
    tbt: audit("total-blocking-time"),
    failing: Object.values(report.audits as Record<string, { id: string; score: number | null }>)
      .filter((a) => report.categories.accessibility.auditRefs.some((r: { id: string }) => r.id === a.id))
      .filter((a) => a.score !== null && a.score < 1).map((a) => a.id),
  };
}

const server = await startLiveServer({ env: { JOB_WORKERS: "1" } });
try {
  console.log(`[lighthouse] load average before: ${await load()} (2 cores)`);
  for (const desktop of [false, true]) {
    const r = await lighthouse(`${server.url}/`, desktop);
    const name = desktop ? "desktop" : "mobile";
    const target = desktop ? 98 : 90;
    console.log(
      `[lighthouse:${name}] performance ${r.performance} (target >= ${target}) ${
        r.performance >= target ? "OK" : "MISSED"
      }  accessibility ${r.accessibility} (target 100) ${r.accessibility === 100 ? "OK" : "MISSED"}  ` +
        `FCP ${r.fcp}  LCP ${r.lcp}  TBT ${r.tbt}` +
        (r.failing.length ? `  failing: ${r.failing.join(", ")}` : ""),
    );
  }
  console.log(`[lighthouse] load average after: ${await load()}`);
} finally {
  await server.close();
}
