/**
 * GET /api/health through the real app on PGlite and Postgres: each component
 * reported, 503 when the product cannot generate, and a model that fails to
 * load fails queued jobs at once with a refund.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { creditLedger, users } from "../../db/schema.ts";
import {
  healthReport,
  STORAGE_PROBE_FRESH_MS,
  STORAGE_PROBE_REFRESH_AFTER_MS,
} from "../../server/health/health.service.ts";
import { monitorModel } from "../../server/health/model-monitor.ts";
import type { ImageModel } from "../../server/imaging/image-model.ts";
import { ModelError } from "../../server/imaging/image-model.ts";
import { apiTest, generate, uploadPhoto, waitFor } from "../helpers/api-test.ts";
import type { TestContext } from "../helpers/test-app.ts";
import { succeedingModel } from "../helpers/test-models.ts";

/** A model whose files fail to load: ready() rejects, as the local model's worker pool does. */
function modelThatFailsToLoad(): ImageModel & { calls: number } {
  const model = {
    name: "test-broken",
    capabilities: { angles: ["front" as const], supported: {} },
    calls: 0,
    generate() {
      model.calls++;
      return Promise.reject(new ModelError("The image model could not start", { transient: true }));
    },
    ready: () => Promise.reject(new ModelError("The image model could not start", { transient: true })),
    close: () => Promise.resolve(),
  };
  return model;
}

async function balance(ctx: TestContext, id: string) {
  const [u] = await ctx.database.db.select({ c: users.credits }).from(users).where(eq(users.id, id));
  return u.c;
}

apiTest(
  "health: database, storage, model and jobs reported; 200 when the product can generate",
  async (ctx) => {
    await (ctx.model as ReturnType<typeof monitorModel>).ready();
    const u = await ctx.register();
    const { photoId } = await uploadPhoto(ctx, u.access_token);
    assert.equal((await generate(ctx, u.access_token, { photoId })).status, 202);
    const res = await ctx.call("GET", "/api/health");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get("Cache-Control"), "no-store");
    assert.equal(res.body.status, "ok");
    const c = res.body.components;
    assert.deepEqual(c.database, { status: "ok" });
    assert.deepEqual(c.storage, { status: "ok", kind: "local" });
    assert.equal(c.model.name, "test-succeeding");
    assert.equal(c.model.status, "ready");
    assert.equal(c.jobs.status, "ok");
    assert.equal(c.jobs.queued, 1);
    assert.equal(c.jobs.running, 0);
    assert.ok(c.jobs.oldestQueuedAgeSeconds >= 0 && c.jobs.oldestQueuedAgeSeconds < 60);
    assert.equal(await ctx.drain(), 1);
    const after = (await ctx.call("GET", "/api/health")).body.components.jobs;
    assert.deepEqual(after, { status: "ok", queued: 0, running: 0, oldestQueuedAgeSeconds: null });
  },
  { model: () => monitorModel(succeedingModel()) },
);

let broken: ReturnType<typeof modelThatFailsToLoad>;
apiTest(
  "health: a model that fails to load turns health 503 and fails queued jobs fast with a refund",
  async (ctx) => {
    const u = await ctx.register();
    const { photoId } = await uploadPhoto(ctx, u.access_token);
    const res = await generate(ctx, u.access_token, { photoId });
    assert.equal(res.status, 202);
    assert.equal(await balance(ctx, u.user.id), 8);
    await (ctx.model as ReturnType<typeof monitorModel>).ready().catch(() => {});

    const health = await ctx.call("GET", "/api/health");
    assert.equal(health.status, 503);
    assert.equal(health.body.status, "unavailable");
    assert.equal(health.body.components.model.status, "failed");
    assert.match(health.body.components.model.detail, /failed to load: The image model could not start/);
    assert.deepEqual(health.body.components.database, { status: "ok" });
    assert.equal(health.body.components.jobs.queued, 1);

    const started = performance.now();
    assert.equal(await ctx.drain(), 1);
    assert.ok(performance.now() - started < 2_000, "no slow retries");
    const status = await ctx.call("GET", `/api/generation/${res.body.generationId}/status`, {
      token: u.access_token,
    });
    assert.equal(status.body.status, "failed");
    assert.equal(
      status.body.error,
      "The image model is not available right now, so this look could not be generated. Your credits have been refunded. Please try again later.",
    );
    assert.equal(await balance(ctx, u.user.id), 10, "refunded");
    const rows = await ctx.database.db.select().from(creditLedger).where(
      eq(creditLedger.ref, res.body.generationId),
    );
    assert.deepEqual(rows.map((r) => r.reason).sort(), ["generation_charge", "generation_refund"]);
    assert.equal(broken.calls, 0, "the broken model was never called");
  },
  { model: () => monitorModel(broken = modelThatFailsToLoad()) },
);

apiTest("health: an API-only process (no model here) is healthy and says so", async (ctx) => {
  const res = await ctx.call("GET", "/api/health");
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.components.model, { name: "test-succeeding", status: "not_run_here" });
});

apiTest("health: storage that cannot be written turns health 503", async (ctx) => {
  // The uploads folder replaced by a file: every write fails, as on a broken or read-only mount.
  await Deno.remove(ctx.storage.root, { recursive: true });
  await Deno.writeTextFile(ctx.storage.root, "not a folder");
  const res = await ctx.call("GET", "/api/health");
  assert.equal(res.status, 503);
  assert.deepEqual(res.body.components.storage, {
    status: "error",
    detail: "Storage unavailable",
    kind: "local",
  });
});

apiTest("health: a database the check cannot read turns health 503", async (ctx) => {
  // The jobs table gone: the check's query fails as it would on a broken database.
  await ctx.database.db.execute(sql`alter table generations rename to generations_gone`);
  const res = await ctx.call("GET", "/api/health");
  assert.equal(res.status, 503);
  assert.deepEqual(res.body.components.database, { status: "error", detail: "Database unavailable" });
  assert.deepEqual(res.body.components.jobs, { status: "error" });
  await ctx.database.db.execute(sql`alter table generations_gone rename to generations`);
});

apiTest(
  "health: on PGlite a request is answered between queued transactions, not after all of them",
  async (ctx) => {
    const u = await ctx.register();
    const committed: number[] = [];
    // 20 transactions queued at once, as a burst of generate requests queues them.
    const burst = Array.from({ length: 20 }, (_, i) =>
      ctx.database.db.transaction(async (tx) => {
        await tx.update(users).set({ fullName: `Burst ${i}` }).where(eq(users.id, u.user.id));
        await tx.select().from(users).where(eq(users.id, u.user.id));
      }).then(() => committed.push(i)));
    const health = await ctx.call("GET", "/api/health");
    const before = committed.length;
    await Promise.all(burst);
    assert.equal(health.status, 200);
    // Its query waited for the transaction holding the connection (and at most the next), not for the queue.
    assert.ok(before <= 2, `health answered after ${before} of 20 transactions`);
  },
  { only: "pglite" },
);

apiTest(
  "health: a recent storage probe answers; a failure shows once the next probe (in the background) meets it",
  async (ctx) => {
    const deps = { db: ctx.database.db, storage: ctx.storage, storageKind: "local", model: { name: "m" } };
    const t0 = Date.now();
    assert.equal((await healthReport(deps, new Date(t0))).components.storage.status, "ok");
    await Deno.remove(ctx.storage.root, { recursive: true });
    await Deno.writeTextFile(ctx.storage.root, "not a folder");
    // Less than the refresh age: answered from the probe just made, no new one.
    assert.equal((await healthReport(deps, new Date(t0 + 1_000))).components.storage.status, "ok");
    // Past it: still answered from that probe, while the next one runs and fails...
    assert.equal(
      (await healthReport(deps, new Date(t0 + STORAGE_PROBE_REFRESH_AFTER_MS))).components.storage.status,
      "ok",
    );
    // ...and from then on every check probes again, and reports the failure.
    const failed = await waitFor("the failure reported", async () => {
      const report = await healthReport(deps, new Date(t0 + STORAGE_PROBE_REFRESH_AFTER_MS + 10));
      return report.status === "unavailable" ? report : undefined;
    });
    assert.deepEqual(failed.components.storage, {
      status: "error",
      detail: "Storage unavailable",
      kind: "local",
    });
    // A probe older than the fresh age is never used: the check waits for a new one.
    await Deno.remove(ctx.storage.root);
    await Deno.mkdir(ctx.storage.root);
    assert.equal((await healthReport(deps, new Date(t0 + 3_000))).status, "ok");
    await Deno.remove(ctx.storage.root, { recursive: true });
    await Deno.writeTextFile(ctx.storage.root, "not a folder");
    const late = await healthReport(deps, new Date(t0 + 3_000 + STORAGE_PROBE_FRESH_MS));
    assert.equal(late.components.storage.status, "error");
    await Deno.remove(ctx.storage.root);
  },
);
