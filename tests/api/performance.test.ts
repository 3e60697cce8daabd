/**
 * What the speed work must not break, through the real app on PGlite and
 * Postgres: compressed bodies equal the plain ones, ETags answer 304, assets
 * come from the build with the right cache headers, a logged-out session is
 * refused on its next request, the status stream delivers `completed`, and the
 * history query reads the index matching its ORDER BY. Timings are the
 * bench's business (bench/), not these tests'.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { generations } from "../../db/schema.ts";
import sharp from "sharp";
import { createApp } from "../../server/app.ts";
import { pendingWaits } from "../../server/generation/generation-events.ts";
import { buildClient } from "../../scripts/build-client.ts";
import { backends } from "../helpers/backends.ts";
import { openTestContext, type TestContext } from "../helpers/test-app.ts";
import { apiTest } from "../helpers/api-test.ts";

const TIMEOUT_MS = 20_000;

function withTimeout<T>(p: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);
}

function decode(res: Response, bytes: Uint8Array): Uint8Array {
  const enc = res.headers.get("Content-Encoding");
  if (enc === "br") return new Uint8Array(brotliDecompressSync(bytes));
  if (enc === "gzip") return new Uint8Array(gunzipSync(bytes));
  assert.equal(enc, null, `unexpected encoding ${enc}`);
  return bytes;
}

async function get(app: TestContext["app"], path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const photoBytes = await sharp({
  create: { width: 300, height: 400, channels: 3, background: { r: 180, g: 140, b: 120 } },
}).jpeg().toBuffer();

async function upload(ctx: TestContext, token: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([new Uint8Array(photoBytes)], "me.jpg", { type: "image/jpeg" }));
  const res = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: form,
    headers: {
      Authorization: `Bearer ${token}`,
      "X-Forwarded-For": `10.9.0.${Math.floor(Math.random() * 250)}`,
    },
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.photoId;
}

/** Reads `status` events off an SSE response until the stream ends. */
async function readEvents(res: Response): Promise<{ status: string }[]> {
  const events: { status: string }[] = [];
  const text = await withTimeout(res.text(), "the event stream to end");
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n");
    if (!lines.includes("event: status")) continue;
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
    events.push(JSON.parse(data));
  }
  return events;
}

// The built client is the same for every backend: build it once, into a temporary directory.
let built: Promise<string> | undefined;
const buildOnce = () =>
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "styletwin-perf-build-" });
    await buildClient({ minify: true, outDir: join(dir, "build") });
    return join(dir, "build");
  })();

Deno.test({
  name: "static client: precompressed assets equal the originals, ETag and 304, robots.txt, favicon",
  sanitizeResources: false,
  fn: async () => {
    const staticDir = await buildOnce();
    const ctx = await openTestContext(backends()[0]);
    try {
      const app = createApp({
        db: ctx.database.db,
        config: ctx.config,
        jwtSecret: ctx.jwtSecret,
        storage: ctx.storage,
        model: ctx.model,
        staticDir,
      });
      const html = await Deno.readTextFile(join(staticDir, "index.html"));
      const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)![1];

      for (const path of [script, "/", "/favicon.svg"]) {
        const plain = await get(app, path);
        assert.equal(plain.res.status, 200, path);
        assert.equal(plain.res.headers.get("Content-Encoding"), null);
        for (const enc of ["br", "gzip"]) {
          const packed = await get(app, path, {
            "Accept-Encoding": enc === "br" ? "gzip, deflate, br" : "gzip",
          });
          assert.equal(packed.res.headers.get("Content-Encoding"), enc, `${path} goes out as ${enc}`);
          assert.ok(packed.bytes.byteLength < plain.bytes.byteLength, `${path} ${enc} is smaller`);
          assert.deepEqual(
            decode(packed.res, packed.bytes),
            plain.bytes,
            `${path} ${enc} decodes to the same bytes`,
          );
          assert.match(packed.res.headers.get("Vary") ?? "", /Accept-Encoding/);
          assert.notEqual(
            packed.res.headers.get("ETag"),
            plain.res.headers.get("ETag"),
            "one ETag per encoding",
          );
        }
      }
      // q=0 refuses an encoding.
      const refused = await get(app, script, { "Accept-Encoding": "br;q=0, gzip;q=0" });
      assert.equal(refused.res.headers.get("Content-Encoding"), null);

      // Hashed assets: cached for a year; index.html: revalidated, and a matching ETag is a 304.
      const asset = await get(app, script, { "Accept-Encoding": "br" });
      assert.equal(asset.res.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
      assert.equal(asset.res.headers.get("Content-Type"), "text/javascript; charset=utf-8");
      const page = await get(app, "/studio", { "Accept-Encoding": "br" });
      assert.equal(page.res.headers.get("Cache-Control"), "no-cache");
      assert.match(new TextDecoder().decode(decode(page.res, page.bytes)), /<div id="root">/);
      const etag = page.res.headers.get("ETag")!;
      assert.match(etag, /^"[0-9a-f]+-br"$/);
      const again = await get(app, "/dashboard", { "Accept-Encoding": "br", "If-None-Match": etag });
      assert.equal(again.res.status, 304);
      assert.equal(again.bytes.byteLength, 0);
      assert.equal(again.res.headers.get("ETag"), etag);
      const stale = await get(app, "/", { "Accept-Encoding": "br", "If-None-Match": '"not-it-br"' });
      assert.equal(stale.res.status, 200);

      // robots.txt and the favicons are real files, not the app shell.
      const robots = await get(app, "/robots.txt");
      assert.equal(robots.res.headers.get("Content-Type"), "text/plain; charset=utf-8");
      assert.match(new TextDecoder().decode(robots.bytes), /^User-agent: \*/m);
      const ico = await get(app, "/favicon.ico");
      assert.equal(ico.res.status, 200);
      assert.equal(ico.res.headers.get("Content-Type"), "image/x-icon");
      assert.deepEqual([...ico.bytes.slice(0, 4)], [0, 0, 1, 0], "an ICO header");
      const meta = await sharp(ico.bytes.slice(22)).metadata();
      assert.equal(meta.width, 32);

      // A missing hashed asset is a 404; traversal never leaves the build.
      assert.equal((await get(app, "/assets/app-OLD.js")).res.status, 404);
      const traversal = await get(app, "/..%2f..%2fdeno.json");
      assert.match(new TextDecoder().decode(traversal.bytes), /<div id="root">/);
    } finally {
      await ctx.close();
    }
  },
});

apiTest(
  "performance: JSON compressed above 1 KB, identical once decoded; ETag and 304 on API GETs",
  async (ctx) => {
    const plain = await get(ctx.app, "/api/styling-options");
    assert.equal(plain.res.status, 200);
    assert.ok(plain.bytes.byteLength > 1024, "the catalogue is big enough to compress");
    for (const enc of ["br", "gzip"]) {
      const packed = await get(ctx.app, "/api/styling-options", { "Accept-Encoding": enc });
      assert.equal(packed.res.headers.get("Content-Encoding"), enc);
      assert.ok(packed.bytes.byteLength < plain.bytes.byteLength / 2, `${enc} at least halves it`);
      assert.deepEqual(decode(packed.res, packed.bytes), plain.bytes);
      assert.equal(packed.res.headers.get("Content-Length"), String(packed.bytes.byteLength));
    }
    // Small answers stay plain.
    const health = await get(ctx.app, "/api/health", { "Accept-Encoding": "br" });
    assert.equal(health.res.headers.get("Content-Encoding"), null);

    const etag = plain.res.headers.get("ETag");
    assert.match(etag ?? "", /^W\/"[0-9a-f]+"$/);
    const cached = await get(ctx.app, "/api/styling-options", { "If-None-Match": etag! });
    assert.equal(cached.res.status, 304);
    assert.equal(cached.bytes.byteLength, 0);

    // Per user: /me answers 304 only while the body is the same.
    const user = await ctx.register();
    const auth = { Authorization: `Bearer ${user.access_token}` };
    const me = await get(ctx.app, "/api/users/me", auth);
    assert.equal(me.res.status, 200);
    const meTag = me.res.headers.get("ETag")!;
    assert.equal(
      (await get(ctx.app, "/api/users/me", { ...auth, "If-None-Match": meTag })).res.status,
      304,
    );
    await ctx.database.db.execute(sql`update users set full_name = 'Renamed' where id = ${user.user.id}`);
    const changed = await get(ctx.app, "/api/users/me", { ...auth, "If-None-Match": meTag });
    assert.equal(changed.res.status, 200);
    assert.notEqual(changed.res.headers.get("ETag"), meTag);
    // Errors are not cached.
    const denied = await get(ctx.app, "/api/users/me");
    assert.equal(denied.res.status, 401);
    assert.equal(denied.res.headers.get("ETag"), null);
  },
);

apiTest("performance: logout revokes the access token on its next request", async (ctx) => {
  const user = await ctx.register();
  const token = user.access_token;
  assert.equal((await ctx.call("GET", "/api/users/me", { token })).status, 200);
  const out = await ctx.call("POST", "/api/auth/logout", { token, body: {} });
  assert.ok(out.status === 200 || out.status === 204, JSON.stringify(out.body));
  const after = await ctx.call("GET", "/api/users/me", { token });
  assert.equal(after.status, 401);
  assert.equal(after.body.detail, "Session has ended");
  // Another session of the same account is untouched.
  const other = await ctx.call("POST", "/api/auth/login", {
    body: { email: user.user.email, password: "Sup3r$ecret" },
  });
  assert.equal(other.status, 200, JSON.stringify(other.body));
  assert.equal(
    (await ctx.call("GET", "/api/users/me", { token: other.body.access_token })).status,
    200,
  );
  // A forged token and a deactivated account are refused too.
  assert.equal(
    (await ctx.call("GET", "/api/users/me", { token: token.slice(0, -2) + "xx" })).status,
    401,
  );
  await ctx.database.db.execute(sql`update users set is_active = false where id = ${user.user.id}`);
  const inactive = await ctx.call("GET", "/api/users/me", { token: other.body.access_token });
  assert.equal(inactive.status, 401);
  assert.equal(inactive.body.detail, "Could not validate credentials");
});

apiTest("performance: the status stream delivers completed, owner-only", async (ctx) => {
  const user = await ctx.register();
  const token = user.access_token;
  const photoId = await upload(ctx, token);
  const started = await ctx.call("POST", "/api/generate", {
    token,
    body: { photoId, studioType: "makeup", view360: false, options: { lookStyle: "no-makeup" } },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const id = started.body.generationId;

  // Someone else's job, or none, is a 404 before any stream opens.
  const stranger = await ctx.register();
  const foreign = await ctx.app.request(`/api/generation/${id}/events`, {
    headers: { Authorization: `Bearer ${stranger.access_token}` },
  });
  assert.equal(foreign.status, 404);
  await foreign.body?.cancel();
  assert.equal((await ctx.app.request(`/api/generation/${id}/events`)).status, 401);

  const res = await ctx.app.request(`/api/generation/${id}/events`, {
    headers: { Authorization: `Bearer ${token}`, "Accept-Encoding": "br, gzip" },
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("Content-Type") ?? "", /^text\/event-stream/);
  assert.equal(res.headers.get("Content-Encoding"), null, "a stream is never buffered for compression");
  const events = readEvents(res);
  // The job runs while the stream is open; the runner's wake-up ends the wait at once.
  const t0 = performance.now();
  assert.equal(await ctx.drain(), 1);
  const got = await events;
  const elapsed = performance.now() - t0;
  assert.equal(got[0].status, "queued");
  assert.equal(got.at(-1)!.status, "completed");
  const status = await ctx.call("GET", `/api/generation/${id}/status`, { token });
  assert.deepEqual(got.at(-1), status.body, "the last event is the status");
  // Woken by the runner, not by the 1 s recheck (a generous bound: this is not a timing test).
  assert.ok(elapsed < 900, `stream ended ${elapsed.toFixed(0)} ms after the job`);
  assert.equal(pendingWaits(), 0, "the stream let go of its wait");

  // A finished job's stream answers its final status and ends.
  const done = await readEvents(
    await ctx.app.request(`/api/generation/${id}/events`, {
      headers: { Authorization: `Bearer ${token}` },
    }),
  );
  assert.deepEqual(done.map((e) => e.status), ["completed"]);
});

apiTest("performance: history reads the index matching its ORDER BY", async (ctx) => {
  const user = await ctx.register();
  const other = await ctx.register();
  // Enough rows, and fresh statistics, for the planner to choose between a scan and the index:
  // copies of one real job, 2,000 for each of two accounts.
  const photoId = await upload(ctx, user.access_token);
  const started = await ctx.call("POST", "/api/generate", {
    token: user.access_token,
    body: { photoId, studioType: "makeup", view360: false, options: { lookStyle: "no-makeup" } },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const [job] = await ctx.database.db.select().from(generations)
    .where(eq(generations.id, started.body.generationId));
  const base = Date.now();
  for (const owner of [user.user.id, other.user.id]) {
    for (let chunk = 0; chunk < 4; chunk++) {
      await ctx.database.db.insert(generations).values(
        Array.from({ length: 500 }, (_, i) => ({
          ...job,
          id: crypto.randomUUID(),
          userId: owner,
          idempotencyKey: null,
          createdAt: new Date(base - (chunk * 500 + i + 1) * 1000),
        })),
      );
    }
  }
  await ctx.database.db.execute(sql`analyze generations`);

  const page = await ctx.call("GET", "/api/generations?limit=20", { token: user.access_token });
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.equal(page.body.items.length, 20);

  const plan = await ctx.database.db.execute(sql`
  explain select * from generations where user_id = ${user.user.id}
  order by created_at desc, id desc limit 21`);
  const text = (plan as unknown as { rows?: Record<string, string>[] }).rows ??
    (plan as unknown as Record<string, string>[]);
  const lines = text.map((r) => Object.values(r)[0]).join("\n");
  assert.match(lines, /Index Scan using generations_user_history_idx/, lines);
  assert.doesNotMatch(lines, /Sort/, lines);
});
