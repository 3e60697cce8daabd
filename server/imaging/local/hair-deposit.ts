/**
 * Hair recolour, the dye's deposit on lighter hair (see hair-recolor.ts). The recolour keeps each pixel's L*
 * offset from the hair's mean, so hair lighter than its mean in places kept those places far lighter than a
 * darker shade. Two darkenings, per node of the hair's grid, from the hair's lightness about the node (blurred
 * over DEPOSIT_SIGMA: lengths and lit areas, the strands' light and dark averaged); the larger is taken:
 * - A darker dye scales the light the hair reflects: where the hair about a node is lighter than the mean,
 *   its luminance after is its luminance before scaled as the mean's is (an L* offset kept instead left
 *   sample3@1005's lit light brown crown under Jet Black at L* 38, a taupe cap).
 * - Lighter lengths take a darker dye most of the way to its colour: dark hair with lighter lengths (ombre,
 *   sun-lightened ends) dyed a darker shade kept its ends far lighter than the shade (the hair bench's
 *   portrait, sample6@1081: her blonde ends dyed pale salmon by Auburn, median L* 64 against the swatch's
 *   31). Where the hair about a node is far lighter than the mean, below the eyes, its lightness comes down to
 *   DEPOSIT_KNEE above the shade plus DEPOSIT_SLOPE of the rest. Above the eyes a dark head's lit highlights
 *   are the light, not the hair.
 * The recoloured pixels about a node are darkened by the same number of sRGB levels, which keeps the strands'
 * differences (and so their L* contrast and chroma, nearly: L* is close to linear in sRGB levels over the
 * mid-tones) where a scale would flatten them.
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
/** The step (L*) of depositDarkening's tables. */
const TABLE_STEP = 0.25;

/**
 * Per node of the hair's grid (`m`, with the grown lengths `grown`), the L* of the hair about it, weighted by
 * the hair's strength; 0 where there is no hair near.
 */
export function hairLightness(
  img: Canvas,
  m: Mask,
  grown: Float32Array,
  x0: number,
  y0: number,
  step: number,
  fw: number,
): Float32Array {
  const { w, h, data } = m, d = img.data, W = img.width, H = img.height;
  const sum = new Float32Array(w * h), weight = new Float32Array(w * h), sigma = DEPOSIT_SIGMA * fw / step;
  for (let j = 0; j < h; j++) {
    const y = Math.min(H - 1, y0 + j * step);
    for (let i = 0; i < w; i++) {
      const k = j * w + i, v = Math.min(1, Math.max(data[k], grown[k]));
      if (v <= 0.05) continue;
      const o = (y * W + Math.min(W - 1, x0 + i * step)) * 3;
      sum[k] = v *
        lightnessOf(luminance(SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]));
      weight[k] = v;
    }
  }
  blurPlane(sum, w, h, sigma);
  blurPlane(weight, w, h, sigma);
  for (let k = 0; k < w * h; k++) sum[k] = weight[k] > 0.02 ? sum[k] / weight[k] : 0;
  return sum;
}

/**
 * The sRGB levels (0-255) to take off each node's recoloured pixels for the shade `target` over hair of mean
 * `mean` (see the file's comment), or undefined when no node is darkened. `eyeRow`: the grid row at eye level;
 * the lengths' deposit starts below it.
 */
export function depositDarkening(
  baseL: Float32Array,
  w: number,
  eyeRow: number,
  mean: Lab,
  target: Lab,
): Float32Array | undefined {
  const mapped = shiftedLightness(mean, target), from = target[0] + DEPOSIT_KNEE;
  const level = (L: number) => linearToSrgbFloat(luminanceOfL(L));
  // A darker dye scales what light the hair about a node reflects (see the file's comment).
  const scale = target[0] < mean[0] ? luminanceOfL(mapped(mean[0])) / luminanceOfL(mean[0]) : 1;
  // Both darkenings depend on a node's lightness alone: tabulated per TABLE_STEP of L* from the mean up, not
  // worked out node by node (up to a hundred thousand nodes, several powers each); 1-2 ms a restyle.
  const n = Math.ceil((100 - mean[0]) / TABLE_STEP) + 2;
  const scaledBy = new Float32Array(n), lengthsBy = new Float32Array(n);
  for (let t = 0; t < n; t++) {
    const L = mean[0] + t * TABLE_STEP, Lo = mapped(L);
    if (scale < 1) {
      scaledBy[t] = Math.max(0, level(Lo) - level(Math.min(Lo, lightnessOf(luminanceOfL(L) * scale))));
    }
    if (Lo > from) lengthsBy[t] = level(Lo) - level(from + (Lo - from) * DEPOSIT_SLOPE);
  }
  const at = (table: Float32Array, L: number) => {
    const x = Math.min(n - 1.001, (L - mean[0]) / TABLE_STEP), t = Math.floor(x);
    return table[t] + (table[t + 1] - table[t]) * (x - t);
  };
  let out: Float32Array | undefined;
  for (let k = 0; k < baseL.length; k++) {
    const L = baseL[k];
    if (L <= mean[0]) continue;
    const lighter = Math.min(1, (L - mean[0] - LIGHTER_FROM) / LIGHTER_SPAN);
    let v = scale < 1 ? at(scaledBy, L) : 0;
    if (lighter > 0 && Math.floor(k / w) > eyeRow) v = Math.max(v, lighter * at(lengthsBy, L));
    if (v <= 0) continue;
    out ??= new Float32Array(baseL.length);
    out[k] = v;
  }
  return out;
}
