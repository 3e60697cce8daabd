/**
 * The OpenAI adapter through the real openai SDK against a fake OpenAI server
 * on 127.0.0.1: the multipart images.edit request, framing of the 1024x1536
 * answer into 1080x1920 without distortion, and the documented failures.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { ImageRequest } from "../../server/imaging/image-model.ts";
import { createFaceCounter } from "../../server/imaging/hosted/face-check.ts";
import type { HostedModel } from "../../server/imaging/hosted/hosted-model.ts";
import {
  createOpenAiProvider,
  durationMs,
  openAiBaseUrl,
} from "../../server/imaging/hosted/openai-provider.ts";
import { IDENTITY_CLAUSE } from "../../server/imaging/hosted/prompt-builder.ts";
import type { Angle } from "../../server/styling/option-keys.ts";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai.ts";
import {
  cropFace,
  FRONTAL_FACES,
  hostedRequest,
  rejectsWithFinal,
  testHostedModel,
  withHostedFake,
} from "./fixtures.ts";

const portrait = await cropFace(FRONTAL_FACES[5]);
const faces = createFaceCounter();

function withOpenAi(
  fn: (ctx: { fake: FakeOpenAi; model: HostedModel }) => Promise<void>,
  opts: { budgetMs?: number; apiKey?: string; imageModel?: string } = {},
) {
  const provider = (o: { apiKey: string; baseUrl: string }) =>
    createOpenAiProvider({ ...o, model: opts.imageModel });
  return withHostedFake(startFakeOpenAi, provider, faces, opts, fn);
}

const request = (angle: Angle = "front", extra: Partial<ImageRequest> = {}) =>
  hostedRequest(portrait, "barber", { facialHair: "full-beard", outfit: "leather-jacket" }, {
    angle,
    ...extra,
  });

const opts = { sanitizeResources: false, sanitizeOps: false };

Deno.test({
  ...opts,
  name: "openai: images.edit multipart with model, image[], prompt and size 1024x1536; framed into 1080x1920",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      const ref = await cropFace(FRONTAL_FACES[0]);
      const out = await model.generate(request("front", { references: [ref] }));
      assert.equal(fake.requests.length, 1);
      const r = fake.requests[0];
      assert.equal(r.path, "/v1/images/edits");
      assert.equal(r.authorization, `Bearer ${fake.apiKey}`);
      assert.match(r.contentType ?? "", /^multipart\/form-data; boundary=/);
      assert.equal(r.fields.model, "gpt-image-1.5");
      assert.equal(r.fields.size, "1024x1536");
      assert.equal(r.fields.n, "1");
      assert.equal(r.fields.input_fidelity, "high");
      assert.ok(r.fields.prompt.includes(IDENTITY_CLAUSE));
      assert.match(r.fields.prompt, /Facial Hair: Full Beard\./);
      assert.match(r.fields.prompt, /Outfit: Leather Jacket\./);
      assert.match(r.fields.prompt, /Image 2 is a product reference/);
      assert.deepEqual(r.images.map((i) => i.field), ["image[]", "image[]"], "repeated image[] parts");
      assert.deepEqual(r.images[0].bytes, portrait);
      assert.equal(r.images[0].type, "image/jpeg");
      assert.deepEqual(r.images[1].bytes, ref);
      // The portrait alone goes as the single `image` field.
      await model.generate(request());
      assert.deepEqual(fake.requests[1].images.map((i) => [i.field, i.bytes.length]), [[
        "image",
        portrait.length,
      ]]);
      const meta = await sharp(out.image).metadata();
      assert.equal(meta.width, 1080);
      assert.equal(meta.height, 1920);
      // 1024x1536 fits whole as 1080x1620 (scaled 1.0547 both ways): the middle rows are the answer, undistorted.
      const stats = await sharp(out.image).extract({ left: 0, top: 0, width: 1080, height: 140 }).stats();
      const mid = await sharp(out.image).extract({ left: 0, top: 900, width: 1080, height: 140 }).stats();
      assert.ok(
        stats.channels[0].mean < mid.channels[0].mean + 40,
        "the bands are a darkened blur, not stretched",
      );
      await Deno.mkdir("test-results/hosted", { recursive: true });
      await Deno.writeFile("test-results/hosted/openai-front.jpg", out.image);
    }),
});

Deno.test({
  ...opts,
  name: "openai: OPENAI_IMAGE_MODEL is sent; 429 with retry-after and 500 are retried",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      fake.enqueue({ kind: "rate_limit", retryAfterSeconds: 1 }, "server_error");
      const t0 = Date.now();
      await model.generate(request());
      assert.ok(Date.now() - t0 >= 1000);
      assert.equal(fake.requests.length, 3);
    }),
});

Deno.test({
  ...opts,
  name: "openai: moderation_blocked fails at once with the declined message",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      fake.enqueue("moderation_blocked");
      await rejectsWithFinal(model.generate(request()), "declined");
      assert.equal(fake.requests.length, 1);
    }),
});

Deno.test({
  ...opts,
  name: "openai: the older content_policy_violation refusal is declined too, not a broken model",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      fake.enqueue("content_policy_violation");
      await rejectsWithFinal(model.generate(request()), "declined");
      assert.equal(fake.requests.length, 1);
      assert.equal(model.health().state, "ready");
    }),
});

Deno.test({
  ...opts,
  name: "openai: GPT Image 2 is sent without input_fidelity, which its API says to leave out",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      await model.generate(request());
      assert.equal(fake.requests[0].fields.model, "gpt-image-2");
      assert.equal("input_fidelity" in fake.requests[0].fields, false);
    }, { imageModel: "gpt-image-2" }),
});

Deno.test({
  ...opts,
  name: "openai: an answer without image data is asked once more, then fails",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      fake.enqueue("empty_data", "empty_data");
      await rejectsWithFinal(model.generate(request()), "noImage");
      assert.equal(fake.requests.length, 2, "asked once more, then refused");
    }),
});

Deno.test({
  ...opts,
  name: "openai: 401 fails at once and turns the model failed",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      await rejectsWithFinal(model.generate(request()), "unavailable");
      assert.equal(fake.requests.length, 1);
      assert.equal(model.health().state, "failed");
    }, { apiKey: "sk-wrong-key-0123456789" }),
});

Deno.test({
  ...opts,
  name: "openai: a hang is abandoned within the budget",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      fake.enqueue("hang", "hang", "hang");
      const t0 = Date.now();
      await rejectsWithFinal(model.generate(request()), "busy");
      assert.ok(Date.now() - t0 < 5000);
    }, { budgetMs: 3000 }),
});

Deno.test({
  ...opts,
  name: "openai: a 429 without Retry-After waits until the spent limit resets (x-ratelimit-reset-requests)",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      fake.enqueue({ kind: "rate_limit", resetRequests: "1.2s" });
      const t0 = Date.now();
      await model.generate(request());
      const took = Date.now() - t0;
      assert.equal(fake.requests.length, 2);
      // The test model's own backoff is 100 ms: only the header explains a wait this long (and not the
      // tokens' 6 minutes, which are not spent).
      assert.ok(took >= 1200 && took < 4000, `took ${took} ms`);
    }),
});

Deno.test({
  ...opts,
  name: "openai: a quota named only by its type (insufficient_quota, code null) fails at once, not retried",
  fn: () =>
    withOpenAi(async ({ fake, model }) => {
      fake.enqueue("quota_by_type");
      await rejectsWithFinal(model.generate(request()), "unavailable");
      assert.equal(fake.requests.length, 1);
      assert.equal(model.health().state, "degraded");
      assert.equal(model.health().detail, "openai: config (HTTP 429 insufficient_quota)");
    }),
});

Deno.test({
  ...opts,
  name: "openai: OPENAI_BASE_URL given as an origin alone reaches /v1/images/edits",
  fn: async () => {
    const fake = await startFakeOpenAi();
    try {
      const origin = new URL(fake.url).origin;
      assert.equal(openAiBaseUrl(origin), `${origin}/v1`);
      assert.equal(openAiBaseUrl(`${origin}/`), `${origin}/v1`);
      assert.equal(openAiBaseUrl(`${origin}/v1/`), `${origin}/v1`);
      assert.equal(openAiBaseUrl("https://proxy.example/openai/v1"), "https://proxy.example/openai/v1");
      const model = testHostedModel(createOpenAiProvider({ apiKey: fake.apiKey, baseUrl: origin }), faces);
      await model.ready?.();
      await model.generate(request());
      assert.deepEqual(fake.requests.map((r) => r.path), ["/v1/images/edits"]);
    } finally {
      await fake.close();
    }
  },
});

Deno.test("openai: x-ratelimit-reset durations", () => {
  assert.equal(durationMs("1s"), 1000);
  assert.equal(durationMs("12ms"), 12);
  assert.equal(durationMs("6m0s"), 360_000);
  assert.equal(durationMs("1h2m3.5s"), 3_723_500);
  assert.equal(durationMs("soon"), undefined);
  assert.equal(durationMs(null), undefined);
});

Deno.test({ ...opts, name: "openai: close the face detector", fn: () => faces.close() });
