/**
 * The fal.ai FLUX Kontext adapter against a fake fal queue on 127.0.0.1
 * speaking its documented wire format: `Authorization: Key`, submit answers
 * with `status_url` / `response_url`, IN_QUEUE -> IN_PROGRESS -> COMPLETED,
 * results with `images[].url` and `has_nsfw_concepts`, 401 and 429 errors.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { ImageRequest } from "../../server/imaging/image-model.ts";
import { createFaceCounter } from "../../server/imaging/hosted/face-check.ts";
import {
  createFalProvider,
  FAL_MULTI_ENDPOINT,
  FAL_SINGLE_ENDPOINT,
} from "../../server/imaging/hosted/fal-provider.ts";
import type { HostedModel } from "../../server/imaging/hosted/hosted-model.ts";
import type { Angle } from "../../server/styling/option-keys.ts";
import { geminiPortrait } from "../helpers/fake-gemini.ts";
import { cropFace, FRONTAL_FACES, hostedRequest, rejectsWithFinal, withHostedFake } from "./fixtures.ts";

/** flaky: the first status poll answers 503 and the first result read 429 (a submitted request's reads). */
type Behaviour = "success" | "nsfw" | "rate_limit" | "bad_key" | "flaky";

interface Submitted {
  path: string;
  auth: string | null;
  body: Record<string, unknown>;
}

async function startFakeFal() {
  const apiKey = "fal-key-id:fal-key-secret-0123";
  const submitted: Submitted[] = [];
  const queue: Behaviour[] = [];
  const polls = new Map<string, number>();
  const results = new Map<string, Behaviour>();
  const reads = new Set<string>();
  const image = await geminiPortrait(13);
  const stop = new AbortController();
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const origin = url.origin;
      if (url.pathname.startsWith("/files/")) {
        return new Response(image as Uint8Array<ArrayBuffer>, { headers: { "content-type": "image/png" } });
      }
      if (req.headers.get("authorization") !== `Key ${apiKey}`) return json(401, { detail: "Unauthorized" });
      const m = /^\/fal-ai\/flux-pro\/requests\/([^/]+)(\/status)?$/.exec(url.pathname);
      if (req.method === "GET" && m) {
        const id = m[1];
        const flaky = results.get(id) === "flaky";
        if (m[2]) {
          const n = (polls.get(id) ?? 0) + 1;
          polls.set(id, n);
          if (flaky && n === 1) return json(503, { detail: "Service temporarily unavailable" });
          const status = n === 1 ? "IN_QUEUE" : n === 2 ? "IN_PROGRESS" : "COMPLETED";
          return json(200, {
            status,
            request_id: id,
            ...(status === "IN_QUEUE" ? { queue_position: 0 } : {}),
          });
        }
        const nsfw = results.get(id) === "nsfw";
        if (flaky && !reads.has(id)) {
          reads.add(id);
          return json(429, { detail: "Rate limit exceeded" }, { "retry-after": "0" });
        }
        return json(200, {
          images: [{ url: `${origin}/files/${id}.png`, width: 768, height: 1344, content_type: "image/png" }],
          timings: { inference: 4.05 },
          seed: 42,
          has_nsfw_concepts: [nsfw],
          prompt: "",
        });
      }
      if (
        req.method === "POST" &&
        (url.pathname === `/${FAL_SINGLE_ENDPOINT}` || url.pathname === `/${FAL_MULTI_ENDPOINT}`)
      ) {
        submitted.push({
          path: url.pathname,
          auth: req.headers.get("authorization"),
          body: await req.json(),
        });
        const b = queue.shift() ?? "success";
        if (b === "rate_limit") return json(429, { detail: "Rate limit exceeded" }, { "retry-after": "1" });
        const id = crypto.randomUUID();
        results.set(id, b);
        const base = `${origin}/fal-ai/flux-pro/requests/${id}`;
        return json(200, {
          status: "IN_QUEUE",
          request_id: id,
          response_url: base,
          status_url: `${base}/status`,
          cancel_url: `${base}/cancel`,
          queue_position: 0,
        });
      }
      return json(404, { detail: "Not Found" });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    apiKey,
    submitted,
    enqueue: (...b: Behaviour[]) => queue.push(...b),
    close: async () => {
      stop.abort();
      await server.finished;
    },
  };
}

const portrait = await cropFace(FRONTAL_FACES[5]);
const faces = createFaceCounter();
const opts = { sanitizeResources: false, sanitizeOps: false };
const request = (angle: Angle = "front", extra: Partial<ImageRequest> = {}) =>
  hostedRequest(portrait, "hair", { hairStyle: "pixie-cut" }, { angle, ...extra });

function withFal(
  fn: (f: Awaited<ReturnType<typeof startFakeFal>>, m: HostedModel) => Promise<void>,
  apiKey?: string,
) {
  const fal = (o: { apiKey: string; baseUrl: string }) => createFalProvider({ ...o, pollMs: 20 });
  return withHostedFake(startFakeFal, fal, faces, { apiKey }, ({ fake, model }) => fn(fake, model));
}

Deno.test({
  ...opts,
  name:
    "fal: submit, poll the status_url, read the response_url, download the image; a side view uses the multi endpoint",
  fn: () =>
    withFal(async (fake, model) => {
      const out = await model.generate(request());
      const s = fake.submitted[0];
      assert.equal(s.path, "/fal-ai/flux-pro/kontext");
      assert.equal(s.auth, `Key ${fake.apiKey}`);
      assert.equal(s.body.aspect_ratio, "9:16");
      assert.equal(s.body.num_images, 1);
      assert.equal(s.body.safety_tolerance, "2");
      assert.match(String(s.body.prompt), /Hair Style: Pixie Cut/);
      assert.match(String(s.body.image_url), /^data:image\/jpeg;base64,/);
      const meta = await sharp(out.image).metadata();
      assert.deepEqual([meta.width, meta.height], [1080, 1920]);
      await model.generate(request("left", { frontImage: out.image }));
      const side = fake.submitted[1];
      assert.equal(side.path, "/fal-ai/flux-pro/kontext/max/multi");
      assert.equal((side.body.image_urls as string[]).length, 2);
    }),
});

Deno.test({
  ...opts,
  name: "fal: has_nsfw_concepts fails at once; 429 is retried; a bad key fails and turns the model failed",
  fn: async () => {
    await withFal(async (fake, model) => {
      fake.enqueue("nsfw");
      await rejectsWithFinal(model.generate(request()), "declined");
      assert.equal(fake.submitted.length, 1);
      fake.enqueue("rate_limit");
      await model.generate(request());
      assert.equal(fake.submitted.length, 3);
    });
    await withFal(async (_fake, model) => {
      await rejectsWithFinal(model.generate(request()), "unavailable");
      assert.equal(model.health().state, "failed");
    }, "wrong:key-0123456789");
  },
});

Deno.test({
  ...opts,
  name:
    "fal: a 503 while polling and a 429 reading the result are waited out, not submitted (and billed) again",
  fn: () =>
    withFal(async (fake, model) => {
      fake.enqueue("flaky");
      const out = await model.generate(request());
      assert.equal(fake.submitted.length, 1, "one submission");
      assert.equal((await sharp(out.image).metadata()).height, 1920);
    }),
});

Deno.test({ ...opts, name: "fal: close the face detector", fn: () => faces.close() });
