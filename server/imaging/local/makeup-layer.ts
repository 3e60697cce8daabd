/** Small tools every makeup layer shares: clamping, the soft-layer grid, a multiply LUT. */
import { type Canvas, channelLut } from "./blend.ts";
import { boundsOf, createMask, type Mask, type Point } from "./masks.ts";

export function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/** Soft layers (large feather sigma) rasterise their masks at 1/SOFT_STEP resolution. */
export const SOFT_STEP = 2;

export const toGrid = (pts: Point[], step: number): Point[] =>
  pts.map((p): Point => [p[0] / step, p[1] / step]);

/** An empty mask on a 1/step grid around canvas points (padding in canvas pixels). */
export function gridMask(img: Canvas, pts: Point[], pad: number, step: number): Mask {
  return createMask(
    boundsOf(toGrid(pts, step), pad / step, Math.ceil(img.width / step), Math.ceil(img.height / step)),
  );
}

export const multiplyLut = (r: number, g: number, b: number) => {
  const f = [r, g, b];
  return channelLut((v, k) => v * f[k]);
};
