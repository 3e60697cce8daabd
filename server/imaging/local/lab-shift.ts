/** The Lab colour shift hair and facial-hair recolouring paint through a soft mask. */
import type { Canvas } from "./blend.ts";
import { type Lab, labToLinear, linearToLab, linearToSrgbFloat, SRGB_TO_LINEAR } from "./color.ts";
import type { Mask } from "./masks.ts";

const LUT_N = 17;

/** Mask values at or below this are left alone (see applyLabShift). */
const FRINGE = 0.1;

/**
 * The recolour as a colour transform sRGB byte triple -> sRGB, tabulated
 * on a 17^3 grid (the Lab maths runs ~5k times instead of once per pixel; against
 * a 33^3 grid, tetrahedral interpolation differs by at most 5 levels, mean 1).
 *
 * - L: the mean moves to the swatch L (92 % of the way for darker targets, 80 %
 *   for lighter ones); the strand texture (each pixel's L offset from the
 *   mean) is kept, stretched a little when lightening dark hair a lot so the
 *   strands do not flatten into a grey sheet.
 * - a/b: the swatch's hue, with a chroma that follows the pixel's lightness
 *   (shadows in hair carry less colour than the swatch) plus 60 % of the
 *   pixel's own deviation from the hair mean; the result is capped relative
 *   to the swatch chroma (the bright, saturated red "Auburn" used to give).
 */
function shiftLut(mean: Lab, target: Lab): Float32Array {
  const [tL, ta, tb] = target;
  const tC = Math.hypot(ta, tb);
  const kL = tL < mean[0] ? 0.92 : 0.8;
  const gain = Math.min(1.6, Math.max(1, (tL - 20) / Math.max(15, mean[0] - 5)));
  const capC = 0.85 * tC + 4;
  const lut = new Float32Array(LUT_N * LUT_N * LUT_N * 3);
  let o = 0;
  for (let bi = 0; bi < LUT_N; bi++) {
    for (let gi = 0; gi < LUT_N; gi++) {
      for (let ri = 0; ri < LUT_N; ri++) {
        const r = SRGB_TO_LINEAR[Math.round((ri * 255) / (LUT_N - 1))];
        const g = SRGB_TO_LINEAR[Math.round((gi * 255) / (LUT_N - 1))];
        const b = SRGB_TO_LINEAR[Math.round((bi * 255) / (LUT_N - 1))];
        const [L, a, bb] = linearToLab(r, g, b);
        const Lo = Math.min(98, Math.max(0, mean[0] + (tL - mean[0]) * kL + (L - mean[0]) * gain));
        const follow = Math.pow(Math.min(1, Math.max(0.3, Lo / Math.max(8, tL))), 0.8);
        let ao = ta * follow + (a - mean[1]) * 0.6, bo = tb * follow + (bb - mean[2]) * 0.6;
        const c = Math.hypot(ao, bo);
        if (c > capC) {
          ao *= capC / c;
          bo *= capC / c;
        }
        const out = labToLinear(Lo, ao, bo);
        lut[o++] = linearToSrgbFloat(out[0]);
        lut[o++] = linearToSrgbFloat(out[1]);
        lut[o++] = linearToSrgbFloat(out[2]);
      }
    }
  }
  return lut;
}

/** Lab recolour (see shiftLut) through a (possibly subsampled) mask. */
export function applyLabShift(
  img: Canvas,
  mask: Mask,
  step: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  mean: Lab,
  target: Lab,
  opacity: number,
): void {
  const lut = shiftLut(mean, target);
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  const m = mask.data, mw = mask.w;
  const q = (LUT_N - 1) / 255;
  const sR = 3, sG = LUT_N * 3, sB = LUT_N * LUT_N * 3;
  // Row by row: the mask row is interpolated between grid nodes first (pixels
  // past the last grid node, as before, are left alone).
  const xe = Math.min(x1, x0 + (mw - 1) * step), ye = Math.min(y1, y0 + (mask.h - 1) * step);
  const row = new Float32Array(Math.max(0, xe - x0));
  for (let y = y0; y < ye; y++) {
    const j = Math.floor((y - y0) / step), fy = (y - y0) / step - j;
    let any = false;
    for (let i = 0; i < mw - 1; i++) {
      const k = j * mw + i;
      const l0 = (m[k] + (m[k + mw] - m[k]) * fy) * opacity;
      const l1 = (m[k + 1] + (m[k + mw + 1] - m[k + 1]) * fy) * opacity;
      const xa = x0 + i * step, xb = Math.min(xe, xa + step);
      if (l0 < 0.01 && l1 < 0.01) {
        row.fill(0, xa - x0, xb - x0);
        continue;
      }
      any = true;
      for (let x = xa; x < xb; x++) row[x - x0] = l0 + (l1 - l0) * ((x - xa) / step);
    }
    if (!any) continue;
    let o = (y * img.width + x0) * 3;
    for (let x = x0; x < xe; x++, o += 3) {
      const a = row[x - x0];
      // The mask's faint fringe (at or under FRINGE) is dropped, with a continuous ramp above it.
      if (a <= FRINGE) continue;
      const a1 = a >= 1 ? 1 : (a - FRINGE) / (1 - FRINGE);
      // Tetrahedral lookup (4 grid nodes instead of trilinear's 8, same nodes on the cube's diagonal).
      const cr = d[o], cg = d[o + 1], cb = d[o + 2];
      const rx = cr * q, gx = cg * q, bx = cb * q;
      let r0 = rx | 0, g0 = gx | 0, b0 = bx | 0;
      if (r0 === LUT_N - 1) r0--;
      if (g0 === LUT_N - 1) g0--;
      if (b0 === LUT_N - 1) b0--;
      const fr = rx - r0, fg = gx - g0, fb = bx - b0;
      const p0 = r0 * sR + g0 * sG + b0 * sB, p3 = p0 + sR + sG + sB;
      let p1: number, p2: number, w0: number, w1: number, w2: number, w3: number;
      if (fr >= fg) {
        if (fg >= fb) {
          p1 = p0 + sR, p2 = p1 + sG, w0 = 1 - fr, w1 = fr - fg, w2 = fg - fb, w3 = fb;
        } else if (fr >= fb) {
          p1 = p0 + sR, p2 = p1 + sB, w0 = 1 - fr, w1 = fr - fb, w2 = fb - fg, w3 = fg;
        } else {
          p1 = p0 + sB, p2 = p1 + sR, w0 = 1 - fb, w1 = fb - fr, w2 = fr - fg, w3 = fg;
        }
      } else if (fb >= fg) {
        p1 = p0 + sB, p2 = p1 + sG, w0 = 1 - fb, w1 = fb - fg, w2 = fg - fr, w3 = fr;
      } else if (fb >= fr) {
        p1 = p0 + sG, p2 = p1 + sB, w0 = 1 - fg, w1 = fg - fb, w2 = fb - fr, w3 = fr;
      } else {
        p1 = p0 + sG, p2 = p1 + sR, w0 = 1 - fg, w1 = fg - fr, w2 = fr - fb, w3 = fb;
      }
      const outR = lut[p0] * w0 + lut[p1] * w1 + lut[p2] * w2 + lut[p3] * w3;
      const outG = lut[p0 + 1] * w0 + lut[p1 + 1] * w1 + lut[p2 + 1] * w2 + lut[p3 + 1] * w3;
      const outB = lut[p0 + 2] * w0 + lut[p1 + 2] * w1 + lut[p2 + 2] * w2 + lut[p3 + 2] * w3;
      // The store rounds and clamps (Uint8ClampedArray).
      d[o] = cr + (outR - cr) * a1;
      d[o + 1] = cg + (outG - cg) * a1;
      d[o + 2] = cb + (outB - cb) * a1;
    }
  }
}
