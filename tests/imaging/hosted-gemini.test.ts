/**
 * The Gemini adapter through the real @google/genai SDK against a fake Gemini
 * server on 127.0.0.1: the request it sends, and every documented outcome
 * (success, 429 with Retry-After, 500, safety blocks, text-only answers, a bad
 * key, a hang, an output without a face).
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { ImageRequest } from "../../server/imaging/image-model.ts";
import { CallLimits } from "../../server/imaging/hosted/call-limits.ts";
import { createFaceCounter, type FaceCounter } from "../../server/imaging/hosted/face-check.ts";
import { createGeminiProvider, DEFAULT_GEMINI_MODEL } from "../../server/imaging/hosted/gemini-provider.ts";
import { type HostedModel, NO_FACE_NOTE } from "../../server/imaging/hosted/hosted-model.ts";
import { IDENTITY_CLAUSE, SAFETY_CLAUSE } from "../../server/imaging/hosted/prompt-builder.ts";
import type { Angle, Intensity } from "../../server/styling/option-keys.ts";
import { type FakeGemini, startFakeGemini } from "../helpers/fake-gemini.ts";
import { cropFace, FRONTAL_FACES, hostedRequest, rejectsWithFinal, withHostedFake } from "./fixtures.ts";

const intensity: Intensity = {
  lookStyle: 60,
  eyeshadow: 60,
  lips: 90,
  baseMakeup: 60,
  cheeks: 60,
  extras: 60,
};
const portrait = await cropFace(FRONTAL_FACES[5]);
const faces: FaceCounter = createFaceCounter();

function withGemini(
  fn: (ctx: { fake: FakeGemini; model: HostedModel }) => Promise<void>,
  opts: {
    budgetMs?: number;
    apiKey?: string;
    perMinute?: number;
    authRecheckMs?: number;
  } = {},
) {
  return withHostedFake(startFakeGemini, createGeminiProvider, faces, opts, fn);
}

const request = (angle: Angle = "front", extra: Partial<ImageRequest> = {}) =>
  hostedRequest(portrait, "makeup", { lips: "classic-red-matte" }, { intensity, angle, ...extra });

Deno.test({
  name: "gemini: sends the documented generateContent request and frames the image 1080x1920",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      const out = await model.generate(request());
      assert.equal(fake.requests.length, 1);
      const r = fake.requests[0];
      assert.equal(r.path, `/v1beta/models/${DEFAULT_GEMINI_MODEL}:generateContent`);
      assert.equal(DEFAULT_GEMINI_MODEL, "gemini-2.5-flash-image");
      assert.equal(r.apiKey, fake.apiKey);
      assert.equal(r.body.contents.length, 1);
      assert.equal(r.body.contents[0].role, "user");
      const parts = r.body.contents[0].parts;
      assert.equal(typeof parts[0].text, "string", "the prompt comes first");
      assert.equal(r.images.length, 1, "one image: the portrait");
      assert.equal(r.images[0].mimeType, "image/jpeg");
      assert.deepEqual(
        r.images[0].bytes,
        portrait,
        "the portrait is sent as is, base64 without a data: prefix",
      );
      assert.deepEqual(r.body.generationConfig?.responseModalities, ["TEXT", "IMAGE"]);
      assert.deepEqual(r.body.generationConfig?.imageConfig, { aspectRatio: "9:16" });
      assert.ok(r.prompt.startsWith("Edit the portrait photo"));
      assert.ok(r.prompt.includes(IDENTITY_CLAUSE));
      assert.ok(r.prompt.includes(SAFETY_CLAUSE));
      assert.match(
        r.prompt,
        /Lips: Classic Red \(Matte\) \(colour #B22234\), applied at a bold, full intensity \(90\/100\)/,
      );
      assert.match(r.prompt, /aspect ratio 9:16/);
      assert.equal(out.mime, "image/jpeg");
      const meta = await sharp(out.image).metadata();
      assert.equal(meta.width, 1080);
      assert.equal(meta.height, 1920);
      assert.equal(out.prompt, r.prompt, "the prompt sent is returned for storage");
      assert.equal((await faces.count(out.image)).faces >= 1, true, "the framed result still shows the face");
      assert.equal(model.health().state, "ready");
      assert.ok(model.health().lastCallAt);
      await Deno.mkdir("test-results/hosted", { recursive: true });
      await Deno.writeFile("test-results/hosted/gemini-front.jpg", out.image);
    }),
});

Deno.test({
  name:
    "gemini: a side view is conditioned on the portrait and the generated front; references fill the 3-image limit",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      const front = await cropFace(FRONTAL_FACES[6]);
      const refs = [
        await cropFace(FRONTAL_FACES[0]),
        await cropFace(FRONTAL_FACES[1]),
        await cropFace(FRONTAL_FACES[2]),
      ];
      const out = await model.generate(request("right", { frontImage: front, references: refs }));
      const r = fake.requests[0];
      assert.equal(
        r.images.length,
        3,
        "gemini-2.5-flash-image takes 3 images: portrait, front view, one reference",
      );
      assert.deepEqual(r.images[0].bytes, portrait);
      assert.deepEqual(r.images[1].bytes, front);
      assert.deepEqual(r.images[2].bytes, refs[0]);
      assert.match(r.prompt, /Image 2 is the finished front view of this look/);
      assert.match(r.prompt, /Image 3 is a product reference/);
      assert.match(r.prompt, /right side view/);
      assert.deepEqual(out.notes, [
        "Only 1 of your 3 reference photos could be sent to the gemini model (it takes 3 images per request).",
      ]);
    }),
});

Deno.test({
  name: "gemini: 429 with Retry-After is retried after the time it asks for, then succeeds",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      fake.enqueue({ kind: "rate_limit", retryAfterSeconds: 1 });
      const t0 = Date.now();
      const out = await model.generate(request());
      assert.ok(Date.now() - t0 >= 1000, "waited the Retry-After");
      assert.equal(fake.requests.length, 2);
      assert.equal((await sharp(out.image).metadata()).height, 1920);
      assert.equal(model.health().state, "ready");
    }),
});

Deno.test({
  name: "gemini: 429 with RetryInfo.retryDelay (no header) waits that long; 500 and 503 are retried",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      fake.enqueue({ kind: "rate_limit", retryDelay: "1s" }, "server_error", "unavailable");
      const t0 = Date.now();
      await model.generate(request());
      assert.ok(Date.now() - t0 >= 1000);
      assert.equal(fake.requests.length, 4);
    }),
});

Deno.test({
  name: "gemini: a provider busy past the time budget fails with the busy message; health degraded",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      fake.setDefault({ kind: "rate_limit", retryAfterSeconds: 1 });
      const t0 = Date.now();
      await rejectsWithFinal(model.generate(request()), "busy");
      assert.ok(Date.now() - t0 < 3500, "gives up within the budget");
      assert.ok(fake.requests.length >= 2);
      assert.equal(model.health().state, "degraded");
    }, { budgetMs: 3000 }),
});

for (
  const [behaviour, message] of [
    ["prompt_blocked", "declined"],
    ["output_blocked", "declined"],
  ] as const
) {
  Deno.test({
    name: `gemini: ${behaviour} (HTTP 200) fails at once, not retried`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () =>
      withGemini(async ({ fake, model }) => {
        fake.enqueue(behaviour);
        await rejectsWithFinal(model.generate(request()), message);
        assert.equal(fake.requests.length, 1, "never retried (it would be declined and billed again)");
        assert.equal(model.health().state, "ready", "the provider works; it declined this request");
      }),
  });
}

for (const behaviour of ["text_only", "no_image_finish"] as const) {
  Deno.test({
    name: `gemini: ${behaviour} (HTTP 200) is asked once more: it draws, or the user is told`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () =>
      withGemini(async ({ fake, model }) => {
        fake.enqueue(behaviour);
        const out = await model.generate(request());
        assert.equal(fake.requests.length, 2, "the second call drew");
        assert.equal((await sharp(out.image).metadata()).height, 1920);
        fake.enqueue(behaviour, behaviour);
        await rejectsWithFinal(model.generate(request()), "noImage");
        assert.equal(fake.requests.length, 4, "one more call, not more");
        assert.equal(model.health().state, "ready", "the provider works; it drew nothing for this request");
      }),
  });
}

Deno.test({
  name:
    "gemini: an invalid key fails at once and turns the model failed; after a while the key is tried again",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      await rejectsWithFinal(model.generate(request()), "unavailable");
      assert.equal(fake.requests.length, 1);
      assert.equal(fake.requests[0].apiKey, "wrong-key");
      const h = model.health();
      assert.equal(h.state, "failed");
      // The public health names the kind and code, never the provider's own words.
      assert.match(h.detail ?? "", /^gemini: auth \(HTTP \d{3} API_KEY_INVALID\)$/);
      // After the recheck time the next generation tries the key again (the provider may have recovered).
      const until = Date.now() + 5_000;
      while (model.health().state === "failed" && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(model.health().state, "degraded");
      assert.match(model.health().detail ?? "", /the next generation tries the key again/);
      await rejectsWithFinal(model.generate(request()), "unavailable");
      assert.equal(fake.requests.length, 2);
      assert.equal(model.health().state, "failed");
    }, { apiKey: "wrong-key", authRecheckMs: 150 }),
});

Deno.test({
  name: "gemini: a request that hangs is abandoned within the budget",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      fake.setDefault("hang");
      const t0 = Date.now();
      await rejectsWithFinal(model.generate(request()), "busy");
      const took = Date.now() - t0;
      assert.ok(took >= 2500 && took < 5000, `took ${took} ms`);
    }, { budgetMs: 3000 }),
});

Deno.test({
  name:
    "gemini: a faceless front is asked for once more, then kept with a note; any size is framed; an unreadable image is refused",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      fake.enqueue("no_face");
      const again = await model.generate(request());
      assert.equal(fake.requests.length, 2, "one retry after the faceless output");
      assert.deepEqual(again.notes, []);
      // Twice without a face: the providers promise nothing about what they draw; it is kept, and said.
      fake.enqueue("no_face", "no_face");
      const kept = await model.generate(request());
      assert.equal(fake.requests.length, 4);
      assert.deepEqual(kept.notes, [NO_FACE_NOTE]);
      // A 48x84 image (a placeholder, a thumbnail) is fitted into the 9:16 frame, not refused.
      fake.enqueue("tiny");
      const small = await model.generate(request());
      assert.equal(fake.requests.length, 5);
      const meta = await sharp(small.image).metadata();
      assert.deepEqual([meta.width, meta.height], [1080, 1920]);
      // Bytes that are no image: asked once more, then refused (refunded).
      fake.enqueue("garbage", "garbage");
      await rejectsWithFinal(model.generate(request()), "badOutput");
      assert.equal(fake.requests.length, 7);
      // Image data that is not base64 is an answer without an image: asked once more, then refused.
      fake.enqueue("bad_base64", "bad_base64");
      await rejectsWithFinal(model.generate(request()), "noImage");
      assert.equal(fake.requests.length, 9);
      // The part spelled as the REST request examples spell it is read too.
      fake.enqueue("snake_case");
      const snake = await model.generate(request());
      assert.equal((await sharp(snake.image).metadata()).height, 1920);
    }),
});

Deno.test({
  name: "gemini: the calls-per-minute budget holds a burst back and refuses what cannot start in time",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withGemini(async ({ fake, model }) => {
      await model.generate(request());
      await model.generate(request());
      await rejectsWithFinal(model.generate(request()), "busy");
      assert.equal(fake.requests.length, 2, "the third call never reached the provider");
    }, { perMinute: 2, budgetMs: 4000 }),
});

Deno.test({
  name: "hosted limits: at most N calls in flight",
  fn: async () => {
    const limits = new CallLimits(2, 100);
    const deadline = Date.now() + 5000;
    const a = await limits.acquire(deadline);
    const b = await limits.acquire(deadline);
    let third = false;
    const c = limits.acquire(deadline).then((release) => {
      third = true;
      return release;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(third, false, "the third waits");
    assert.equal(limits.active, 2);
    a();
    (await c)();
    assert.equal(third, true);
    b();
    assert.equal(limits.active, 0);
  },
});

Deno.test({
  name: "gemini: close the face detector",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => faces.close(),
});
