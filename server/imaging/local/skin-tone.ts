/** The mean skin colour of a face, sampled at mesh points on plain skin, and how skin-like a colour is. */
import type { Canvas } from "./blend.ts";
import { linearToLab, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { SKIN_SAMPLES } from "./landmarks.ts";
import { clamp01 } from "./ramps.ts";

/** Mean skin colour (linear) sampled at mesh points on plain skin. */
export function skinMeanLinear(img: Canvas, g: FaceGeometry): [number, number, number] {
  const s = [0, 0, 0];
  let n = 0;
  const d = img.data;
  for (const idx of SKIN_SAMPLES) {
    const [px, py] = g.pts[idx];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const x = Math.round(px) + dx, y = Math.round(py) + dy;
        if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
        const i = (y * img.width + x) * 3;
        s[0] += SRGB_TO_LINEAR[d[i]];
        s[1] += SRGB_TO_LINEAR[d[i + 1]];
        s[2] += SRGB_TO_LINEAR[d[i + 2]];
        n++;
      }
    }
  }
  return n ? [s[0] / n, s[1] / n, s[2] / n] : [0.4, 0.3, 0.25];
}

/**
 * Skin likelihood per colour (hair strands, glasses and shadows far from the
 * skin colour are left alone), cached per 6-bit colour cell (the weight
 * ramps over 16 ΔE, far wider than a cell): entry 0 = not computed yet, else
 * 1 + round(254 * weight). Reused by every job of a worker.
 */
let skinCache: Uint8Array | undefined;
/** The skin colour the cache was filled for (a layer asking for the same colour as the last one keeps the entries). */
let cachedFor: [number, number, number] | undefined;

export function skinWeights(skinLab: [number, number, number]): (r: number, g: number, b: number) => number {
  const cache = skinCache ??= new Uint8Array(1 << 18);
  if (!cachedFor || cachedFor.some((v, i) => v !== skinLab[i])) {
    cache.fill(0);
    cachedFor = [skinLab[0], skinLab[1], skinLab[2]];
  }
  return (r, g, b) => {
    const key = ((r >> 2) << 12) | ((g >> 2) << 6) | (b >> 2);
    let v = cache[key];
    if (v === 0) {
      const lab = linearToLab(
        SRGB_TO_LINEAR[(r & ~3) | 2],
        SRGB_TO_LINEAR[(g & ~3) | 2],
        SRGB_TO_LINEAR[(b & ~3) | 2],
      );
      const de = Math.hypot((lab[0] - skinLab[0]) * 0.6, lab[1] - skinLab[1], lab[2] - skinLab[2]);
      v = cache[key] = 1 + Math.round(254 * clamp01(1 - (de - 14) / 16));
    }
    return (v - 1) / 254;
  };
}
