/**
 * The authenticated API under load, on PGlite and Postgres (BENCH_DATABASE_URL,
 * else TEST_DATABASE_URL, else a local server on 127.0.0.1:5432 when one answers): the real app served by Deno.serve in
 * this process, driven by wrk (/usr/bin/wrk).
 * - `GET /api/users/me` against a bare Hono route doing the same single
 *   indexed select (users by primary key) on the same database: req/s ratio
 *   (target >= 0.5x) and p99 at 50 connections (<= 20 ms Postgres, <= 40 ms PGlite).
 * - History: the first page for an account with 10 generations and one with
 *   10,000 (target: within 1.3x).
 * - Result latency: a job finishing -> its `completed` event read by a stream
 *   client (target <= 100 ms).
 * Every line carries its target; the machine's load average is printed with the run.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import sharp from "sharp";
import { generations, users } from "../db/schema.ts";
import type { TestContext } from "../tests/helpers/test-app.ts";
import { benchPostgresUrl } from "./postgres-url.ts";
import { percentile } from "./stats.ts";

const DURATION = Deno.env.get("BENCH_WRK_SECONDS") ?? "8";
const CONNECTIONS = 50;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const verdict = (ok: boolean) => ok ? "OK" : "MISSED";

interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function wrk(url: string, headers: Record<string, string> = {}): Promise<WrkResult> {
  const args = ["-t2", `-c${CONNECTIONS}`, `-d${DURATION}s`, "--latency"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  args.push(url);
  const out = await new Deno.Command("/usr/bin/wrk", { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  const toMs = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);
  const lat = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)`, "m").exec(text);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN),
    p50: lat("50"),
    p99: lat("99"),
    errors: errors ? Number(errors[1]) : 0,
  };
}

function serve(ctx: TestContext, bare: Hono) {
  const ac = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
    (req) => new URL(req.url).pathname.startsWith("/bare/") ? bare.fetch(req) : ctx.app.fetch(req),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    close: async () => (ac.abort(), await server.finished),
  };
}

async function timeGets(url: string, token: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    out.push(performance.now() - t);
  }
  return out;
}

const photoBytes = await sharp({
  create: { width: 300, height: 400, channels: 3, background: { r: 180, g: 140, b: 120 } },
}).jpeg().toBuffer();

async function startJob(ctx: TestContext, token: string) {
  const form = new FormData();
  form.append("file", new File([new Uint8Array(photoBytes)], "me.jpg", { type: "image/jpeg" }));
  const up = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: form,
    headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": `10.7.${Math.random() * 250 | 0}.1` },
  });
  const { photoId } = await up.json();
  const started = await ctx.call("POST", "/api/generate", {
    token,
    body: { photoId, studioType: "makeup", view360: false, options: { lookStyle: "no-makeup" } },
  });
  if (started.status !== 202) throw new Error(JSON.stringify(started.body));
  return started.body.generationId as string;
}

console.log(
  `[api] load average before: ${await load()} (2 cores); wrk ${CONNECTIONS} connections, ${DURATION} s each`,
);
// The test backends read TEST_DATABASE_URL when first imported: set it before importing them.
const url = await benchPostgresUrl();
if (url) Deno.env.set("TEST_DATABASE_URL", url);
const { backends } = await import("../tests/helpers/backends.ts");
const { openTestContext } = await import("../tests/helpers/test-app.ts");
for (const backend of backends()) {
  if (backend.skip) {
    console.log(`[api:${backend.name}] skipped: set TEST_DATABASE_URL to a Postgres server`);
    continue;
  }
  const tag = `[api:${backend.name}]`;
  const ctx = await openTestContext(backend, {
    AUTH_RATE_LIMIT_PER_MINUTE: "100000",
    TRUST_PROXY: "true",
    WELCOME_CREDITS: "10000",
  });
  const db = ctx.database.db;
  const user = await ctx.register();
  const bare = new Hono().get("/bare/me", async (c) => {
    const [row] = await db.select().from(users).where(eq(users.id, user.user.id));
    return c.json({ id: row.id, email: row.email, credits: row.credits });
  });
  const server = serve(ctx, bare);
  try {
    const auth = { Authorization: `Bearer ${user.access_token}` };
    await wrk(`${server.url}/bare/me`); // warm-up (JIT, connections, plans)
    const b = await wrk(`${server.url}/bare/me`);
    const m = await wrk(`${server.url}/api/users/me`, auth);
    const p99Target = backend.name === "postgres" ? 20 : 40;
    console.log(`${tag} bare select    ${b.rps.toFixed(0)} req/s  p50 ${ms(b.p50)}  p99 ${ms(b.p99)}`);
    console.log(
      `${tag} /api/users/me  ${m.rps.toFixed(0)} req/s  p50 ${ms(m.p50)}  p99 ${
        ms(m.p99)
      }  (non-2xx: ${m.errors})`,
    );
    const ratio = m.rps / b.rps;
    console.log(`${tag} me/bare ratio  ${ratio.toFixed(2)}x (target >= 0.5x) ${verdict(ratio >= 0.5)}`);
    console.log(
      `${tag} /me p99        ${ms(m.p99)} (target <= ${p99Target} ms) ${verdict(m.p99 <= p99Target)}`,
    );

    // History: 10 generations against 10,000, the first page of 20.
    const small = await ctx.register();
    const big = await ctx.register();
    const first = await startJob(ctx, small.access_token);
    await ctx.drain();
    const [job] = await db.select().from(generations).where(eq(generations.id, first));
    const now = Date.now();
    for (const [owner, count] of [[small.user.id, 9], [big.user.id, 10_000]] as const) {
      for (let done = 0; done < count; done += 1000) {
        await db.insert(generations).values(
          Array.from({ length: Math.min(1000, count - done) }, (_, i) => ({
            ...job,
            id: crypto.randomUUID(),
            userId: owner,
            status: "completed" as const,
            idempotencyKey: null,
            createdAt: new Date(now - (done + i + 1) * 1000),
          })),
        );
      }
    }
    await timeGets(`${server.url}/api/generations?limit=20`, big.access_token, 20);
    const s = percentile(
      await timeGets(`${server.url}/api/generations?limit=20`, small.access_token, 200),
      50,
    );
    const l = percentile(await timeGets(`${server.url}/api/generations?limit=20`, big.access_token, 200), 50);
    console.log(
      `${tag} history p50    10: ${ms(s)}  10,000: ${ms(l)}  ratio ${(l / s).toFixed(2)}x (target <= 1.3x) ${
        verdict(l / s <= 1.3)
      }`,
    );

    // Result latency: the job completes -> the stream client has read `completed`.
    const lags: number[] = [];
    await ctx.drain();
    for (let i = 0; i < 10; i++) {
      const id = await startJob(ctx, small.access_token);
      const res = await fetch(`${server.url}/api/generation/${id}/events`, {
        headers: { Authorization: `Bearer ${small.access_token}` },
      });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes('"status":"queued"')) text += (await reader.read()).value ?? "";
      let finishedAt = 0;
      const drained = ctx.drain().then(() => finishedAt = performance.now());
      while (!text.includes('"status":"completed"')) {
        const { value, done } = await reader.read();
        if (done) throw new Error("stream ended early");
        text += value;
      }
      const seenAt = performance.now();
      await drained;
      await reader.cancel();
      lags.push(Math.max(0, seenAt - finishedAt));
    }
    const lag = percentile(lags, 50), lagMax = Math.max(...lags);
    console.log(
      `${tag} result latency job done -> event read: p50 ${ms(lag)} max ${ms(lagMax)} (target <= 100 ms; ` +
        `1 s polling averaged ~500 ms) ${verdict(lagMax <= 100)}`,
    );
  } finally {
    await server.close();
    await ctx.close();
  }
}
console.log(`[api] load average after: ${await load()}`);
