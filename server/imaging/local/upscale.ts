/**
 * Detail restoration for an enlarged photo: an unsharp mask on luminance only
 * (the same correction added to R, G and B keeps each pixel's chroma, so
 * colours do not fringe), cored by a threshold so flat skin and JPEG noise are
 * left alone, and limited to the lightness range of the pixel's neighbourhood
 * in the plain enlargement: an edge gets steeper but never brighter or darker
 * than the two sides it separates, so there is no halo (ringing) to bound
 * with a small cap. The mask's blur runs in libvips on one channel; the rest
 * is one pass over the pixels, reading the neighbourhood only where a
 * correction applies. A super-resolution network (ESRGAN) was measured and
 * not adopted: see docs/decisions/020-framing-and-resolution.md.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";

/**
 * The result may pass its neighbours' lightness range by this many levels
 * (invisible); corrections this small need no neighbour read.
 */
const SMALL = 1;

/** Enlargements below this are left as the resize made them. */
const MIN_SCALE = 1.15;

export interface DetailSharpen {
  /** Gaussian sigma of the mask, in output pixels. */
  sigma: number;
  /** Gain on the luminance detail above the threshold. */
  gain: number;
  /** Detail (luminance levels) below this is noise: left alone. */
  threshold: number;
  /** Largest correction in levels. */
  cap: number;
  /** Radius (output pixels) of the neighbourhood whose lightness range bounds the result. */
  radius: number;
}

/**
 * The sharpening for an enlargement by `scale`, or undefined when none is
 * needed: the mask widens with the enlargement (a source pixel spans `scale`
 * output pixels) and the gain grows with it. Tuned on soft step edges and on
 * the test portraits reduced and enlarged again (see
 * bench/framing-quality.bench.ts).
 */
export function detailSharpen(scale: number): DetailSharpen | undefined {
  if (scale < MIN_SCALE) return undefined;
  const k = Math.min(4, scale);
  return { sigma: 0.5 * k, gain: 1.5 * k, threshold: 2, cap: 12, radius: k < 2 ? 1 : 2 };
}

/** Sharpens `img` (RGB, enlarged by `scale`) in place; returns it. */
export async function restoreDetail(img: Canvas, scale: number): Promise<Canvas> {
  const s = detailSharpen(scale);
  if (!s) return img;
  const W = img.width, H = img.height, n = W * H, d = img.data;
  const y = new Uint8Array(n);
  for (let p = 0, i = 0; p < n; p++, i += 3) y[p] = (77 * d[i] + 150 * d[i + 1] + 29 * d[i + 2] + 128) >> 8;
  const blurred = await sharp(y, { raw: { width: W, height: H, channels: 1 } })
    .blur(s.sigma)
    .extractChannel(0)
    .raw()
    .toBuffer();
  if (blurred.length !== n) throw new Error(`detail mask: expected ${n} bytes, got ${blurred.length}`);
  const out = new Uint8ClampedArray(d.buffer, d.byteOffset, d.length);
  const { gain, threshold: t, cap, radius: r } = s;
  // One loop over the pixels, the row worked out where needed (why not rows of columns: see gradeLighting).
  for (let p = 0; p < n; p++) {
    const diff = y[p] - blurred[p];
    if (diff <= t && diff >= -t) continue;
    let k = Math.round(Math.max(-cap, Math.min(cap, gain * (diff > 0 ? diff - t : diff + t))));
    if (k > SMALL || k < -SMALL) {
      const row = Math.floor(p / W);
      k = bounded(y, p, p - row * W, row, W, H, r, k);
    }
    if (k === 0) continue;
    const i = p * 3;
    out[i] += k;
    out[i + 1] += k;
    out[i + 2] += k;
  }
  return img;
}

/**
 * Correction `k` at pixel p (x, row) limited so the result stays within
 * SMALL levels of the lightness of the pixel and of those r pixels left,
 * right, above and below it (in the plain enlargement): across an edge's
 * ramp those are its darker and lighter sides, so the edge gets steeper but
 * no brighter or darker than they are.
 */
function bounded(
  y: Uint8Array,
  p: number,
  x: number,
  row: number,
  W: number,
  H: number,
  r: number,
  k: number,
) {
  const v = y[p];
  const a = y[p - Math.min(r, x)], b = y[p + Math.min(r, W - 1 - x)];
  const c = y[p - Math.min(r, row) * W], d = y[p + Math.min(r, H - 1 - row) * W];
  const lo = Math.min(v, a, b, c, d), hi = Math.max(v, a, b, c, d);
  return Math.max(lo - v - SMALL, Math.min(hi - v + SMALL, k));
}
