/**
 * Scene Composer: rendered backdrops (painted small by backdrop-painting.ts, blurred and enlarged here),
 * background replacement and lens blur through the person matte, and colour grading.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";
import { hexToRgb, linearToSrgb, luminance, SRGB_TO_LINEAR } from "./color.ts";
import { paintBackdrop, type Plane, rng } from "./backdrop-painting.ts";
import { rawOf } from "./framing.ts";
import { BACKDROPS, GRADES } from "./recipes.ts";
import { OUTPUT_WIDTH } from "../../styling/option-keys.ts";

/**
 * Recently rendered backdrops (a worker renders the same few scenes again and again), read-only: full-size ones,
 * and the small blurred planes they are enlarged from (the studio's preview and the result share a plane).
 */
const backdropCache = new Map<string, Uint8Array>();
const planeCache = new Map<string, Uint8Array>();
const BACKDROP_CACHE_SIZE = 2, PLANE_CACHE_SIZE = 4;

/** The entry under `key` (now the most recent), or `make()`'s, added; the cache keeps its `size` most recent. */
async function cached(
  cache: Map<string, Uint8Array>,
  size: number,
  key: string,
  make: () => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const out = await make();
  cache.set(key, out);
  while (cache.size > size) cache.delete(cache.keys().next().value!);
  return out;
}

/** Drops the kept backdrops (a worker going idle gives their memory back; the next look repaints one). */
export function releaseBackdrops(): void {
  backdropCache.clear();
  planeCache.clear();
}

/** Bytes of kept backdrops (diagnostics). */
export function backdropBytes(): number {
  let n = 0;
  for (const cache of [backdropCache, planeCache]) for (const b of cache.values()) n += b.byteLength;
  return n;
}

/** Width of the plane a backdrop is painted on (a quarter of the result's 1080 px), then enlarged to the canvas. */
const PAINT_WIDTH = OUTPUT_WIDTH / 4;

/**
 * The blur a camera's full background blur (its recipe's backgroundBlur 1: shallow depth) adds to a backdrop,
 * as a sigma in the painting's pixels (12 px on the result's 1080x1920 frame).
 */
export const LENS_BLUR_SIGMA = 3;

/**
 * Renders a backdrop at full canvas size (RGB bytes), out of focus by its painting's own blur and `lensBlur`
 * (the camera's backgroundBlur, 0-1), a scene's backlight on `side` (1 the right, as painted; -1 the left:
 * the painting mirrored, see BackdropRecipe.backlight). The result is shared with a small per-worker cache:
 * callers must not modify it.
 */
export function renderBackdrop(
  entry: { id: string },
  width: number,
  height: number,
  head: [number, number],
  lensBlur = 0,
  side: 1 | -1 = 1,
): Promise<Uint8Array> {
  // Painted at one size whatever the canvas's, so the preview's backdrop (540x960) is the result's, smaller: the
  // painting's shapes and its blur are in the plane's pixels.
  const w = PAINT_WIDTH, h = Math.round(height * PAINT_WIDTH / width), step = width / PAINT_WIDTH;
  // Only a studio gradient depends on the head position (its light sits behind the head): painted on a 4-px grid
  // of the plane, so a cached plane is the one any head in its cell would get, whichever asked first.
  const gradient = BACKDROPS[entry.id]?.kind === "gradient";
  const onPlane: [number, number] = gradient
    ? [4 * Math.round(head[0] / step / 4), 4 * Math.round(head[1] / step / 4)]
    : [0, 0];
  const mirrored = side === -1 && !!BACKDROPS[entry.id]?.backlight;
  const planeKey = `${entry.id}|${h}|${lensBlur}|${onPlane}|${mirrored}`;
  return cached(backdropCache, BACKDROP_CACHE_SIZE, `${planeKey}|${width}x${height}`, async () => {
    const small = await cached(
      planeCache,
      PLANE_CACHE_SIZE,
      planeKey,
      () => paintedPlane(entry.id, w, h, onPlane, lensBlur, mirrored),
    );
    return (await rawOf(
      sharp(small, { raw: { width: w, height: h, channels: 3 } }).resize(width, height, { kernel: "cubic" }),
      3,
      "backdrop",
    )).data;
  });
}

/**
 * Setting `id`'s backdrop painted on a w x h plane (RGB bytes), out of focus by its own blur and `lensBlur`,
 * left to right when `mirrored`.
 */
async function paintedPlane(
  id: string,
  w: number,
  h: number,
  head: [number, number],
  lensBlur: number,
  mirrored: boolean,
): Promise<Uint8Array> {
  const p: Plane = { w, h, data: new Float32Array(w * h * 3) };
  const blur = paintBackdrop(id, BACKDROPS[id], p, head);
  if (mirrored) mirror(p);
  let small: Uint8Array = new Uint8Array(w * h * 3);
  for (let i = 0; i < small.length; i++) small[i] = Math.max(0, Math.min(255, Math.round(p.data[i] * 255)));
  // The blur is the painting's own (its sigma is in the small plane's pixels), so it runs before the enlargement
  // in a pipeline of its own: in one pipeline libvips resizes first and blurs after, at a quarter of the sigma
  // (City Night's windows stayed crisp dots on a 1080x1920 frame).
  const sigma = blur + LENS_BLUR_SIGMA * lensBlur;
  if (sigma >= 0.3) {
    small =
      (await rawOf(sharp(small, { raw: { width: w, height: h, channels: 3 } }).blur(sigma), 3, "backdrop"))
        .data;
  }
  // A touch of noise avoids banding in smooth gradients (after the blur, which would smooth it away).
  const rand = rng(99);
  for (let i = 0; i < small.length; i++) {
    small[i] = Math.max(0, Math.min(255, small[i] + Math.round((rand() - 0.5) * 2)));
  }
  return small;
}

/** The plane flipped left to right, in place. */
function mirror(p: Plane): void {
  for (let y = 0; y < p.h; y++) {
    for (let a = y * p.w * 3, b = a + (p.w - 1) * 3; a < b; a += 3, b -= 3) {
      for (let ch = 0; ch < 3; ch++) {
        const t = p.data[a + ch];
        p.data[a + ch] = p.data[b + ch];
        p.data[b + ch] = t;
      }
    }
  }
}

/** A blurred copy of the canvas (lens blur for the background). */
export async function blurredCopy(img: Canvas, strength: number): Promise<Uint8Array> {
  const w = Math.ceil(img.width / 4), h = Math.ceil(img.height / 4);
  const small = await rawOf(
    sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
      .resize(w, h)
      .blur(0.6 + 4 * strength),
    3,
    "lens blur",
  );
  const out = await rawOf(
    sharp(small.data, { raw: { width: w, height: h, channels: 3 } }).resize(img.width, img.height, {
      kernel: "cubic",
    }),
    3,
    "lens blur",
  );
  return out.data;
}

/** Colour grading from a lighting entry's grade recipe, over the whole frame, in place. */
export function gradeLighting(img: Canvas, entry: { id: string }): void {
  const g = GRADES[entry.id];
  if (!g) return;
  const gains = [1 + 0.14 * g.warmth, 1 + 0.03 * g.warmth, 1 - 0.16 * g.warmth];
  const expo = 2 ** g.exposure;
  const luts = gains.map((gain) => {
    const lut = new Uint8Array(256);
    for (let v = 0; v < 256; v++) {
      const s = linearToSrgb(SRGB_TO_LINEAR[v] * expo * gain) / 255;
      const c = 0.5 + (s - 0.5) * g.contrast;
      lut[v] = Math.max(0, Math.min(255, Math.round(c * 255)));
    }
    return lut;
  });
  const tint = g.tint ? hexToRgb(g.tint) : undefined;
  const vig = g.vignette ?? 0;
  const sat = g.saturation;
  const [lr, lg, lb] = luts;
  const W = img.width, H = img.height;
  // Clamped, rounded stores; the saturation mix as a 3x3 matrix on the graded channels.
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  const u = 1 - sat;
  const m00 = sat + u * 0.299, m01 = u * 0.587, m02 = u * 0.114;
  const m10 = u * 0.299, m11 = sat + u * 0.587, m12 = u * 0.114;
  const m20 = u * 0.299, m21 = u * 0.587, m22 = sat + u * 0.114;
  // Vignette: 1 - vig * min(1, (dx^2 + dy^2) * 1.6), with dx, dy per column and row.
  const dx2 = new Float32Array(W);
  for (let x = 0; x < W; x++) dx2[x] = (x / W - 0.5) ** 2;
  const tr = tint?.[0] ?? 0, tg = tint?.[1] ?? 0, tb = tint?.[2] ?? 0;
  // The vignette's dy^2 for row y.
  const rowDy2 = (y: number) => {
    const dy = (y / H - 0.42) * 1.2;
    return dy * dy;
  };
  // One loop over the pixels, the row kept by count, not a loop of rows around a loop of columns: V8 compiles a
  // young function's hot inner loop on its own (on-stack replacement) and throws that code away at each return
  // to the outer loop. On two busy cores the rows then ran interpreted, one after another: the third render on
  // a fresh worker stalled 600 ms here.
  let x = 0, y = 0, dy2 = rowDy2(0);
  for (let p = 0, i = 0, n = W * H; p < n; p++, i += 3) {
    const r0 = lr[d[i]], g0 = lg[d[i + 1]], b0 = lb[d[i + 2]];
    let r = m00 * r0 + m01 * g0 + m02 * b0;
    let gg = m10 * r0 + m11 * g0 + m12 * b0;
    let b = m20 * r0 + m21 * g0 + m22 * b0;
    if (tint) {
      const k = 0.14 * ((0.299 * r0 + 0.587 * g0 + 0.114 * b0) / 255);
      r += (tr - r) * k;
      gg += (tg - gg) * k;
      b += (tb - b) * k;
    }
    if (vig > 0) {
      const q = (dx2[x] + dy2) * 1.6;
      const f = 1 - vig * (q < 1 ? q : 1);
      r *= f;
      gg *= f;
      b *= f;
    }
    d[i] = r;
    d[i + 1] = gg;
    d[i + 2] = b;
    if (++x === W) {
      x = 0;
      dy2 = rowDy2(++y);
    }
  }
}

/** Key light of recent backdrops (renderBackdrop hands out the same buffer for the same scene). */
const keyLights = new WeakMap<Uint8Array, number[]>();

/** The backdrop's mean linear colour weighted by brightness squared (its lights count most), sampled. */
function keyLight(backdrop: Uint8Array, n: number): number[] {
  const hit = keyLights.get(backdrop);
  if (hit) return hit;
  const light = [0, 0, 0];
  for (let k = 0; k < n; k += 7) {
    const r = SRGB_TO_LINEAR[backdrop[k * 3]], g = SRGB_TO_LINEAR[backdrop[k * 3 + 1]];
    const b = SRGB_TO_LINEAR[backdrop[k * 3 + 2]];
    const y = luminance(r, g, b), wt = y * y;
    light[0] += r * wt;
    light[1] += g * wt;
    light[2] += b * wt;
  }
  keyLights.set(backdrop, light);
  return light;
}

/** How far the person's colour balance moves toward the scene's light (0 none, 1 all the way). */
const RELIGHT_STRENGTH = 0.3;
/** Bounds of each channel's gain, so skin stays skin. */
const RELIGHT_MIN = 0.92, RELIGHT_MAX = 1.1;

/** Person mask cells this sure are the person's own colours (the segmenter's is ~1 inside). */
const SURE_PERSON = 0.95;

/**
 * The person's colour balance as photographed: the mean linear colour of the
 * framed photo at every other cell the person mask is sure of. Measured
 * before makeup and hair colour are painted: a dye (auburn hair is a quarter
 * of the person) would otherwise read as the light's cast, and the relight
 * would tint the face its complement (grey-green under auburn).
 */
export function personBalance(
  img: Canvas,
  person: { w: number; h: number; step: number; data: Float32Array },
): number[] {
  const sum = [0, 0, 0];
  const { w, h, step, data } = person;
  const half = step >> 1;
  for (let j = 0; j < h; j += 2) {
    const y = Math.min(img.height - 1, j * step + half);
    for (let i = 0; i < w; i += 2) {
      if (data[j * w + i] < SURE_PERSON) continue;
      const k = (y * img.width + Math.min(img.width - 1, i * step + half)) * 3;
      for (let c = 0; c < 3; c++) sum[c] += SRGB_TO_LINEAR[img.data[k + c]];
    }
  }
  return sum;
}

/**
 * The light a dye is painted in on a person relit for a scene (see relightGains): the share of the photo's cast
 * (`person`, see personBalance) the relight takes out of the person, put into the dye first, so the relight
 * leaves the dye as the swatch in the scene's light (unless a gain's bound holds it, as it holds the skin).
 * Painted without it, a dye in a warm photo ended cooler than its swatch: sample5@1319's Honey Blonde read olive
 * on Beach Sunset, hue 67.8 degrees without the scene and 74.9 in it. Per channel, linear light, luminance 1.
 * As the relight's own estimate of the cast is taken out again, what it gets wrong (the person's mean holds
 * their clothes) cancels in the dye.
 */
export function relightCast(person: readonly number[]): [number, number, number] {
  const py = luminance(person[0], person[1], person[2]);
  if (py <= 0) return [1, 1, 1];
  // Bounded as the relight's gains are: it never takes more out of a channel than their bounds allow (a red
  // top in a warm photo made the person's mean read as a cast of 1.32 / 0.93 / 0.71).
  const cast = [0, 1, 2].map((c) =>
    Math.min(1 / RELIGHT_MIN, Math.max(1 / RELIGHT_MAX, Math.max(1e-4, person[c] / py) ** RELIGHT_STRENGTH))
  );
  const y = luminance(cast[0], cast[1], cast[2]);
  return [cast[0] / y, cast[1] / y, cast[2] / y];
}

/** The most a dim photo's person is brightened on a new backdrop (one stop: more shows the photo's noise). */
const LIFT_MAX = 2;

/**
 * `gains` (see relightGains) that also bring a dim photo's person up toward the backdrop's light: the backdrops
 * are drawn as well-exposed photos, and a person kept at a dim photo's exposure (photoExposure) read as a dark
 * cut-out in front of them. At most LIFT_MAX; a well-exposed photo (exposure 1) keeps its gains.
 */
export function liftedGains(gains: readonly number[], exposure: number): [number, number, number] {
  const lift = Math.min(LIFT_MAX, 1 / Math.max(1 / LIFT_MAX, exposure));
  return [gains[0] * lift, gains[1] * lift, gains[2] * lift];
}

/**
 * Per-channel gains (linear light, luminance kept) that move the person's
 * white balance part of the way toward the backdrop's key light: the photo's
 * blue or warm cast gives way to the scene's (a person under a sunset turns
 * warmer, under a city night cooler). The key light is the backdrop's mean
 * weighted by brightness (its lights count most); the person's balance is
 * `person` (personBalance: the photo's own colours, before anything is
 * painted). Gains are bounded (RELIGHT_MIN..MAX).
 * `backdrop` is read-only (renderBackdrop's shared buffer): its key light is kept per buffer.
 */
export function relightGains(
  person: number[],
  backdrop: Uint8Array,
  size: { width: number; height: number },
): [number, number, number] {
  const lum = (c: number[]) => luminance(c[0], c[1], c[2]);
  const light = keyLight(backdrop, size.width * size.height);
  if (lum(light) <= 0 || lum(person) <= 0) return [1, 1, 1];
  const ly = lum(light), py = lum(person);
  const gains = [0, 1, 2].map((c) => {
    const want = (light[c] / ly) / Math.max(1e-4, person[c] / py);
    return Math.min(RELIGHT_MAX, Math.max(RELIGHT_MIN, want ** RELIGHT_STRENGTH));
  });
  const y = lum(gains);
  return [gains[0] / y, gains[1] / y, gains[2] / y];
}
