/**
 * Test-only data: real photos shipped by the npm package @vladmandic/face-api
 * (demo/sample*.jpg, MIT), read from node_modules and cropped at test time.
 * No crops of these people are written to the repository.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { deltaE, type Lab, srgbToLab } from "../../server/imaging/local/color.ts";
import type { Point } from "../../server/imaging/local/masks.ts";
import { createMask, feather, fillPolygon } from "../../server/imaging/local/masks.ts";
import { defaultOptions } from "../../server/styling/catalog.ts";
import type { Intensity, SelectedOptions, StudioType } from "../../server/styling/option-keys.ts";
import { CallLimits } from "../../server/imaging/hosted/call-limits.ts";
import type { FaceCounter } from "../../server/imaging/hosted/face-check.ts";
import { createHostedModel, type HostedModel } from "../../server/imaging/hosted/hosted-model.ts";
import type { ImageProvider } from "../../server/imaging/hosted/provider.ts";
import { type ImageRequest, ModelError } from "../../server/imaging/image-model.ts";
import { PhotoCache, render, type RenderJob, type RenderOutput } from "../../server/imaging/local/render.ts";
import type { FaceEngine, FaceModels } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { FACE_OVAL, LIPS_OUTER } from "../../server/imaging/local/landmarks.ts";

const DEMO = new URL("../../node_modules/@vladmandic/face-api/demo/", import.meta.url);

export function samplePath(n: number): string {
  return fileURLToPath(new URL(`sample${n}.jpg`, DEMO));
}

/** Frontal faces in the demo photos: [sample, x, y, size] (from a detection run). */
export const FRONTAL_FACES: [number, number, number, number][] = [
  [1, 334, 316, 352],
  [1, 1438, 205, 279],
  [1, 773, 386, 327],
  [2, 1370, 112, 347],
  [2, 805, 188, 353],
  [3, 515, 295, 361],
  [3, 1005, 187, 367],
  [3, 1372, 244, 409],
  [4, 1216, 134, 305],
  [4, 908, 149, 330],
  [5, 727, 93, 272],
  [5, 1045, 171, 319],
  [5, 1319, 342, 395],
  [6, 1081, 280, 368],
  [6, 1402, 236, 377],
  [6, 587, 300, 384],
];
/** An open-mouth (teeth showing) smile. */
export const OPEN_MOUTH: [number, number, number, number] = [3, 1005, 187, 367];
/** Dark hair. */
export const DARK_HAIR: [number, number, number, number] = [6, 1081, 280, 368];

/** The rectangle of the demo photo that cropFace cuts out. */
export async function cropRect(
  face: [number, number, number, number],
  aspect = 0.75,
  span = 2.2,
): Promise<{ left: number; top: number; width: number; height: number }> {
  const [n, x, y, s] = face;
  const meta = await sharp(samplePath(n)).metadata();
  let h = Math.round(s * span), w = Math.round(h * aspect);
  if (w > meta.width!) w = meta.width!;
  if (h > meta.height!) h = meta.height!;
  const cx = x + s / 2, cy = y + s / 2;
  const left = Math.round(Math.min(meta.width! - w, Math.max(0, cx - w / 2)));
  const top = Math.round(Math.min(meta.height! - h, Math.max(0, cy - h * 0.42)));
  return { left, top, width: w, height: h };
}

/** A copy of a photo about 1.7 stops darker (sRGB values x 0.58), for the exposure tests. */
export async function darkerCopy(photo: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await sharp(photo).linear(0.58, 0).jpeg({ quality: 92 }).toBuffer());
}

/** Each engine's kept photos (an engine's faces are its own: a stub engine must not reuse a real one's). */
const keptPhotos = new WeakMap<FaceModels, PhotoCache>();

/**
 * `job` rendered as a worker renders a photo it has styled before: the photo's decode, faces, framings and
 * masks kept between renders (by the photo's bytes), as the studio keeps them while a user tries looks.
 * photo-cache.test.ts holds that a kept photo renders byte for byte as a fresh one, so tests that measure
 * a result, not the first render's work, use this: a render of a kept photo takes ~40 ms instead of ~450.
 */
export async function renderKept(engine: FaceModels, job: RenderJob): Promise<RenderOutput> {
  let photos = keptPhotos.get(engine);
  if (!photos) keptPhotos.set(engine, photos = new PhotoCache(4));
  const key = createHash("sha1").update(job.photo).digest("hex");
  return await render(engine, { ...job, cacheKey: key }, photos);
}

/**
 * A photo rendered plain and with `changes` (at `intensity`, in `studio`), both decoded: the exposure tests
 * compare what a look changes on a photo and on its darker copies.
 */
export async function plainAndStyled(
  engine: FaceEngine,
  photo: Uint8Array,
  changes: Partial<SelectedOptions>,
  intensity: Intensity = FULL_INTENSITY,
  studio: StudioType = "makeup",
): Promise<{ plain: Decoded; out: Decoded }> {
  const plain = await decode((await renderKept(engine, job(photo, {}, FULL_INTENSITY, studio))).image);
  return {
    plain,
    out: await decode((await renderKept(engine, job(photo, changes, intensity, studio))).image),
  };
}

/**
 * A copy of a photo as if shot in a dim, warm light (for the exposure tests): sRGB values x 0.62 / 0.5 / 0.36
 * per channel, then gamma 2.2 -> 2.0.
 */
export async function dimWarmCopy(photo: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp(photo).linear([0.62, 0.5, 0.36], [0, 0, 0]).gamma(2.2, 2.0).jpeg({ quality: 90 }).toBuffer(),
  );
}

/** Crops a face with margins; `aspect` = width / height of the crop. */
export async function cropFace(
  face: [number, number, number, number],
  aspect = 0.75,
  span = 2.2,
): Promise<Uint8Array> {
  const rect = await cropRect(face, aspect, span);
  const buf = await sharp(samplePath(face[0])).extract(rect).jpeg({ quality: 95 }).toBuffer();
  return new Uint8Array(buf);
}

/** A landscape without people: a rendered sky/hill gradient with noise. */
export async function landscape(): Promise<Uint8Array> {
  const w = 1200, h = 800;
  const data = new Uint8Array(w * h * 3);
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const hill = h * 0.55 + Math.sin(x / 130) * 40 + Math.sin(x / 37) * 12;
      const i = (y * w + x) * 3, n = (rnd() - 0.5) * 30;
      if (y < hill) {
        const t = y / hill;
        data[i] = 90 + 100 * t + n;
        data[i + 1] = 140 + 80 * t + n;
        data[i + 2] = 230 - 20 * t + n;
      } else {
        data[i] = 50 + n;
        data[i + 1] = 110 + 30 * Math.sin(x / 20) + n;
        data[i + 2] = 40 + n;
      }
    }
  }
  const buf = await sharp(data, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 90 })
    .toBuffer();
  return new Uint8Array(buf);
}

export const FULL_INTENSITY: Intensity = {
  lookStyle: 100,
  eyeshadow: 100,
  lips: 100,
  baseMakeup: 100,
  cheeks: 100,
  extras: 100,
};

/** Every makeup intensity at 0: the look is chosen but nothing may be painted. */
export const ZERO_INTENSITY: Intensity = {
  lookStyle: 0,
  eyeshadow: 0,
  lips: 0,
  baseMakeup: 0,
  cheeks: 0,
  extras: 0,
};

/**
 * A hosted model over `provider` as these tests run it: 4 calls at once, 100
 * a minute unless `perMinute` says otherwise, a 15 s budget per job and a
 * 100 ms backoff base, so retries finish quickly.
 */
export function testHostedModel(
  provider: ImageProvider,
  faces: FaceCounter,
  opts: { budgetMs?: number; perMinute?: number; authRecheckMs?: number } = {},
): ReturnType<typeof createHostedModel> {
  return createHostedModel({
    provider,
    faces,
    limits: new CallLimits(4, opts.perMinute ?? 100),
    budgetMs: opts.budgetMs ?? 15_000,
    backoffBaseMs: 100,
    authRecheckMs: opts.authRecheckMs,
  });
}

/** A started fake of a provider's API: where it listens, the key it accepts, how to stop it. */
export interface ProviderFake {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

/**
 * Starts a fake, runs `fn` with it and a test hosted model over `provider` pointed at it (with
 * the fake's key, or `opts.apiKey` to provoke a refusal), and stops the fake however `fn` ends.
 */
export async function withHostedFake<F extends ProviderFake>(
  start: () => Promise<F>,
  provider: (o: { apiKey: string; baseUrl: string }) => ImageProvider,
  faces: FaceCounter,
  opts: {
    budgetMs?: number;
    perMinute?: number;
    apiKey?: string;
    authRecheckMs?: number;
  },
  fn: (ctx: { fake: F; model: HostedModel }) => Promise<void>,
): Promise<void> {
  const fake = await start();
  const model = testHostedModel(
    provider({ apiKey: opts.apiKey ?? fake.apiKey, baseUrl: fake.url }),
    faces,
    opts,
  );
  try {
    // As the server does before it runs jobs: the output face check has loaded, so
    // health reads ready/degraded/failed whatever ran before (tests run in any order).
    await model.ready?.();
    await fn({ fake, model });
  } finally {
    await fake.close();
  }
}

/**
 * What the user reads when a hosted generation fails (the job's error), written out here so a
 * changed text fails the tests that expect it.
 */
export const HOSTED_FAILURES = {
  declined:
    "The image service declined this request for safety reasons. Choose different options, or remove anything revealing or sensitive from your additional instructions and reference photos, then try again. Your credits have been refunded.",
  noImage:
    "The image service answered without an image. Try fewer options at once or shorter, simpler additional instructions. Your credits have been refunded.",
  busy:
    "The image service is busy and did not answer in time. Your credits have been refunded; please try again in a few minutes.",
  unavailable:
    "The image model is not available right now, so this look could not be generated. Your credits have been refunded. Please try again later.",
  badOutput:
    "The image service returned an image that could not be read. Your credits have been refunded; please try again.",
} as const;

/** Asserts that `p` fails with that failure's text, final for the job runner (refunded, not retried). */
export async function rejectsWithFinal(
  p: Promise<unknown>,
  failure: keyof typeof HOSTED_FAILURES,
): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ModelError, `expected a ModelError, got ${e}`);
    assert.equal(e.message, HOSTED_FAILURES[failure]);
    assert.equal(e.transient, false, "hosted failures are final for the job runner (refund)");
    return true;
  });
}

/**
 * A front-view request as the job runner hands it to a hosted model: the
 * studio's defaults with `options` on top, every makeup intensity at 60, the
 * 1080x1920 frame; `extra` overrides any field.
 */
export function hostedRequest(
  photo: Uint8Array,
  studioType: StudioType,
  options: Partial<SelectedOptions>,
  extra: Partial<ImageRequest> = {},
): ImageRequest {
  return {
    photo,
    references: [],
    studioType,
    options: { ...defaultOptions(studioType), ...options },
    intensity: { lookStyle: 60, eyeshadow: 60, lips: 60, baseMakeup: 60, cheeks: 60, extras: 60 },
    instructions: null,
    angle: "front",
    width: 1080,
    height: 1920,
    ...extra,
  };
}

export function job(
  photo: Uint8Array,
  changes: Partial<SelectedOptions> = {},
  intensity: Intensity = FULL_INTENSITY,
  studioType: StudioType = "makeup",
): RenderJob {
  return {
    photo,
    studioType,
    options: { ...defaultOptions(studioType), ...changes },
    intensity,
    instructions: null,
    references: 0,
    width: 1080,
    height: 1920,
    format: "png",
  };
}

export interface Decoded {
  data: Uint8Array;
  width: number;
  height: number;
}

export async function decode(image: Uint8Array): Promise<Decoded> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Pixels whose (softly rasterised) polygon coverage is >= minCover. */
export function polygonPixels(img: Decoded, poly: Point[], erodeSigma = 0, minCover = 0.95): number[] {
  const xs = poly.map((p) => p[0]), ys = poly.map((p) => p[1]);
  const pad = 4 + erodeSigma * 3;
  const rect = {
    x: Math.max(0, Math.floor(Math.min(...xs) - pad)),
    y: Math.max(0, Math.floor(Math.min(...ys) - pad)),
    w: Math.ceil(Math.max(...xs) - Math.min(...xs) + 2 * pad),
    h: Math.ceil(Math.max(...ys) - Math.min(...ys) + 2 * pad),
  };
  const m = createMask(rect);
  fillPolygon(m, poly);
  if (erodeSigma > 0) feather(m, erodeSigma);
  const out: number[] = [];
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const x = m.x + c, y = m.y + r;
      if (x < img.width && y < img.height && m.data[r * m.w + c] >= minCover) out.push(y * img.width + x);
    }
  }
  return out;
}

export function labOf(img: Decoded, p: number): Lab {
  const i = p * 3;
  return srgbToLab(img.data[i], img.data[i + 1], img.data[i + 2]);
}

export function meanLab(img: Decoded, pixels: number[]): Lab {
  const s: Lab = [0, 0, 0];
  for (const p of pixels) {
    const l = labOf(img, p);
    s[0] += l[0];
    s[1] += l[1];
    s[2] += l[2];
  }
  return [s[0] / pixels.length, s[1] / pixels.length, s[2] / pixels.length];
}

/** Mean per-pixel ΔE between two images over `pixels`. */
export function meanPixelDeltaE(a: Decoded, b: Decoded, pixels: number[]): number {
  let s = 0;
  for (const p of pixels) s += deltaE(labOf(a, p), labOf(b, p));
  return s / Math.max(1, pixels.length);
}

/**
 * Widens (or heightens) a photo to `aspect` (width / height) with a plain
 * border, so that the frame needs extending (a wider crop of the demo photos
 * would take in the neighbours' faces).
 */
export async function reshape(
  photo: Uint8Array,
  aspect: number,
  background = "#6b6f78",
): Promise<Uint8Array> {
  const meta = await sharp(photo).metadata();
  const w = meta.width!, h = meta.height!;
  const x = Math.max(0, Math.round((h * aspect - w) / 2));
  const y = Math.max(0, Math.round((w / aspect - h) / 2));
  const buf = await sharp(photo)
    .extend({ left: x, right: x, top: y, bottom: y, background })
    .jpeg({ quality: 95 })
    .toBuffer();
  return new Uint8Array(buf);
}

/** Resizes a photo to exactly w x h (cover, centred). */
export async function resized(photo: Uint8Array, w: number, h: number): Promise<Uint8Array> {
  const buf = await sharp(photo).resize(w, h, { fit: "cover" }).jpeg({ quality: 95 }).toBuffer();
  return new Uint8Array(buf);
}

/**
 * A beard painted onto a beardless demo face at test time (no bearded face
 * ships in the test packages): dark-brown strands over the lower face, below
 * the nose and around the lips, lips left bare.
 */
export async function withPaintedBeard(
  engine: FaceEngine,
  face: [number, number, number, number],
): Promise<Uint8Array> {
  const img = await decode(await cropFace(face));
  const g = faceGeometry((await engine.detect(img))[0].mesh);
  const noseY = g.pts[2][1];
  const region = polygonPixels(img, FACE_OVAL.map((i) => g.pts[i]).map(([x, y]) => [x, Math.max(y, noseY)]));
  const lips = new Set(polygonPixels(img, LIPS_OUTER.map((i) => g.pts[i]), 0, 0.01));
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const streak = Array.from({ length: img.width }, () => rnd());
  for (const p of region) {
    if (lips.has(p)) continue;
    const v = 0.75 + 0.5 * streak[p % img.width] * (0.7 + 0.3 * rnd());
    img.data[p * 3] = Math.min(255, 58 * v);
    img.data[p * 3 + 1] = Math.min(255, 40 * v);
    img.data[p * 3 + 2] = Math.min(255, 30 * v);
  }
  const buf = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
  return new Uint8Array(buf);
}
