/**
 * Hair recolour, the dye's deposit on lighter lengths (see hair-recolor.ts). The recolour keeps each pixel's
 * L* offset from the hair's mean, so dark hair with lighter lengths (ombre, sun-lightened ends) dyed a darker
 * shade kept its ends far lighter than the shade: the hair bench's portrait (sample6@1081) had her blonde
 * ends dyed pale salmon by Auburn (median L* 64 against the swatch's 31). A dye laid on light hair takes it
 * most of the way to its own colour: where the hair about a node (its lightness blurred over DEPOSIT_SIGMA,
 * the strands' light and dark averaged) is far lighter than the hair's mean, below the eyes, the recoloured
 * pixels are darkened by the same number of sRGB levels, so that node's lightness comes down to DEPOSIT_KNEE
 * above the shade plus DEPOSIT_SLOPE of the rest. The same levels off every pixel keep the strands'
 * differences (and so their L* contrast and chroma, nearly: L* is close to linear in sRGB levels over the
 * mid-tones) where a scale would flatten them. The crown's lit highlights are left alone: above the eyes they
 * are the light, not the hair.
 */
import {
  type Lab,
  lightnessOf,
  linearToSrgbFloat,
  luminance,
  luminanceOfL,
  SRGB_TO_LINEAR,
} from "./color.ts";
import type { Canvas } from "./blend.ts";
import { shiftedLightness } from "./lab-shift.ts";
import { blurPlane, type Mask } from "./masks.ts";

/** Gaussian sigma (face widths) over which a node's hair lightness is averaged: lengths, not strands. */
const DEPOSIT_SIGMA = 0.06;
/** L* above the shade at which the deposit starts, and the share of the excess above it kept. */
const DEPOSIT_KNEE = 5, DEPOSIT_SLOPE = 0.3;
/**
 * L* by which the hair about a node must be lighter than the hair's mean for the deposit to start, and
 * over which it comes in fully: lighter lengths (sample6@1081's ends lie 35-40 above her mean), not
 * a lock's sheen beside the face.
 */
const LIGHTER_FROM = 20, LIGHTER_SPAN = 10;

/**
 * Per node of the hair's grid (`m`, with the grown lengths `grown`), the L* of the hair about it, weighted by
 * the hair's strength; 0 above eye level `eyeY` and where there is no hair near.
 */
export function lengthsLightness(
  img: Canvas,
  m: Mask,
  grown: Float32Array,
  x0: number,
  y0: number,
  step: number,
  fw: number,
  eyeY: number,
): Float32Array {
  const { w, h, data } = m, d = img.data, W = img.width, H = img.height;
  const sum = new Float32Array(w * h), sigma = DEPOSIT_SIGMA * fw / step;
  // Only the rows from 3 sigmas above the eyes reach a node below them through the blur.
  const j0 = Math.max(0, Math.min(h, Math.floor((eyeY - y0) / step - 3 * sigma)));
  const rows = h - j0, below = sum.subarray(j0 * w), weight = new Float32Array(rows * w);
  for (let j = j0; j < h; j++) {
    const y = Math.min(H - 1, y0 + j * step);
    for (let i = 0; i < w; i++) {
      const k = j * w + i, v = Math.min(1, Math.max(data[k], grown[k]));
      if (v <= 0.05) continue;
      const o = (y * W + Math.min(W - 1, x0 + i * step)) * 3;
      sum[k] = v *
        lightnessOf(luminance(SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]));
      weight[k - j0 * w] = v;
    }
  }
  blurPlane(below, w, rows, sigma);
  blurPlane(weight, w, rows, sigma);
  for (let k = 0; k < rows * w; k++) {
    below[k] = weight[k] > 0.02 && y0 + (j0 + Math.floor(k / w)) * step > eyeY ? below[k] / weight[k] : 0;
  }
  return sum;
}

/**
 * The sRGB levels (0-255) to take off each node's recoloured pixels for the shade `target` over hair of mean
 * `mean` (see the file's comment), or undefined when no node is darkened.
 */
export function depositDarkening(baseL: Float32Array, mean: Lab, target: Lab): Float32Array | undefined {
  const mapped = shiftedLightness(mean, target), from = target[0] + DEPOSIT_KNEE;
  const level = (L: number) => linearToSrgbFloat(luminanceOfL(L));
  let out: Float32Array | undefined;
  for (let k = 0; k < baseL.length; k++) {
    const lighter = Math.min(1, (baseL[k] - mean[0] - LIGHTER_FROM) / LIGHTER_SPAN);
    if (lighter <= 0) continue;
    const Lo = mapped(baseL[k]);
    if (Lo <= from) continue;
    out ??= new Float32Array(baseL.length);
    out[k] = lighter * (level(Lo) - level(from + (Lo - from) * DEPOSIT_SLOPE));
  }
  return out;
}
