/**
 * Steps in a recolour's edge where the photo has none: the dye stopping in the middle of a smooth shadow along
 * its 4-pixel grid, or flickering pixel by pixel along a soft edge, reads as a stepped, ragged line. Counted on
 * pairs of neighbouring pixels (right and below) that the photo shows alike (ΔE under PHOTO_ALIKE) and that the
 * recolour changed (one of them by ΔE 1 or more): a pair whose changes differ by more than STEP is a step.
 * Returned per 1000 pixels the recolour changed by more than ΔE 3, with those counts.
 */
import { deltaE, type Lab } from "../../server/imaging/local/color.ts";
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
