/**
 * The HTTP event loop while the local image model works: spawns the real
 * server (main.ts, JOB_WORKERS=2, PGlite, local model) on a free port, keeps
 * two generations running at all times (a full look at 1080x1920) until
 * BENCH_LOAD_JOBS (20) are done, and measures `GET /api/health` every 20 ms
 * meanwhile. Prints health p50/p99 idle and under load, and the end-to-end
 * POST /api/generate -> `completed` median (status polled every 25 ms).
 * Plain script: `deno run -A bench/health-under-load.bench.ts`.
 * The photo is a face cropped at run time from @vladmandic/face-api's demo
 * sample6.jpg (MIT, test-only data in node_modules).
 */
import { startLiveServer } from "../tests/helpers/live-server.ts";
import { cropFace, DARK_HAIR } from "../tests/imaging/fixtures.ts";
import { percentile } from "./stats.ts";

const JOBS = Number(Deno.env.get("BENCH_LOAD_JOBS") ?? 20);
const ms = (n: number) => `${n.toFixed(1)} ms`;

const server = await startLiveServer({
  env: { JOB_WORKERS: "2", WELCOME_CREDITS: "10000", AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
});
try {
  const api = async (method: string, path: string, opts: { token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData) body = opts.body;
    else if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(server.url + path, { method, headers, body });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch { /* not JSON */ }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    // deno-lint-ignore no-explicit-any
    return json as any;
  };

  const auth = await api("POST", "/api/auth/register", {
    body: { email: `bench-${crypto.randomUUID()}@example.com`, password: "Sup3r$ecret", full_name: "Bench" },
  });
  const token: string = auth.access_token;
  const form = new FormData();
  form.append(
    "file",
    new File([new Uint8Array(await cropFace(DARK_HAIR))], "face.jpg", { type: "image/jpeg" }),
  );
  const { photoId } = await api("POST", "/api/upload-photo", { token, body: form });

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
    const { generationId } = await api("POST", "/api/generate", {
      token,
      body: {
        photoId,
        studioType: "makeup",
        options: {
          lookStyle: "soft-glam",
          setting: "beach-sunset",
          lighting: "golden-hour",
          hairColor: "auburn",
        },
      },
    });
    while (true) {
      const s = await api("GET", `/api/generation/${generationId}/status`, { token });
      if (s.status === "completed") return performance.now() - t0;
      if (s.status === "failed") throw new Error(`generation failed: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  // Warm-up: one job per worker (first detections are slower).
  await Promise.all([generate(), generate()]);

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
