/**
 * Generation jobs and the credit ledger through the real app and job runner,
 * on PGlite and Postgres, with test-only models (the real local model has
 * its own tests in tests/imaging). Every test builds its own database, users
 * and photos (tests/helpers/api-test.ts), so each runs alone and in any order.
 */
import assert from "node:assert/strict";
import { eq, inArray, sql } from "drizzle-orm";
import sharp from "sharp";
import { creditLedger, generations, photos, users } from "../../db/schema.ts";
import { applyCreditChange } from "../../server/credits/credits.service.ts";
import { claimNextGeneration, completeGeneration } from "../../server/generation/generation.repository.ts";
import {
  generationStatusResponseSchema,
  historyPageSchema,
} from "../../server/generation/generation.schemas.ts";
import { JobRunner, MAX_ATTEMPTS, requeueOrphanedJobs } from "../../server/generation/job-runner.ts";
import { type ImageModel, ModelError } from "../../server/imaging/image-model.ts";
import { ANGLES, OPTION_KEYS } from "../../server/styling/option-keys.ts";
import { CATALOG } from "../../server/styling/catalog.ts";
import { apiTest, generate, uploadPhoto, waitFor } from "../helpers/api-test.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { callApp, type TestContext } from "../helpers/test-app.ts";
import { createApp } from "../../server/app.ts";
import { abortable, failingModel, hangingModel, succeedingModel } from "../helpers/test-models.ts";

const INSUFFICIENT_CREDITS =
  "Insufficient Credits: You need at least 2 credits to generate an image. Click 'Buy Credits' to purchase more.";
const PHOTO_NOT_FOUND = "Photo not found: upload a photo first";
const ADMIN_EMAIL = "admin@example.com";

const upload = async (ctx: TestContext, token?: string) => (await uploadPhoto(ctx, token)).photoId;

/** The calls the context's test model received. */
const calls = (ctx: TestContext) => (ctx.model as ReturnType<typeof succeedingModel>).calls;

// A real lipstick from the catalog, sent by its label the way the old client did.
const LIPSTICK = CATALOG.makeup.lips[1];

async function balance(ctx: TestContext, userId: string): Promise<number> {
  const [u] = await ctx.database.db.select({ c: users.credits }).from(users).where(eq(users.id, userId));
  return u.c;
}

async function ledgerRows(ctx: TestContext, ref: string) {
  return await ctx.database.db.select().from(creditLedger).where(eq(creditLedger.ref, ref));
}

async function generationRow(ctx: TestContext, id: string) {
  const [row] = await ctx.database.db.select().from(generations).where(eq(generations.id, id));
  return row;
}

/**
 * Runs every runnable job with `model` (a runner beside the context's own), so
 * one database per file serves every model these tests need.
 */
async function drainWith(ctx: TestContext, model: ImageModel, timeoutMs = 5_000): Promise<number> {
  const runner = new JobRunner({
    db: ctx.database.db,
    storage: ctx.storage,
    model,
    workers: 1,
    timeoutMs,
    backoffBaseMs: 0,
  });
  let n = 0;
  while (await runner.runOnce()) {
    if (++n > 100) throw new Error("drainWith: the queue never emptied");
  }
  return n;
}

async function storedKeys(ctx: TestContext): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const blob of ctx.storage.list()) keys.add(blob.key);
  return keys;
}

/** A response must be exactly what its zod schema describes (parse strips unknown keys). */
function assertShape(schema: { parse(v: unknown): unknown }, body: unknown) {
  assert.deepEqual(schema.parse(body), body);
}

/** Sets a user's balance through the ledger, so the ledger audit still holds. */
async function setBalance(ctx: TestContext, userId: string, credits: number) {
  const delta = credits - await balance(ctx, userId);
  await ctx.database.db.transaction(async (tx) => {
    const r = await applyCreditChange(tx, { userId, delta, reason: "adjustment", ref: crypto.randomUUID() });
    assert.ok(r.applied);
  });
}

const cursorOf = (iso: string, id: string) => btoa(`${iso}|${id}`).replaceAll("=", "");

apiTest(
  "generation: GET /api/styling-options: the four groups, rich lists, defaults, models",
  async (ctx) => {
    const res = await ctx.call("GET", "/api/styling-options");
    assert.equal(res.status, 200);
    const b = res.body;
    const groups: Record<string, string[]> = {
      makeup: ["lookStyles", "eyeshadow", "lips", "baseMakeup", "cheeks", "extras"],
      hair: ["styles", "lengths", "textures", "colors"],
      barber: [
        "hairStyles",
        "hairLengths",
        "hairTextures",
        "hairColors",
        "facialHair",
        "facialHairColors",
      ],
      scene: [
        "outfits",
        "shoes",
        "poses",
        "accessories",
        "activities",
        "settings",
        "camera",
        "lighting",
      ],
    };
    for (const [group, lists] of Object.entries(groups)) {
      assert.deepEqual(Object.keys(b[group]).sort(), [...lists].sort(), group);
      for (const list of lists) {
        const entries = b[group][list];
        assert.ok(
          entries.length >= (group === "scene" ? 6 : 8),
          `${group}.${list} has ${entries.length}`,
        );
        for (const e of entries) assert.ok(typeof e.id === "string" && typeof e.label === "string");
        assert.equal(
          new Set(entries.map((e: { id: string }) => e.id)).size,
          entries.length,
          "unique ids",
        );
      }
    }
    assert.equal(b.makeup.lookStyles[0].label, "No Makeup");
    assert.ok(b.makeup.lips.some((e: { hex?: string }) => /^#[0-9a-f]{6}$/i.test(e.hex ?? "")));
    assert.deepEqual(Object.keys(b.defaults).sort(), [...OPTION_KEYS].sort());
    assert.equal(b.defaults.lookStyle, b.makeup.lookStyles[0].id);
    assert.equal(b.models.active, "test-succeeding");
    assert.deepEqual(b.models.angles, ["front"]);
  },
);

apiTest(
  "generation: anonymous upload, then generate: 202, 2 credits charged, job runs, result served",
  async (ctx) => {
    const alice = await ctx.register();
    const aliceId = alice.user.id;
    const photoId = await upload(ctx); // anonymous
    const res = await generate(ctx, alice.access_token, {
      photoId,
      options: { lips: LIPSTICK.label, lookStyle: "no-makeup" },
      intensity: { lips: 90 },
      additionalInstructions: "  keep it subtle ",
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const firstId = res.body.generationId;
    assert.equal(await balance(ctx, aliceId), 8);
    const queued = await ctx.call("GET", `/api/generation/${firstId}/status`, {
      token: alice.access_token,
    });
    assert.equal(queued.body.status, "queued");
    assert.equal(queued.body.resultUrl, null);
    assertShape(generationStatusResponseSchema, queued.body);
    assert.equal(await ctx.drain(), 1);
    const done = await ctx.call("GET", `/api/generation/${firstId}/status`, {
      token: alice.access_token,
    });
    assert.equal(done.body.status, "completed");
    assert.match(done.body.resultUrl, /^\/api\/uploads\/[0-9a-f]{32}\.png$/);
    assert.deepEqual(done.body.resultUrls, { front: done.body.resultUrl });
    assert.equal(done.body.error, null);
    assert.deepEqual(done.body.notes, ["rendered front"]);
    assertShape(generationStatusResponseSchema, done.body);
    const img = await ctx.app.request(done.body.resultUrl);
    assert.equal(img.status, 200);
    assert.equal(img.headers.get("Content-Type"), "image/png");
    const meta = await sharp(new Uint8Array(await img.arrayBuffer())).metadata();
    assert.equal(meta.width, 54);
    // The model got the resolved catalog ids, defaults filled in, and the intensity.
    const call = calls(ctx).at(-1)!;
    assert.equal(call.options.lips, LIPSTICK.id);
    assert.equal(Object.keys(call.options).length, OPTION_KEYS.length);
    assert.equal(call.intensity.lips, 90);
    assert.equal(call.intensity.eyeshadow, 60);
    assert.equal(call.instructions, "keep it subtle");
    assert.equal(call.angle, "front");
    // The anonymous photo now belongs to alice: bob cannot use it.
    const bob = await ctx.register();
    const stolen = await generate(ctx, bob.access_token, { photoId });
    assert.equal(stolen.status, 404);
    assert.equal(await balance(ctx, bob.user.id), 10);
  },
);

apiTest("generation: history: newest first, cursor pagination, owner only", async (ctx) => {
  const alice = await ctx.register();
  const photoId = await upload(ctx, alice.access_token);
  // The oldest item: a completed job with a result.
  const first = await generate(ctx, alice.access_token, { photoId, options: { lips: LIPSTICK.id } });
  assert.equal(first.status, 202);
  const firstId: string = first.body.generationId;
  assert.equal(await ctx.drain(), 1);
  for (let i = 0; i < 2; i++) {
    const r = await generate(ctx, alice.access_token, {
      photoId,
      studioType: "hair",
      view360: i === 1,
    });
    assert.equal(r.status, 202);
  }
  const page1 = await ctx.call("GET", "/api/generations?limit=2", { token: alice.access_token });
  assert.equal(page1.status, 200);
  assert.equal(page1.body.items.length, 2);
  assert.equal(page1.body.items[0].view360, true);
  assert.equal(page1.body.items[0].studio_type, "hair");
  assert.equal(page1.body.items[0].status, "queued");
  assert.ok(page1.body.next_cursor);
  assertShape(historyPageSchema, page1.body);
  const page2 = await ctx.call("GET", `/api/generations?limit=2&cursor=${page1.body.next_cursor}`, {
    token: alice.access_token,
  });
  assert.equal(page2.body.items.length, 1);
  assert.equal(page2.body.items[0].id, firstId);
  assert.match(page2.body.items[0].result_url, /^\/api\/uploads\//);
  assert.equal(page2.body.items[0].options.lips, LIPSTICK.id);
  assert.equal(page2.body.next_cursor, null);
  const item = page2.body.items[0];
  assert.deepEqual(
    Object.keys(item).sort(),
    [
      "chosen_options",
      "created_at",
      "credits_charged",
      "id",
      "options",
      "result_url",
      "result_urls",
      "status",
      "studio_type",
      "view360",
    ],
  );
  const eve = await ctx.register();
  const theirs = await ctx.call("GET", "/api/generations", { token: eve.access_token });
  assert.deepEqual(theirs.body, { items: [], next_cursor: null });
  const peek = await ctx.call("GET", `/api/generation/${firstId}/status`, {
    token: eve.access_token,
  });
  assert.equal(peek.status, 404);
  assert.equal(
    (await ctx.call("GET", `/api/generation/not-a-uuid/status`, { token: eve.access_token })).status,
    404,
  );
  // Tampered cursors: 422, never a 500 from the database (years like 0000, -271821 and
  // +275760 parse in JavaScript but break the query on both backends).
  const id = crypto.randomUUID();
  const tampered = [
    "garbage",
    "%%%",
    cursorOf("0000-01-01T00:00:00.000Z", id),
    cursorOf("-271821-04-20T00:00:00.000Z", id),
    cursorOf("+275760-09-13T00:00:00.000Z", id),
    cursorOf("1969-12-31T23:59:59.999Z", id),
    cursorOf("2024-02-30T00:00:00.000Z", id), // Date rolls it over to March
    cursorOf("2024-01-01T00:00:00Z", id), // no milliseconds
    cursorOf("2024-01-01T00:00:00.000+01:00", id),
    cursorOf("2024-01-01 00:00:00.000Z", id),
    cursorOf("2024-01-01T00:00:00.000Z", "not-a-uuid"),
    cursorOf("2024-01-01T00:00:00.000Z", `${id}x`),
    btoa(`2024-01-01T00:00:00.000Z|${id}|extra`),
    btoa("2024-01-01T00:00:00.000Z"),
  ];
  for (const cursor of tampered) {
    const res = await ctx.call("GET", `/api/generations?cursor=${encodeURIComponent(cursor)}`, {
      token: eve.access_token,
    });
    assert.equal(res.status, 422, cursor);
    assert.deepEqual(res.body, { detail: "Invalid cursor", code: "validation_error" }, cursor);
  }
  // A page size outside 1-100, or not a whole number, names the field and its range.
  for (const limit of ["0", "101", "abc", "2.5", "-1"]) {
    const res = await ctx.call("GET", `/api/generations?limit=${limit}`, { token: eve.access_token });
    assert.equal(res.status, 422, limit);
    assert.deepEqual(res.body, {
      detail: "limit must be a whole number from 1 to 100",
      code: "validation_error",
    });
  }
  // The edges of the accepted range are real cursors (an empty page, not an error).
  for (const iso of ["1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) {
    const res = await ctx.call("GET", `/api/generations?cursor=${cursorOf(iso, id)}`, {
      token: alice.access_token,
    });
    assert.equal(res.status, 200, iso);
  }
  const newest = await ctx.call(
    "GET",
    `/api/generations?cursor=${cursorOf("9999-12-31T23:59:59.999Z", id)}`,
    {
      token: alice.access_token,
    },
  );
  assert.equal(newest.body.items.length, 3, "everything is older than year 9999");
  await ctx.drain();
});

apiTest("generation: bad input -> clear 4xx and nothing written", async (ctx) => {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const before = await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(generations);
  const cases: [Record<string, unknown>, number, RegExp][] = [
    [{ photoId, options: { sparkle: "yes" } }, 422, /Unknown option "sparkle"/],
    [
      { photoId, options: { lips: "blue-steel" } },
      422,
      /Invalid value for lips: "blue-steel"\. Allowed values: none, /,
    ],
    [{ photoId, options: { facialHair: 42 } }, 422, /Invalid value for facialHair/],
    [{ photoId, studioType: "nails" }, 422, /studioType must be one of: makeup, hair, barber/],
    [{ photoId, intensity: { lips: 101 } }, 422, /intensity must be 0-100/],
    [{ photoId, referencePhotoIds: ["a", "b", "c", "d"] }, 422, /At most 3 reference photos/],
    [{}, 422, /No Photo Uploaded/],
    [{ photoId: crypto.randomUUID() }, 404, /Photo not found/],
    [{ photoId: "../../etc/passwd" }, 404, /Photo not found/],
    [{ photoId, referencePhotoIds: [crypto.randomUUID()] }, 404, /Photo not found/],
  ];
  for (const [body, status, detail] of cases) {
    const res = await generate(ctx, u.access_token, body);
    assert.equal(res.status, status, JSON.stringify(body) + JSON.stringify(res.body));
    assert.match(res.body.detail, detail);
  }
  assert.equal(
    (await ctx.call("POST", "/api/generate", { body: { photoId, studioType: "makeup" } })).status,
    401,
  );
  const after = await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(generations);
  assert.deepEqual(after, before);
  assert.equal(await balance(ctx, u.user.id), 10);
});

apiTest(
  "generation: photo checks come before the charge: 404 beats 402; a 402 claims nothing",
  async (ctx) => {
    const broke = await ctx.register();
    const own = await upload(ctx, broke.access_token);
    const someoneElses = await upload(ctx, (await ctx.register()).access_token);
    await setBalance(ctx, broke.user.id, 0);
    for (
      const body of [
        { photoId: crypto.randomUUID() },
        { photoId: someoneElses },
        { photoId: own, referencePhotoIds: [crypto.randomUUID()] },
        { photoId: own, referencePhotoIds: [someoneElses] },
      ]
    ) {
      const res = await generate(ctx, broke.access_token, body);
      assert.equal(res.status, 404, JSON.stringify(body));
      assert.deepEqual(res.body, { detail: PHOTO_NOT_FOUND, code: "not_found" });
    }
    const poor = await generate(ctx, broke.access_token, { photoId: own });
    assert.equal(poor.status, 402);
    assert.deepEqual(poor.body, { detail: INSUFFICIENT_CREDITS, code: "insufficient_credits" });
    // An anonymous photo is claimed inside the same transaction: the 402 rolls the claim back.
    const anonymous = await upload(ctx);
    assert.equal((await generate(ctx, broke.access_token, { photoId: anonymous })).status, 402);
    const [photo] = await ctx.database.db.select().from(photos).where(eq(photos.id, anonymous));
    assert.equal(photo.ownerId, null);
    assert.equal(await balance(ctx, broke.user.id), 0);
  },
);

apiTest("generation: reference photos reach the model; another user's reference is 404", async (ctx) => {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const refA = await upload(ctx, u.access_token);
  const refB = await upload(ctx); // anonymous: claimed like the avatar
  const res = await generate(ctx, u.access_token, {
    photoId,
    referencePhotoIds: [refA, refB.toUpperCase(), refB],
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const row = await generationRow(ctx, res.body.generationId);
  assert.deepEqual(row.referencePhotoIds, [refA, refB], "deduplicated, in the order given");
  const [claimed] = await ctx.database.db.select().from(photos).where(eq(photos.id, refB));
  assert.equal(claimed.ownerId, u.user.id);
  assert.equal(await ctx.drain(), 1);
  const call = calls(ctx).at(-1)!;
  const storedBytes = async (id: string) => {
    const [p] = await ctx.database.db.select().from(photos).where(eq(photos.id, id));
    return (await ctx.storage.get(p.storageKey))!;
  };
  assert.deepEqual(call.references, [await storedBytes(refA), await storedBytes(refB)]);
  assert.deepEqual(call.photo, await storedBytes(photoId));

  const other = await ctx.register();
  const theirs = await upload(ctx, other.access_token);
  const stolen = await generate(ctx, u.access_token, { photoId, referencePhotoIds: [theirs] });
  assert.equal(stolen.status, 404);
  assert.deepEqual(stolen.body, { detail: PHOTO_NOT_FOUND, code: "not_found" });
  assert.equal(await balance(ctx, u.user.id), 8, "only the accepted job was charged");
});

apiTest(
  "generation: two users claiming the same anonymous photos in opposite order: one wins, no 500",
  async (ctx) => {
    for (let round = 0; round < 5; round++) {
      const a = await ctx.register();
      const b = await ctx.register();
      const p1 = await upload(ctx);
      const p2 = await upload(ctx);
      const results = await Promise.all([
        generate(ctx, a.access_token, { photoId: p1, referencePhotoIds: [p2] }),
        generate(ctx, b.access_token, { photoId: p2, referencePhotoIds: [p1] }),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), [202, 404], JSON.stringify(results));
      const winner = results[0].status === 202 ? a : b;
      const owners = await ctx.database.db.select({ owner: photos.ownerId }).from(photos)
        .where(inArray(photos.id, [p1, p2]));
      assert.deepEqual(owners.map((o) => o.owner), [winner.user.id, winner.user.id]);
    }
    await ctx.drain();
  },
);

apiTest(
  "generation: photos are claimed in sorted id order (the lock order is observable on postgres)",
  async (ctx) => {
    // PGlite is one connection with a global transaction lock: it cannot deadlock, and a
    // second transaction cannot observe the first one's row locks.
    const db = ctx.database.db;
    const a = await ctx.register();
    const [lo, hi] = [await upload(ctx), await upload(ctx)].sort();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    // Another transaction holds the higher id, the way a concurrent claimer would.
    const holder = db.transaction(async (tx) => {
      await tx.select({ id: photos.id }).from(photos).where(eq(photos.id, hi)).for("update");
      holding();
      await released;
    });
    await held;
    // The avatar is the higher id: a request that locked in the order given would block on
    // `hi` before touching `lo`. Claiming in sorted order, it holds `lo` while it waits.
    const request = generate(ctx, a.access_token, { photoId: hi, referencePhotoIds: [lo] });
    try {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(sql`pg_stat_activity`)
          .where(sql`datname = current_database() and wait_event_type = 'Lock'`);
        if (n > 0) break;
        assert.ok(Date.now() < deadline, "the request never waited for the held photo");
        await new Promise((r) => setTimeout(r, 10));
      }
      const probe = db.transaction(async (tx) => {
        await tx.select({ id: photos.id }).from(photos).where(eq(photos.id, lo))
          .for("update", { noWait: true });
      });
      await assert.rejects(probe, (e: { code?: string; cause?: { code?: string } }) => {
        assert.equal(e.cause?.code ?? e.code, "55P03", "lock_not_available: the request holds lo");
        return true;
      });
    } finally {
      release();
      await holder;
    }
    const res = await request;
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await ctx.drain();
  },
  { only: "postgres" },
);

apiTest("generation: barber studio validates against the barber lists; labels accepted", async (ctx) => {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const opts = (await ctx.call("GET", "/api/styling-options")).body;
  const beard = opts.barber.facialHair[1];
  const ok = await generate(ctx, u.access_token, {
    photoId,
    studioType: "barber",
    options: { facialHair: beard.label.toUpperCase(), hairColor: opts.barber.hairColors[1].id },
  });
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  const [row] = await ctx.database.db.select().from(generations)
    .where(eq(generations.id, ok.body.generationId));
  assert.equal(row.options.facialHair, beard.id);
  await ctx.drain();
});

apiTest("generation: 40 parallel generates with 10 credits -> exactly 5 accepted, balance 0", async (ctx) => {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const results = await Promise.all(
    Array.from({ length: 40 }, () => generate(ctx, u.access_token, { photoId })),
  );
  const accepted = results.filter((r) => r.status === 202).length;
  const refused = results.filter((r) => r.status === 402);
  assert.equal(accepted, 5);
  assert.equal(refused.length, 35);
  assert.equal(refused[0].body.detail, INSUFFICIENT_CREDITS);
  assert.equal(await balance(ctx, u.user.id), 0);
  const [{ n }] = await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(generations)
    .where(eq(generations.userId, u.user.id));
  assert.equal(n, 5);
  assert.deepEqual((await ledgerMismatches(ctx.database.db)).mismatches, []);
  const credits = await ctx.call("GET", "/api/user/credits", { token: u.access_token });
  assert.deepEqual(credits.body, { credits: 0 });
  assert.equal(await ctx.drain(), 5);
});

apiTest("generation: admins generate for free: no charge, no ledger row", async (ctx) => {
  const admin = await ctx.register({ email: ADMIN_EMAIL });
  const photoId = await upload(ctx, admin.access_token);
  const res = await generate(ctx, admin.access_token, { photoId });
  assert.equal(res.status, 202);
  assert.equal(await balance(ctx, admin.user.id), 10);
  assert.deepEqual(await ledgerRows(ctx, res.body.generationId), []);
  await ctx.drain();
}, { env: { ADMIN_EMAILS: ADMIN_EMAIL } });

apiTest("generation: a worker that died mid-job: the lease expires, the job completes once", async (ctx) => {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
  // A worker claims the job and dies without finishing.
  const claimed = await claimNextGeneration(ctx.database.db, new Date(), 60_000);
  assert.equal(claimed?.id, generationId);
  assert.equal(await ctx.drain(), 0, "a live lease is respected");
  await ctx.database.db.update(generations).set({ leaseUntil: new Date(Date.now() - 1000) })
    .where(eq(generations.id, generationId));
  const callsBefore = calls(ctx).length;
  assert.equal(await ctx.drain(), 1);
  assert.equal(calls(ctx).length, callsBefore + 1);
  const row = await generationRow(ctx, generationId);
  assert.equal(row.status, "completed");
  assert.equal(row.attempts, 2);
  const rows = await ledgerRows(ctx, generationId);
  assert.equal(rows.length, 1, "charged once, never refunded");
  assert.equal(await balance(ctx, u.user.id), 8);
  // The dead worker wakes up and reports its result: its claim (attempt 1) is gone, so
  // the late completion is refused and changes nothing.
  const late = await completeGeneration(ctx.database.db, generationId, claimed!.attempts, {
    front: "0123456789abcdef0123456789abcdef.png",
  }, ["late"]);
  assert.equal(late, false);
  assert.deepEqual(await generationRow(ctx, generationId), row);
});

apiTest("generation: shutting down mid-job hands the job back at once, attempt given back", async (ctx) => {
  const slow = succeedingModel({ delayMs: 10_000 });
  const runner = new JobRunner({
    db: ctx.database.db,
    storage: ctx.storage,
    model: { ...slow, generate: (req) => abortable(slow.generate(req), req.signal) },
    workers: 1,
    timeoutMs: 30_000,
    pollMs: 10,
  });
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
  // More restarts than MAX_ATTEMPTS: a deploy is not a model failure, so none of them counts.
  for (let restart = 1; restart <= MAX_ATTEMPTS; restart++) {
    runner.start();
    await waitFor(`model call ${restart}`, () => slow.calls.length >= restart);
    await runner.stop();
    const row = await generationRow(ctx, generationId);
    assert.equal(row.status, "queued", `restart ${restart}`);
    assert.equal(row.leaseUntil, null);
    assert.equal(row.attempts, 0, `restart ${restart}: the attempt was given back`);
  }
  assert.equal(await ctx.drain(), 1, "the next runner picks it up without waiting for a lease");
  const s = await ctx.call("GET", `/api/generation/${generationId}/status`, {
    token: u.access_token,
  });
  assert.equal(s.body.status, "completed");
  assert.equal((await generationRow(ctx, generationId)).attempts, 1);
  const rows = await ledgerRows(ctx, generationId);
  assert.deepEqual(rows.map((r) => r.reason), ["generation_charge"], "charged once, not refunded");
  assert.equal(await balance(ctx, u.user.id), 8);
});

for (
  const [label, makeModel, timeoutMs, expectedCalls, error] of [
    ["permanent failure (no face)", () => failingModel(false), 5_000, 1, /^No face found/],
    [
      "transient failures retried then failed",
      () => failingModel(true),
      5_000,
      MAX_ATTEMPTS,
      /encountered an error/,
    ],
    ["hanging model times out", () => hangingModel(), 150, MAX_ATTEMPTS, /encountered an error/],
  ] as const
) {
  apiTest(`generation: failures refund once: ${label}`, async (ctx) => {
    // A fresh model per run: the same test runs on each backend, and call counts must not add up.
    const failing = makeModel();
    const u = await ctx.register();
    const photoId = await upload(ctx, u.access_token);
    const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
    assert.equal(await balance(ctx, u.user.id), 8);
    const before = await storedKeys(ctx);
    await drainWith(ctx, failing, timeoutMs);
    assert.equal(failing.calls.length, expectedCalls);
    const status = await ctx.call("GET", `/api/generation/${generationId}/status`, {
      token: u.access_token,
    });
    assert.equal(status.body.status, "failed");
    assert.match(status.body.error, error);
    assert.equal(status.body.resultUrl, null);
    assertShape(generationStatusResponseSchema, status.body);
    assert.equal(await balance(ctx, u.user.id), 10);
    const rows = await ledgerRows(ctx, generationId);
    assert.deepEqual(rows.map((r) => [r.reason, r.delta]).sort(), [
      ["generation_charge", -2],
      ["generation_refund", 2],
    ]);
    assert.deepEqual(await storedKeys(ctx), before, "nothing left in storage from failed attempts");
  });
}

apiTest("generation: 360: a four-angle model yields four distinct results", async (ctx) => {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const { generationId } = (await generate(ctx, u.access_token, { photoId, view360: true })).body;
  assert.equal(await drainWith(ctx, succeedingModel({ angles: [...ANGLES] })), 1);
  const s = await ctx.call("GET", `/api/generation/${generationId}/status`, {
    token: u.access_token,
  });
  assert.deepEqual(Object.keys(s.body.resultUrls).sort(), ["back", "front", "left", "right"]);
  assert.equal(new Set(Object.values(s.body.resultUrls)).size, 4);
  assertShape(generationStatusResponseSchema, s.body);
  assert.equal(await balance(ctx, u.user.id), 8, "a 360 set still costs 2 credits");
});

apiTest(
  "generation: 360: a side view that failed transiently is tried once more; a refused one is not",
  async (ctx) => {
    const u = await ctx.register();
    const photoId = await upload(ctx, u.access_token);
    const { generationId } = (await generate(ctx, u.access_token, { photoId, view360: true })).body;
    const base = succeedingModel({ angles: [...ANGLES] });
    const tries: Record<string, number> = {};
    const model: ImageModel = {
      ...base,
      generate(req) {
        tries[req.angle] = (tries[req.angle] ?? 0) + 1;
        // The right view crashes once (transient); the left is refused (declined: asked again it would be
        // declined, and billed, again).
        if (req.angle === "right" && tries.right === 1) return Promise.reject(new Error("worker crashed"));
        if (req.angle === "left") {
          return Promise.reject(
            new ModelError("The image service declined this request", { transient: false }),
          );
        }
        return base.generate(req);
      },
    };
    assert.equal(await drainWith(ctx, model), 1);
    assert.deepEqual(tries, { front: 1, right: 2, left: 1, back: 1 });
    const s = await ctx.call("GET", `/api/generation/${generationId}/status`, { token: u.access_token });
    assert.equal(s.body.status, "completed");
    assert.deepEqual(Object.keys(s.body.resultUrls).sort(), ["back", "front", "right"]);
  },
);

apiTest(
  "generation: 360: a front-only model: other angles absent, not faked; a note says so",
  async (ctx) => {
    const u = await ctx.register();
    const photoId = await upload(ctx, u.access_token);
    const { generationId } = (await generate(ctx, u.access_token, { photoId, view360: true })).body;
    assert.equal(await drainWith(ctx, succeedingModel({ angles: ["front"] })), 1);
    const s = await ctx.call("GET", `/api/generation/${generationId}/status`, {
      token: u.access_token,
    });
    assert.deepEqual(Object.keys(s.body.resultUrls), ["front"]);
    assert.ok(s.body.notes.some((n: string) => /renders only the front view/.test(n)));
  },
);

// ---------- retries, leases, deletion ----------

apiTest(
  "generation: a retry with the same Idempotency-Key returns the same job, charged once",
  async (ctx) => {
    const u = await ctx.register();
    const photoId = await upload(ctx, u.access_token);
    const key = crypto.randomUUID();
    const body = { photoId, options: { lips: LIPSTICK.id }, intensity: { lips: 70 } };
    const first = await generate(ctx, u.access_token, body, { "Idempotency-Key": key });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    // The response was lost: the client retries, the same body in another key order.
    const retry = await generate(ctx, u.access_token, {
      intensity: { lips: 70 },
      options: { lips: LIPSTICK.id },
      photoId,
    }, {
      "Idempotency-Key": key,
    });
    assert.equal(retry.status, 202);
    assert.equal(retry.body.generationId, first.body.generationId);
    assert.equal(await balance(ctx, u.user.id), 8, "charged once");
    assert.equal((await ledgerRows(ctx, first.body.generationId)).length, 1);
    // Concurrent twins: still one job and one charge.
    const twinKey = crypto.randomUUID();
    const twins = await Promise.all(
      Array.from({ length: 5 }, () => generate(ctx, u.access_token, body, { "Idempotency-Key": twinKey })),
    );
    assert.deepEqual(
      twins.map((r) => r.status),
      [202, 202, 202, 202, 202],
      JSON.stringify(twins.map((t) => t.body)),
    );
    assert.equal(new Set(twins.map((r) => r.body.generationId)).size, 1);
    assert.equal(await balance(ctx, u.user.id), 6);
    // Another click is another key: a new job.
    const next = await generate(ctx, u.access_token, body, { "Idempotency-Key": crypto.randomUUID() });
    assert.notEqual(next.body.generationId, first.body.generationId);
    assert.equal(await balance(ctx, u.user.id), 4);
    // Keys are per user: another user's same key is their own request.
    const other = await ctx.register();
    const otherPhoto = await upload(ctx, other.access_token);
    const theirs = await generate(ctx, other.access_token, { photoId: otherPhoto }, {
      "Idempotency-Key": key,
    });
    assert.equal(theirs.status, 202);
    assert.notEqual(theirs.body.generationId, first.body.generationId);
    await ctx.drain();
  },
);

apiTest(
  "generation: the same Idempotency-Key with another body is 422; a malformed key is 422",
  async (ctx) => {
    const u = await ctx.register();
    const photoId = await upload(ctx, u.access_token);
    const key = crypto.randomUUID();
    assert.equal((await generate(ctx, u.access_token, { photoId }, { "Idempotency-Key": key })).status, 202);
    const changed = await generate(ctx, u.access_token, { photoId, studioType: "hair" }, {
      "Idempotency-Key": key,
    });
    assert.equal(changed.status, 422);
    assert.deepEqual(changed.body, {
      detail:
        "This Idempotency-Key was already used for a different request. Send a new key for a new generation.",
      code: "idempotency_key_reused",
    });
    for (const bad of ["x".repeat(256), "has space", "caf\u00e9"]) {
      const res = await generate(ctx, u.access_token, { photoId }, { "Idempotency-Key": bad });
      assert.equal(res.status, 422, bad);
      assert.equal(res.body.code, "invalid_idempotency_key");
    }
    assert.equal(await balance(ctx, u.user.id), 8, "only the first request was charged");
    await ctx.drain();
  },
);

apiTest(
  "generation: the heartbeat keeps a long job's short lease; a dead owner's lease lapses",
  async (ctx) => {
    const u = await ctx.register();
    const photoId = await upload(ctx, u.access_token);
    const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
    const slow = succeedingModel({ delayMs: 1_500 });
    const runner = new JobRunner({
      db: ctx.database.db,
      storage: ctx.storage,
      model: slow,
      workers: 1,
      timeoutMs: 10_000,
      leaseMs: 600, // renewed every 200 ms; the job runs 1.5 s, more than twice the lease
      claimedBy: "runner-a",
    });
    const running = runner.runOnce();
    const claimed = await waitFor("the claim", async () => {
      const row = await generationRow(ctx, generationId);
      return row.status === "processing" ? row : undefined;
    });
    assert.equal(claimed.claimedBy, "runner-a");
    const firstLease = claimed.leaseUntil!.getTime();
    await waitFor(
      "a renewed lease",
      async () => (await generationRow(ctx, generationId)).leaseUntil!.getTime() > firstLease,
    );
    // While it runs, the lease never lapses: another runner finds nothing to take.
    assert.equal(await claimNextGeneration(ctx.database.db, new Date(), 600, "runner-b"), undefined);
    assert.equal(await running, true);
    const done = await generationRow(ctx, generationId);
    assert.equal(done.status, "completed");
    assert.equal(done.attempts, 1, "never retaken");
    assert.equal(done.claimedBy, null);
  },
);

apiTest("generation: on PGlite a start requeues the crashed process's running jobs at once", async (ctx) => {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
  // The last process claimed it with a long lease and was killed.
  const claimed = await claimNextGeneration(ctx.database.db, new Date(), 10 * 60_000, "dead:1");
  assert.equal(claimed?.id, generationId);
  assert.equal(await ctx.drain(), 0, "a live lease is respected");
  assert.equal(await requeueOrphanedJobs(ctx.database.db), 1);
  const row = await generationRow(ctx, generationId);
  assert.equal(row.status, "queued");
  assert.equal(row.attempts, 1, "the crashed attempt still counts");
  assert.equal(await ctx.drain(), 1);
  assert.equal((await generationRow(ctx, generationId)).status, "completed");
}, { only: "pglite" });

apiTest(
  "generation: DELETE removes a finished generation and its files; running ones are 409",
  async (ctx) => {
    const u = await ctx.register();
    const photoId = await upload(ctx, u.access_token);
    const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
    const queued = await ctx.call("DELETE", `/api/generations/${generationId}`, { token: u.access_token });
    assert.equal(queued.status, 409);
    assert.deepEqual(queued.body, {
      detail: "This generation is still running. You can delete it once it has finished.",
      code: "generation_running",
    });
    assert.equal(await ctx.drain(), 1);
    const status = await ctx.call("GET", `/api/generation/${generationId}/status`, { token: u.access_token });
    const resultUrl: string = status.body.resultUrl;
    assert.equal((await ctx.app.request(resultUrl)).status, 200);
    const other = await ctx.register();
    const foreign = await ctx.call("DELETE", `/api/generations/${generationId}`, {
      token: other.access_token,
    });
    assert.equal(foreign.status, 404);
    assert.equal(
      (await ctx.call("DELETE", `/api/generations/not-a-uuid`, { token: u.access_token })).status,
      404,
    );
    assert.equal((await ctx.call("DELETE", `/api/generations/${generationId}`)).status, 401);

    const del = await ctx.call("DELETE", `/api/generations/${generationId}`, { token: u.access_token });
    assert.equal(del.status, 204);
    assert.equal((await ctx.app.request(resultUrl)).status, 404, "the result image is gone");
    assert.equal(await ctx.storage.get(resultUrl.slice(resultUrl.lastIndexOf("/") + 1)), null);
    const again = await ctx.call("GET", `/api/generation/${generationId}/status`, { token: u.access_token });
    assert.equal(again.status, 404);
    const history = await ctx.call("GET", "/api/generations", { token: u.access_token });
    assert.deepEqual(history.body.items, []);
    // The credit history keeps its charge row (an audit trail).
    assert.equal((await ledgerRows(ctx, generationId)).length, 1);
  },
);

/**
 * The production wiring: a started runner (polling only once a minute, far longer than a test
 * may take) woken by the app on every queued job; a signed-in user with a photo.
 */
async function wokenRunner(ctx: TestContext, model: ImageModel) {
  const runner = new JobRunner({
    db: ctx.database.db,
    storage: ctx.storage,
    model,
    workers: 1,
    timeoutMs: 5_000,
    pollMs: 60_000,
  });
  const { config, jwtSecret, storage } = ctx;
  const call = callApp(
    createApp({ db: ctx.database.db, config, jwtSecret, storage, model, onQueued: () => runner.notify() }),
  );
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const token = u.access_token;
  const post = async () => {
    const started = await call("POST", "/api/generate", {
      token,
      body: { photoId, studioType: "makeup", view360: false },
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    return started.body.generationId as string;
  };
  const status = async (id: string) =>
    (await call("GET", `/api/generation/${id}/status`, { token })).body.status as string;
  return { runner, post, status };
}

apiTest("generation: a queued job starts at once, not at the runner's next poll", async (ctx) => {
  const { runner, post, status } = await wokenRunner(ctx, ctx.model);
  runner.start();
  try {
    await waitFor("the runner's first (empty) claim", () => runner.idle);
    const id = await post();
    await waitFor("the job to complete", async () => await status(id) === "completed", {
      timeoutMs: 10_000,
      intervalMs: 10,
    });
  } finally {
    await runner.stop();
  }
});

apiTest("generation: jobs queued while the model loads start the moment it is ready", async (ctx) => {
  let ready!: () => void;
  const loading = new Promise<void>((resolve) => ready = resolve);
  let loaded = false;
  loading.then(() => loaded = true);
  const model: ImageModel = {
    ...ctx.model,
    generate: (req) => ctx.model.generate(req),
    health: () => ({ state: loaded ? "ready" : "starting" }),
    ready: () => loading,
  };
  const { runner, post, status } = await wokenRunner(ctx, model);
  runner.start();
  try {
    const id = await post();
    await waitFor("the runner to go back to sleep while the model loads", () => runner.idle);
    assert.equal(await status(id), "queued");
    ready();
    await waitFor("the job to complete", async () => await status(id) === "completed", {
      timeoutMs: 10_000,
      intervalMs: 10,
    });
  } finally {
    await runner.stop();
  }
});
