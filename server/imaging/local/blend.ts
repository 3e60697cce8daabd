/**
 * Per-pixel blending of a layer into the canvas through a soft mask:
 * `out = orig + (effect - orig) * mask * opacity`, computed in linear light.
 */
import { linearToSrgb, SRGB_TO_LINEAR } from "./color.ts";
import type { Mask } from "./masks.ts";

export interface Canvas {
  /** RGB, 3 bytes per pixel. */
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * The effect callback receives the linear-light pixel in `px` and the canvas
 * coordinates, and writes the effect colour (linear light) back into `px`.
 */
export type Effect = (px: Float32Array, x: number, y: number) => void;

export function blendLayer(
  img: Canvas,
  mask: Mask,
  opacity: number,
  effect: Effect,
): void {
  if (opacity <= 0) return;
  const px = new Float32Array(3);
  const d = img.data, W = img.width;
  const x0 = Math.max(0, mask.x), y0 = Math.max(0, mask.y);
  const x1 = Math.min(W, mask.x + mask.w), y1 = Math.min(img.height, mask.y + mask.h);
  for (let y = y0; y < y1; y++) {
    const mo = (y - mask.y) * mask.w - mask.x;
    for (let x = x0; x < x1; x++) {
      const a = mask.data[mo + x] * opacity;
      if (a < 0.002) continue;
      const i = (y * W + x) * 3;
      const r = SRGB_TO_LINEAR[d[i]], g = SRGB_TO_LINEAR[d[i + 1]], b = SRGB_TO_LINEAR[d[i + 2]];
      px[0] = r;
      px[1] = g;
      px[2] = b;
      effect(px, x, y);
      const k = a > 1 ? 1 : a;
      d[i] = linearToSrgb(r + (px[0] - r) * k);
      d[i + 1] = linearToSrgb(g + (px[1] - g) * k);
      d[i + 2] = linearToSrgb(b + (px[2] - b) * k);
    }
  }
}

/** W3C soft-light of one channel (values 0..1, gamma-encoded). */
export function softLight(cb: number, cs: number): number {
  if (cs <= 0.5) return cb - (1 - 2 * cs) * cb * (1 - cb);
  const dd = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : Math.sqrt(cb);
  return cb + (2 * cs - 1) * (dd - cb);
}

/** Approximate gamma encode/decode for soft-light (cheap, good enough for blends). */
export const toGamma = (v: number) => Math.sqrt(v > 0 ? v : 0) ** 0.9;
export const fromGamma = (v: number) => (v > 0 ? v : 0) ** (2 / 0.9);

/** Mask-weighted mean luminance of the canvas (linear), counting pixels with mask >= minMask. */
export function meanLuminance(img: Canvas, mask: Mask, minMask = 0.5): number {
  let sum = 0, n = 0;
  const d = img.data;
  for (let r = 0; r < mask.h; r++) {
    const y = mask.y + r;
    if (y < 0 || y >= img.height) continue;
    for (let c = 0; c < mask.w; c++) {
      const x = mask.x + c;
      if (x < 0 || x >= img.width) continue;
      const m = mask.data[r * mask.w + c];
      if (m < minMask) continue;
      const i = (y * img.width + x) * 3;
      sum += m * (0.2126 * SRGB_TO_LINEAR[d[i]] + 0.7152 * SRGB_TO_LINEAR[d[i + 1]] +
        0.0722 * SRGB_TO_LINEAR[d[i + 2]]);
      n += m;
    }
  }
  return n > 0 ? sum / n : 0.1;
}
