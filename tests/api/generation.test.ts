/**
 * Generation jobs and the credit ledger through the real app and job runner,
 * on PGlite and Postgres, with test-only models (the real local model has
 * its own tests in tests/imaging).
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import sharp from "sharp";
import { creditLedger, generations, users } from "../../db/schema.ts";
import { claimNextGeneration } from "../../server/generation/generation.repository.ts";
import { INSUFFICIENT_CREDITS } from "../../server/generation/generation.schemas.ts";
import { JobRunner, MAX_ATTEMPTS } from "../../server/generation/job-runner.ts";
import { OPTION_KEYS } from "../../server/styling/option-keys.ts";
import { CATALOG } from "../../server/styling/catalog.ts";
import { backends } from "../helpers/backends.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { openTestContext, type TestContext } from "../helpers/test-app.ts";
import { abortable, failingModel, hangingModel, succeedingModel } from "../helpers/test-models.ts";

const photoBytes = await sharp({
  create: { width: 300, height: 400, channels: 3, background: { r: 180, g: 140, b: 120 } },
}).jpeg().toBuffer();

async function upload(ctx: TestContext, token?: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([new Uint8Array(photoBytes)], "me.jpg", { type: "image/jpeg" }));
  const res = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: form,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.photoId;
}

// A real lipstick from the catalog, sent by its label the way the old client did.
const LIPSTICK = CATALOG.makeup.lips[1];

const generate = (ctx: TestContext, token: string, body: Record<string, unknown>) =>
  ctx.call("POST", "/api/generate", { token, body: { studioType: "makeup", view360: false, ...body } });

async function balance(ctx: TestContext, userId: string): Promise<number> {
  const [u] = await ctx.database.db.select({ c: users.credits }).from(users).where(eq(users.id, userId));
  return u.c;
}

async function ledgerRows(ctx: TestContext, ref: string) {
  return await ctx.database.db.select().from(creditLedger).where(eq(creditLedger.ref, ref));
}

for (const backend of backends()) {
  Deno.test(
    { name: `[${backend.name}] generation: catalog, jobs, credits`, ignore: backend.skip },
    async (t) => {
      const model = succeedingModel();
      const ctx = await openTestContext(backend, { ADMIN_EMAILS: "admin@example.com" }, { model });
      try {
        await t.step("GET /api/styling-options: spec groups, rich lists, defaults, models", async () => {
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
        });

        const alice = await ctx.register();
        const aliceId = alice.user.id;
        let firstId = "";

        await t.step(
          "anonymous upload, then generate: 202, 2 credits charged, job runs, result served",
          async () => {
            const photoId = await upload(ctx); // anonymous
            const res = await generate(ctx, alice.access_token, {
              photoId,
              options: { lips: LIPSTICK.label, lookStyle: "no-makeup" },
              intensity: { lips: 90 },
              additionalInstructions: "  keep it subtle ",
            });
            assert.equal(res.status, 202, JSON.stringify(res.body));
            firstId = res.body.generationId;
            assert.equal(await balance(ctx, aliceId), 8);
            const queued = await ctx.call("GET", `/api/generation/${firstId}/status`, {
              token: alice.access_token,
            });
            assert.equal(queued.body.status, "queued");
            assert.equal(queued.body.resultUrl, null);
            assert.equal(await ctx.drain(), 1);
            const done = await ctx.call("GET", `/api/generation/${firstId}/status`, {
              token: alice.access_token,
            });
            assert.equal(done.body.status, "completed");
            assert.match(done.body.resultUrl, /^\/api\/uploads\/[0-9a-f]{32}\.png$/);
            assert.deepEqual(done.body.resultUrls, { front: done.body.resultUrl });
            assert.equal(done.body.error, null);
            assert.deepEqual(done.body.notes, ["rendered front"]);
            const img = await ctx.app.request(done.body.resultUrl);
            assert.equal(img.status, 200);
            assert.equal(img.headers.get("Content-Type"), "image/png");
            const meta = await sharp(new Uint8Array(await img.arrayBuffer())).metadata();
            assert.equal(meta.width, 54);
            // The model got the resolved catalog ids, defaults filled in, and the intensity.
            const call = model.calls.at(-1)!;
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

        await t.step("history: newest first, cursor pagination, owner only", async () => {
          const photoId = await upload(ctx, alice.access_token);
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
            ["created_at", "id", "options", "result_url", "status", "studio_type", "view360"],
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
          assert.equal(
            (await ctx.call("GET", "/api/generations?cursor=garbage", { token: eve.access_token })).status,
            422,
          );
          await ctx.drain();
        });

        await t.step("bad input -> clear 4xx and nothing written", async () => {
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

        await t.step("barber studio validates against the barber lists; labels accepted", async () => {
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

        await t.step("40 parallel generates with 10 credits -> exactly 5 accepted, balance 0", async () => {
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

        await t.step("admins generate for free: no charge, no ledger row", async () => {
          const admin = await ctx.register({ email: "admin@example.com" });
          const photoId = await upload(ctx, admin.access_token);
          const res = await generate(ctx, admin.access_token, { photoId });
          assert.equal(res.status, 202);
          assert.equal(await balance(ctx, admin.user.id), 10);
          assert.deepEqual(await ledgerRows(ctx, res.body.generationId), []);
          await ctx.drain();
        });

        await t.step("a worker that died mid-job: the lease expires, the job completes once", async () => {
          const u = await ctx.register();
          const photoId = await upload(ctx, u.access_token);
          const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
          // A worker claims the job and dies without finishing.
          const claimed = await claimNextGeneration(ctx.database.db, new Date(), 60_000);
          assert.equal(claimed?.id, generationId);
          assert.equal(await ctx.drain(), 0, "a live lease is respected");
          await ctx.database.db.update(generations).set({ leaseUntil: new Date(Date.now() - 1000) })
            .where(eq(generations.id, generationId));
          const callsBefore = model.calls.length;
          assert.equal(await ctx.drain(), 1);
          assert.equal(model.calls.length, callsBefore + 1);
          const [row] = await ctx.database.db.select().from(generations).where(
            eq(generations.id, generationId),
          );
          assert.equal(row.status, "completed");
          assert.equal(row.attempts, 2);
          const rows = await ledgerRows(ctx, generationId);
          assert.equal(rows.length, 1, "charged once, never refunded");
          assert.equal(await balance(ctx, u.user.id), 8);
        });

        await t.step("shutting down mid-job hands the job back at once, charged once", async () => {
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
          runner.start();
          while (slow.calls.length === 0) await new Promise((r) => setTimeout(r, 10));
          await runner.stop();
          const [row] = await ctx.database.db.select().from(generations).where(
            eq(generations.id, generationId),
          );
          assert.equal(row.status, "queued");
          assert.equal(row.leaseUntil, null);
          assert.equal(await ctx.drain(), 1, "the next runner picks it up without waiting for a lease");
          const s = await ctx.call("GET", `/api/generation/${generationId}/status`, {
            token: u.access_token,
          });
          assert.equal(s.body.status, "completed");
          assert.equal((await ledgerRows(ctx, generationId)).length, 1);
        });

        await t.step("the ledger still explains every balance", async () => {
          assert.deepEqual((await ledgerMismatches(ctx.database.db)).mismatches, []);
        });
      } finally {
        await ctx.close();
      }
    },
  );

  Deno.test(
    { name: `[${backend.name}] generation: failures refund once`, ignore: backend.skip },
    async (t) => {
      for (
        const [label, model, timeoutMs, expectedCalls, error] of [
          ["permanent failure (no face)", failingModel(false), 5_000, 1, /^No face found/],
          [
            "transient failures retried then failed",
            failingModel(true),
            5_000,
            MAX_ATTEMPTS,
            /encountered an error/,
          ],
          ["hanging model times out", hangingModel(), 150, MAX_ATTEMPTS, /encountered an error/],
        ] as const
      ) {
        await t.step(label, async () => {
          const ctx = await openTestContext(backend, {}, { model, timeoutMs });
          try {
            const u = await ctx.register();
            const photoId = await upload(ctx, u.access_token);
            const { generationId } = (await generate(ctx, u.access_token, { photoId })).body;
            assert.equal(await balance(ctx, u.user.id), 8);
            await ctx.drain();
            assert.equal(model.calls.length, expectedCalls);
            const status = await ctx.call("GET", `/api/generation/${generationId}/status`, {
              token: u.access_token,
            });
            assert.equal(status.body.status, "failed");
            assert.match(status.body.error, error);
            assert.equal(status.body.resultUrl, null);
            assert.equal(await balance(ctx, u.user.id), 10);
            const rows = await ledgerRows(ctx, generationId);
            assert.deepEqual(rows.map((r) => [r.reason, r.delta]).sort(), [
              ["generation_charge", -2],
              ["generation_refund", 2],
            ]);
            // Nothing left in storage from failed attempts.
            const files = [...Deno.readDirSync(ctx.storage.root)].flatMap((d) =>
              d.isDirectory ? [...Deno.readDirSync(`${ctx.storage.root}/${d.name}`)] : []
            );
            assert.equal(files.length, 1, "only the uploaded photo");
            assert.deepEqual((await ledgerMismatches(ctx.database.db)).mismatches, []);
          } finally {
            await ctx.close();
          }
        });
      }
    },
  );

  Deno.test({
    name: `[${backend.name}] generation: 360 angles are only what the model makes`,
    ignore: backend.skip,
  }, async (t) => {
    const ctx = await openTestContext(backend, {}, {
      model: succeedingModel({ angles: ["front", "right", "left", "back"] }),
    });
    try {
      await t.step("a four-angle model yields four distinct results", async () => {
        const u = await ctx.register();
        const photoId = await upload(ctx, u.access_token);
        const { generationId } = (await generate(ctx, u.access_token, { photoId, view360: true })).body;
        await ctx.drain();
        const s = await ctx.call("GET", `/api/generation/${generationId}/status`, { token: u.access_token });
        assert.deepEqual(Object.keys(s.body.resultUrls).sort(), ["back", "front", "left", "right"]);
        assert.equal(new Set(Object.values(s.body.resultUrls)).size, 4);
        assert.equal(await balance(ctx, u.user.id), 8, "a 360 set still costs 2 credits");
      });
    } finally {
      await ctx.close();
    }
    const front = await openTestContext(backend, {}, { model: succeedingModel({ angles: ["front"] }) });
    try {
      await t.step("a front-only model: other angles absent, not faked; a note says so", async () => {
        const u = await front.register();
        const photoId = await upload(front, u.access_token);
        const { generationId } = (await generate(front, u.access_token, { photoId, view360: true })).body;
        await front.drain();
        const s = await front.call("GET", `/api/generation/${generationId}/status`, {
          token: u.access_token,
        });
        assert.deepEqual(Object.keys(s.body.resultUrls), ["front"]);
        assert.ok(s.body.notes.some((n: string) => /renders only the front view/.test(n)));
      });
    } finally {
      await front.close();
    }
  });
}
