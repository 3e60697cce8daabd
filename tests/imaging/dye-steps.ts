/**
 * Steps in a recolour's edge where the photo has none: the dye stopping in the middle of a smooth shadow along
 * its 4-pixel grid, or flickering pixel by pixel along a soft edge, reads as a stepped, ragged line. Counted on
 * pairs of neighbouring pixels (right and below) that the photo shows alike (ΔE under PHOTO_ALIKE) and that the
 * recolour changed (one of them by ΔE 1 or more): a pair whose changes differ by more than STEP is a step.
 * Returned per 1000 pixels the recolour changed by more than ΔE 3, with those counts.
 */
import { deltaE, type Lab } from "../../server/imaging/local/color.ts";
import { boxMean } from "../../server/imaging/local/masks.ts";
import { type Decoded, labOf } from "./fixtures.ts";

const PHOTO_ALIKE = 2;
const STEP = 6;

export function dyeSteps(plain: Decoded, out: Decoded): { perThousand: number; steps: number; dyed: number } {
  const W = plain.width, H = plain.height, n = W * H;
  const change = new Float32Array(n), labs: Lab[] = new Array(n);
  for (let p = 0; p < n; p++) {
    labs[p] = labOf(plain, p);
    change[p] = deltaE(labs[p], labOf(out, p));
  }
  let steps = 0, dyed = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      if (change[p] > 3) dyed++;
      for (const q of [x + 1 < W ? p + 1 : -1, y + 1 < H ? p + W : -1]) {
        if (q < 0 || (change[p] < 1 && change[q] < 1)) continue;
        if (deltaE(labs[p], labs[q]) >= PHOTO_ALIKE) continue;
        if (Math.abs(change[p] - change[q]) > STEP) steps++;
      }
    }
  }
  return { perThousand: (1000 * steps) / Math.max(1, dyed), steps, dyed };
}

/** The box (SPECK_R pixels either side) over which undyedSpecks averages the change about a pixel. */
const SPECK_R = 5;

/**
 * Specks left undyed, or dyed at half strength, inside dyed hair: pixels the recolour changed by less than 0.6 of
 * the mean change over the (2 SPECK_R + 1)² box about them, where that mean is ΔE 25 or more (hair dyed
 * far from its colour all round). A seam of weaker strength in the dye shows as such pixels in a row.
 */
export function undyedSpecks(plain: Decoded, out: Decoded): number {
  const W = plain.width, H = plain.height, R = SPECK_R;
  const change = new Float32Array(W * H);
  for (let p = 0; p < W * H; p++) change[p] = deltaE(labOf(plain, p), labOf(out, p));
  const mean = new Float32Array(W * H);
  boxMean(change, W, H, R, mean, new Float32Array(W * H));
  // Pixels whose box lies inside the image only (boxMean clamps at the borders).
  let specks = 0;
  for (let y = R; y < H - R; y++) {
    for (let x = R, p = y * W + R; x < W - R; x++, p++) {
      if (mean[p] >= 25 && change[p] < 0.6 * mean[p]) specks++;
    }
  }
  return specks;
}
