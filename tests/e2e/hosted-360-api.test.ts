/**
 * A 360° set end to end with IMAGE_MODEL=gemini against the fake Gemini
 * server: the real app, the real job runner, the real @google/genai SDK, on
 * PGlite and Postgres. Four angles stored as they complete (front first, the
 * others conditioned on the portrait and the generated front), a partial set
 * when one angle keeps failing, the refund rule, and styling-options saying
 * the hosted model honours every option.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { creditLedger, generations, users } from "../../db/schema.ts";
import { partialSetNote } from "../../server/generation/job-runner.ts";
import { CallLimits } from "../../server/imaging/hosted/call-limits.ts";
import { createFaceCounter } from "../../server/imaging/hosted/face-check.ts";
import { createGeminiProvider } from "../../server/imaging/hosted/gemini-provider.ts";
import { createHostedModel, DECLINED_MESSAGE } from "../../server/imaging/hosted/hosted-model.ts";
import { CATALOG } from "../../server/styling/catalog.ts";
import { backends } from "../helpers/backends.ts";
import { type FakeGemini, startFakeGemini } from "../helpers/fake-gemini.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { openTestContext, type TestContext } from "../helpers/test-app.ts";
import { cropFace, FRONTAL_FACES } from "../imaging/fixtures.ts";

const portrait = await cropFace(FRONTAL_FACES[5]);
let ip = 0;

async function upload(ctx: TestContext, token: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([portrait as Uint8Array<ArrayBuffer>], "me.jpg", { type: "image/jpeg" }));
  const res = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: form,
    headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": `10.9.0.${++ip}` },
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.photoId;
}

/** A new account uploads the portrait and asks for `request`: the account and the generation id. */
async function generateAsNewUser(ctx: TestContext, request: Record<string, unknown>) {
  const u = await ctx.register();
  const photoId = await upload(ctx, u.access_token);
  const gen = await ctx.call("POST", "/api/generate", {
    token: u.access_token,
    body: { photoId, ...request },
  });
  assert.equal(gen.status, 202, JSON.stringify(gen.body));
  return { u, id: gen.body.generationId as string };
}

const RED_LIPS_360 = { studioType: "makeup", view360: true, options: { lips: "classic-red-matte" } };

/**
 * A new account's generation of `request`, run to its end while the fake answers `answers` in
 * turn: the account, the generation id, its status as the owner reads it, and the provider calls.
 */
async function generateThrough(
  ctx: TestContext,
  fake: FakeGemini,
  request: Record<string, unknown>,
  ...answers: Parameters<FakeGemini["enqueue"]>
) {
  const { u, id } = await generateAsNewUser(ctx, request);
  const before = fake.requests.length;
  fake.enqueue(...answers);
  await ctx.drain();
  const s = (await ctx.call("GET", `/api/generation/${id}/status`, { token: u.access_token })).body;
  return { u, id, s, calls: fake.requests.length - before };
}

async function balance(ctx: TestContext, userId: string): Promise<number> {
  const [u] = await ctx.database.db.select({ c: users.credits }).from(users).where(eq(users.id, userId));
  return u.c;
}

async function fetchImage(ctx: TestContext, url: string): Promise<Uint8Array> {
  const res = await ctx.app.request(url);
  assert.equal(res.status, 200, url);
  return new Uint8Array(await res.arrayBuffer());
}

for (const backend of backends()) {
  Deno.test({
    name: `[${backend.name}] hosted 360: four angles against the fake Gemini, partial sets, refunds`,
    ignore: backend.skip,
    sanitizeResources: false,
    sanitizeOps: false,
  }, async (t) => {
    const fake = await startFakeGemini();
    const faces = createFaceCounter();
    const model = createHostedModel({
      provider: createGeminiProvider({ apiKey: fake.apiKey, baseUrl: fake.url }),
      faces,
      limits: new CallLimits(4, 1000),
      budgetMs: 20_000,
      backoffBaseMs: 50,
    });
    await model.ready!(); // the runner waits while the output face check loads (health `starting`)
    const ctx = await openTestContext(backend, {
      IMAGE_MODEL: "gemini",
      GEMINI_API_KEY: fake.apiKey,
      GEMINI_BASE_URL: fake.url,
      TRUST_PROXY: "true",
      AUTH_RATE_LIMIT_PER_MINUTE: "10000",
    }, { model, timeoutMs: 25_000 });
    try {
      await t.step(
        "styling-options: the hosted model honours every catalogue option and all angles",
        async () => {
          const res = await ctx.call("GET", "/api/styling-options");
          const m = res.body.models;
          assert.equal(m.active, "gemini");
          assert.deepEqual(m.angles, ["front", "right", "left", "back"]);
          assert.deepEqual(m.unavailable, {});
          for (const e of CATALOG.barber.facialHair) assert.ok(m.supported.facialHair.includes(e.id));
          for (const e of CATALOG.scene.outfits) assert.ok(m.supported.outfit.includes(e.id));
          for (const e of CATALOG.hair.styles) assert.ok(m.supported.hairStyle.includes(e.id));
        },
      );

      await t.step(
        "a 360 set: front first, then right, left, back, each stored as it completes",
        async () => {
          const u = await ctx.register();
          const photoId = await upload(ctx, u.access_token);
          const gen = await ctx.call("POST", "/api/generate", {
            token: u.access_token,
            body: {
              photoId,
              studioType: "barber",
              view360: true,
              options: { facialHair: "full-beard", outfit: "leather-jacket" },
              additionalInstructions: "A confident look",
            },
          });
          assert.equal(gen.status, 202, JSON.stringify(gen.body));
          const id = gen.body.generationId;
          assert.equal(await balance(ctx, u.user.id), 8);
          fake.setDelay(400);
          const before = fake.requests.length;
          const run = ctx.runner.runOnce();
          // Poll the status call like the client does: the angles appear one by one while processing.
          const seen: string[] = [];
          let status;
          for (let i = 0; i < 600; i++) {
            status = (await ctx.call("GET", `/api/generation/${id}/status`, { token: u.access_token })).body;
            const ready = Object.keys(status.resultUrls).sort().join(",");
            if (seen.at(-1) !== ready) seen.push(ready);
            if (status.status === "completed" || status.status === "failed") break;
            await new Promise((r) => setTimeout(r, 40));
          }
          await run;
          fake.setDelay(0);
          assert.equal(status.status, "completed", JSON.stringify(status));
          // (keys sorted: jsonb does not keep insertion order)
          assert.deepEqual(seen.filter(Boolean), [
            "front",
            "front,right",
            "front,left,right",
            "back,front,left,right",
          ]);
          const urls = status.resultUrls;
          assert.equal(new Set(Object.values(urls)).size, 4, "four distinct images, no copies");
          assert.equal(status.resultUrl, urls.front);
          const sent = fake.requests.slice(before);
          assert.equal(sent.length, 4);
          assert.match(sent[0].prompt, /View: the front view/);
          assert.equal(sent[0].images.length, 1);
          const front = await fetchImage(ctx, urls.front);
          for (
            const [i, words] of [[1, /right side view/], [2, /left side view/], [3, /back view/]] as const
          ) {
            assert.match(sent[i].prompt, words);
            assert.equal(sent[i].images.length, 2, "the portrait and the generated front");
            assert.deepEqual(sent[i].images[1].bytes, front, "conditioned on the stored front image");
          }
          for (const angle of ["front", "right", "left", "back"]) {
            const img = await fetchImage(ctx, urls[angle]);
            const meta = await sharp(img).metadata();
            assert.deepEqual([meta.width, meta.height], [1080, 1920]);
            await Deno.mkdir("test-results/hosted", { recursive: true });
            await Deno.writeFile(`test-results/hosted/360-${angle}.jpg`, img);
          }
          const [row] = await ctx.database.db.select().from(generations).where(eq(generations.id, id));
          assert.equal(row.model, "gemini");
          assert.equal(row.prompt, sent[0].prompt, "the front prompt is stored with the generation");
          assert.match(row.prompt!, /Facial Hair: Full Beard/);
          assert.match(row.prompt!, /"""A confident look"""/);
          assert.equal(await balance(ctx, u.user.id), 8, "a 360 set costs the same 2 credits");
          // The owner sees what the model was asked in their data export.
          const data = await ctx.call("GET", "/api/users/data-export", { token: u.access_token });
          assert.equal(data.status, 200);
          const exported = data.body.generations.find((g: { id: string }) => g.id === id);
          assert.equal(exported.model, "gemini");
          assert.equal(exported.prompt, row.prompt);
        },
      );

      await t.step(
        "one angle declined: not asked again (declined and billed again), the set is partial, the front kept, no copy",
        async () => {
          // front ok; right declined (a refusal is final: no second call); left and back ok.
          const answers = ["success", "output_blocked", "success", "success"] as const;
          const { u, id, s, calls } = await generateThrough(ctx, fake, RED_LIPS_360, ...answers);
          assert.equal(calls, 4);
          assert.equal(s.status, "completed");
          assert.deepEqual(Object.keys(s.resultUrls).sort(), ["back", "front", "left"]);
          assert.ok(s.notes.includes(partialSetNote(["right"])), JSON.stringify(s.notes));
          assert.equal(
            partialSetNote(["right"]),
            "The 360° set is partial: the right view could not be generated and is missing. The other views are complete.",
          );
          // The refund rule: a 360 set costs the 2 credits of one generation, which the front earns.
          const ledger = await ctx.database.db.select().from(creditLedger).where(eq(creditLedger.ref, id));
          assert.deepEqual(ledger.map((r) => [r.reason, r.delta]), [["generation_charge", -2]]);
          assert.equal(await balance(ctx, u.user.id), 8);
        },
      );

      await t.step(
        "the front declined: failed at once with the declined message, refunded, nothing stored",
        async () => {
          const { u, s, calls } = await generateThrough(ctx, fake, RED_LIPS_360, "prompt_blocked");
          assert.equal(calls, 1, "not retried, no other angle attempted");
          assert.equal(s.status, "failed");
          assert.equal(s.error, DECLINED_MESSAGE);
          assert.deepEqual(s.resultUrls, {});
          assert.equal(await balance(ctx, u.user.id), 10, "refunded");
        },
      );

      await t.step("a 429 storm on the front: retried honouring Retry-After, then completed", async () => {
        const { u, id } = await generateAsNewUser(ctx, {
          studioType: "hair",
          options: { hairStyle: "pixie-cut" },
        });
        fake.enqueue({ kind: "rate_limit", retryAfterSeconds: 1 }, "server_error");
        const t0 = Date.now();
        await ctx.drain();
        assert.ok(Date.now() - t0 >= 1000);
        const s = (await ctx.call("GET", `/api/generation/${id}/status`, { token: u.access_token })).body;
        assert.equal(s.status, "completed");
        assert.deepEqual(Object.keys(s.resultUrls), ["front"]);
      });

      await t.step("the ledger explains every balance", async () => {
        assert.deepEqual((await ledgerMismatches(ctx.database.db)).mismatches, []);
      });
    } finally {
      await ctx.close();
      await faces.close();
      await fake.close();
    }
  });
}
