/**
 * Detail restoration for an enlarged photo: an unsharp mask on luminance only
 * (the same correction added to R, G and B keeps each pixel's chroma, so
 * colours do not fringe), cored by a threshold so flat skin and JPEG noise are
 * left alone, and capped at 3 levels so a strong edge gains acutance without
 * a visible halo. The mask's blur runs in libvips on one channel; the rest is
 * one pass over the pixels (libvips' own Lab sharpen cost 6-25x the
 * resize at 1080x1920, this 1.5-2.6x). A super-resolution network (ESRGAN) was measured and not
 * adopted: see docs/decisions/020-framing-and-resolution.md.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";

/** Enlargements below this are left as the resize made them. */
const MIN_SCALE = 1.15;

export interface DetailSharpen {
  /** Gaussian sigma of the mask, in output pixels. */
  sigma: number;
  /** Gain on the luminance detail above the threshold. */
  gain: number;
  /** Detail (luminance levels) below this is noise: left alone. */
  threshold: number;
  /** Largest correction in levels (bounds the overshoot at an edge). */
  cap: number;
}

/**
 * The sharpening for an enlargement by `scale`, or undefined when none is
 * needed: the mask widens with the enlargement (a source pixel spans `scale`
 * output pixels) and the gain grows with it. Tuned on soft step edges and on
 * the test portraits reduced and enlarged again (see
 * bench/framing-quality.bench.ts): a wider mask or a larger cap adds a halo.
 */
export function detailSharpen(scale: number): DetailSharpen | undefined {
  if (scale < MIN_SCALE) return undefined;
  const k = Math.min(4, scale);
  return { sigma: 0.5 * k, gain: 1.5 * k, threshold: 2, cap: 3 };
}

/** Sharpens `img` (RGB, enlarged by `scale`) in place; returns it. */
export async function restoreDetail(img: Canvas, scale: number): Promise<Canvas> {
  const s = detailSharpen(scale);
  if (!s) return img;
  const n = img.width * img.height, d = img.data;
  const y = new Uint8Array(n);
  for (let p = 0, i = 0; p < n; p++, i += 3) y[p] = (77 * d[i] + 150 * d[i + 1] + 29 * d[i + 2] + 128) >> 8;
  const blurred = await sharp(y, { raw: { width: img.width, height: img.height, channels: 1 } })
    .blur(s.sigma)
    .extractChannel(0)
    .raw()
    .toBuffer();
  if (blurred.length !== n) throw new Error(`detail mask: expected ${n} bytes, got ${blurred.length}`);
  const out = new Uint8ClampedArray(d.buffer, d.byteOffset, d.length);
  const { gain, threshold: t, cap } = s;
  for (let p = 0, i = 0; p < n; p++, i += 3) {
    const diff = y[p] - blurred[p];
    if (diff <= t && diff >= -t) continue;
    const k = Math.round(Math.max(-cap, Math.min(cap, gain * (diff > 0 ? diff - t : diff + t))));
    out[i] += k;
    out[i + 1] += k;
    out[i + 2] += k;
  }
  return img;
}
