/** The Lab colour shift hair and facial-hair recolouring paint through a soft mask. */
import type { Canvas } from "./blend.ts";
import {
  type Lab,
  labToLinear,
  lightnessOf,
  linearToLab,
  linearToSrgbFloat,
  luminanceOfL,
  SRGB_TO_LINEAR,
} from "./color.ts";
import type { Mask } from "./masks.ts";

const LUT_N = 17;

/** Per sRGB byte: the LUT cell it falls in (the last cell holds 255) and the fraction across it. */
const CELL_BASE = new Int32Array(256), CELL_FRAC = new Float32Array(256);
for (let v = 0; v < 256; v++) {
  const x = (v * (LUT_N - 1)) / 255;
  CELL_BASE[v] = Math.min(LUT_N - 2, Math.floor(x));
  CELL_FRAC[v] = x - CELL_BASE[v];
}

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
 *   strands do not flatten into a grey sheet; `lift` L* is added (see liftedTable) and
 *   L* under TOE_L is compressed toward black instead of clipped. Hair lightened: a pixel darker than the
 *   mean is no lighter than its luminance scaled as the mean's is (SHADOW_GAMMA): a dye adds no light.
 * - a/b: the swatch's hue. The chroma follows the pixel's lightness (shadows
 *   in hair carry less colour than the swatch) plus half of the pixel's own
 *   deviation from the hair mean along that hue (a quarter across it, so the
 *   mean hue stays the swatch's).
 * - Saturation: dyed hair never shows the swatch's full chroma on every strand
 *   (a uniform fire-engine red is what "Auburn" gave at full chroma). The
 *   chroma is capped at CHROMA_OF_SWATCH of the swatch's and at
 *   CHROMA_PER_L times the pixel's lightness (dark strands hold little colour).
 * - Gamut: a colour outside sRGB loses chroma at constant L and hue (clipping
 *   channels instead turned copper orange-brown, 9-18 degrees off its hue).
 */
function shiftLut(mean: Lab, target: Lab, lift = 0): Float32Array {
  const shift = shiftFn(mean, target, lift);
  return tabulate((r, g, b) => shift(...linearToLab(r, g, b)));
}

/** A colour transform (linear RGB in, linear RGB out) tabulated on the LUT_N^3 sRGB grid. */
function tabulate(f: (r: number, g: number, b: number) => [number, number, number]): Float32Array {
  const lut = new Float32Array(LUT_N * LUT_N * LUT_N * 3);
  let o = 0;
  for (let bi = 0; bi < LUT_N; bi++) {
    for (let gi = 0; gi < LUT_N; gi++) {
      for (let ri = 0; ri < LUT_N; ri++) {
        const out = f(
          SRGB_TO_LINEAR[Math.round((ri * 255) / (LUT_N - 1))],
          SRGB_TO_LINEAR[Math.round((gi * 255) / (LUT_N - 1))],
          SRGB_TO_LINEAR[Math.round((bi * 255) / (LUT_N - 1))],
        );
        lut[o++] = linearToSrgbFloat(out[0]);
        lut[o++] = linearToSrgbFloat(out[1]);
        lut[o++] = linearToSrgbFloat(out[2]);
      }
    }
  }
  return lut;
}

/**
 * The lightness shiftLut gives a pixel of lightness L* `L` (its chroma and hue aside): the hair's mean moves
 * toward the shade, each pixel keeps its offset from the mean (stretched when dark hair is lightened a lot),
 * and a shadow of hair lightened is no lighter than its luminance scaled as the mean's (see SHADOW_GAMMA).
 */
export function shiftedLightness(mean: Lab, target: Lab, lift = 0): (L: number) => number {
  const tL = target[0];
  const kL = tL < mean[0] ? 0.92 : 0.8;
  const gain = Math.min(1.6, Math.max(1, (tL - 20) / Math.max(15, mean[0] - 5)));
  // Hair lightened: the mean's luminance after and before (see below).
  const meanY = luminanceOfL(mean[0]),
    meanOutY = luminanceOfL(toeL(Math.min(98, mean[0] + (tL - mean[0]) * kL + lift)));
  return (L) => {
    const Lo = toeL(Math.min(98, mean[0] + (tL - mean[0]) * kL + stretched(L - mean[0], gain) + lift));
    // A dye scales the strands' reflectance; it adds no light. Hair lightened keeps each shadow at least as
    // dark as its luminance scaled like the mean's (SHADOW_GAMMA): by its L* offset alone, near-black hair's
    // crushed shadows (L* 0-4 on sample1@773's hair and beside her jaw) went to L* 21 (median, Copper Red), a
    // flat brown slab without depth; now L* 11.
    return tL > mean[0] && L < mean[0]
      ? Math.min(Lo, lightnessOf(meanOutY * (luminanceOfL(L) / meanY) ** SHADOW_GAMMA))
      : Lo;
  };
}

/** shiftLut's mapping of one Lab colour to linear RGB. */
function shiftFn(
  mean: Lab,
  target: Lab,
  lift: number,
): (L: number, a: number, b: number) => [number, number, number] {
  const [tL, ta, tb] = target;
  const tC = Math.hypot(ta, tb);
  // The swatch's hue direction (any direction for a grey swatch: no chroma is added along it).
  const ux = tC > 1e-6 ? ta / tC : 1, uy = tC > 1e-6 ? tb / tC : 0;
  const capC = CHROMA_OF_SWATCH * tC + 3;
  const lightness = shiftedLightness(mean, target, lift);
  return (L, a, bb) => {
    const Lo = lightness(L);
    const follow = Math.pow(Math.min(1, Math.max(0.3, Lo / Math.max(8, tL))), 0.8);
    const da = a - mean[1], db = bb - mean[2];
    const along = Math.max(0, tC * follow + 0.5 * (da * ux + db * uy));
    const across = 0.25 * (db * ux - da * uy);
    let ao = along * ux - across * uy, bo = along * uy + across * ux;
    const c = Math.hypot(ao, bo), cap = Math.min(capC, CHROMA_PER_L * Lo + 2);
    if (c > cap) {
      ao *= cap / c;
      bo *= cap / c;
    }
    return inGamut(Lo, ao, bo);
  };
}

/**
 * The recolour for pixels that blend hair with skin (a soft hairline: fine hairs over the forehead, or the
 * photo's blur), `share(L)` being a pixel's share of hair by its lightness. shiftLut maps a pixel by its
 * offset from the hair's mean, stretched when dark hair is lightened a lot: a blended pixel, far lighter
 * than any strand, went to white and out of gamut (a grey band between the forehead and dark hair dyed
 * copper). A blend of hair and skin in the light is dyed as such: the hair's old colour in it (its mean)
 * is replaced by the new one, in linear light, the skin's part kept (each pixel's share is its paint
 * strength: see softHairline). A pixel that is nearly all hair takes shiftLut's colour, its strands kept.
 */
export function hairlineTable(mean: Lab, target: Lab, share: (L: number) => number): Float32Array {
  const shift = shiftFn(mean, target, 0);
  const from = labToLinear(mean[0], mean[1], mean[2]), to = shift(mean[0], mean[1], mean[2]);
  const delta = [0, 1, 2].map((c) => to[c] - from[c]);
  return tabulate((r, g, b) => {
    const lab = linearToLab(r, g, b);
    const strands = shift(lab[0], lab[1], lab[2]);
    const blend = [r, g, b].map((v, c) => Math.min(1, Math.max(0, v + delta[c])));
    // Blended pixels (share under STRANDS_FROM) take the blend's colour, pixels of hair alone shiftLut's.
    const w = Math.min(1, Math.max(0, (share(lab[0]) - STRANDS_FROM) / (1 - STRANDS_FROM)));
    return [0, 1, 2].map((c) => blend[c] + (strands[c] - blend[c]) * w) as [number, number, number];
  });
}

/** Share of hair from which a blended pixel starts to take the strands' recolour (see hairlineTable). */
const STRANDS_FROM = 0.6;

/**
 * The strands' L* offsets from the hair's mean are stretched by `gain` up to this many L*; the rest of an
 * offset is kept as it is. Stretched whole, lighter lengths and sheen on dark hair dyed copper (30-45 L*
 * above its mean) went to L* 98: white strands, their colour lost out of gamut.
 */
const STRETCH_SPAN = 12;
/**
 * Dark hair lightened (`gain` > 1): what lies further above the mean than STRETCH_SPAN (lighter lengths,
 * bleached ends, sheen) counts this share. A dye deposits its colour: lighter hair takes the shade about as
 * light as the rest, a little lighter, not white.
 */
const BEYOND_SPAN = 0.5;

function stretched(offset: number, gain: number): number {
  const inside = Math.max(-STRETCH_SPAN, Math.min(STRETCH_SPAN, offset));
  return inside * gain + (offset - inside) * (offset > inside && gain > 1 ? BEYOND_SPAN : 1);
}

/**
 * Hair lightened: a shadow's luminance, relative to the mean's, is kept raised to this power at least (see
 * shiftFn). At 1 (the ratio kept) the synthetic cornrows' shaded weave barely took Auburn (93 % of the braid
 * pixels moved toward it; the hair tests ask 95 %); at 0.7 the darkest shadows keep a little of the shade
 * (99.8 %).
 */
const SHADOW_GAMMA = 0.7;

/** Below this L* the recolour's lightness is compressed toward black instead of clipped (see toeL). */
const TOE_L = 8;

/**
 * L* below TOE_L approaches 0 exponentially (same value and slope at TOE_L).
 * Light hair dyed much darker keeps its strands' L* offsets, which drove its
 * dark roots below L* 0: clipped, they were a flat black cap without strands.
 */
function toeL(L: number): number {
  return L >= TOE_L ? L : TOE_L * Math.exp((L - TOE_L) / TOE_L);
}

/** Share of the swatch's chroma the recolour may reach (see shiftLut). */
export const CHROMA_OF_SWATCH = 0.8;
/** Chroma per unit of L* the recolour may reach (see shiftLut). */
export const CHROMA_PER_L = 1.05;

/** Lab -> linear RGB inside the sRGB gamut: chroma is reduced (L and hue kept) until it fits. */
function inGamut(L: number, a: number, b: number): [number, number, number] {
  const fits = (c: number[]) => c.every((v) => v >= -1e-4 && v <= 1.0001);
  let out = labToLinear(L, a, b);
  if (fits(out)) return out;
  let lo = 0, hi = 1;
  for (let i = 0; i < 7; i++) {
    const m = (lo + hi) / 2;
    if (fits(labToLinear(L, a * m, b * m))) lo = m;
    else hi = m;
  }
  out = labToLinear(L, a * lo, b * lo);
  return out;
}

/**
 * Refines the interpolated mask per pixel where a grid cell straddles an edge
 * (its corner nodes differ by more than EDGE_STEP): `row[from..from+n)` holds
 * the values for pixels x..x+n-1 of row y, `hi` the cell's largest corner and
 * `k` its top-left node.
 */
export type EdgeRefine = (
  row: Float32Array,
  from: number,
  x: number,
  y: number,
  n: number,
  hi: number,
  k: number,
) => void;

const EDGE_STEP = 0.25;

/**
 * A second colour table over the mask's grid: per node, the share (0..1) of
 * the pixel's colour taken from `lut` instead of the recolour's own table.
 */
export interface SecondTable {
  data: Float32Array;
  lut: Float32Array;
}

/**
 * Lab recolour (see shiftLut) through a (possibly subsampled) mask, refined at
 * edges by `edge` when given, with `second` blended in per pixel when given
 * (liftedTable, hairlineTable), and, with `darken` (per grid node, bilinear
 * like the mask), that many sRGB levels taken off each recoloured pixel (the
 * dye's deposit on lighter lengths: see hair-deposit.ts).
 */
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
  edge?: EdgeRefine,
  second?: SecondTable,
  darken?: Float32Array,
): void {
  const lut = shiftLut(mean, target);
  const secondRow = new Float32Array(second ? Math.max(0, x1 - x0) : 0);
  const darkenRow = new Float32Array(darken ? Math.max(0, x1 - x0) : 0);
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  const m = mask.data, mw = mask.w;
  // A per-node plane over grid cells ia..ib of grid row j, bilinear like the mask, into `out` (per pixel of
  // pixel row fy of the cell).
  const planeRow = (u: Float32Array, out: Float32Array, j: number, ia: number, ib: number, fy: number) => {
    for (let i = ia; i < ib; i++) {
      const k = j * mw + i;
      const l0 = u[k] + (u[k + mw] - u[k]) * fy, l1 = u[k + 1] + (u[k + mw + 1] - u[k + 1]) * fy;
      const xa = x0 + i * step, xb = Math.min(xe, xa + step);
      for (let x = xa; x < xb; x++) out[x - x0] = l0 + (l1 - l0) * ((x - xa) / step);
    }
  };
  // Row by row: the mask row is interpolated between grid nodes first (pixels
  // past the last grid node, as before, are left alone). Only the runs of grid
  // cells with a node at 0.01 or more are visited: the hair is a fraction of the
  // box, and walking every cell of every pixel row cost more than painting.
  const xe = Math.min(x1, x0 + (mw - 1) * step), ye = Math.min(y1, y0 + (mask.h - 1) * step);
  const row = new Float32Array(Math.max(0, xe - x0));
  const runs = new Int32Array(mw + 1);
  const least = 0.01 / opacity;
  for (let j = 0; j * step + y0 < ye; j++) {
    // Runs [start, end) of cells in grid row j whose corner nodes are not all under `least`.
    let nRuns = 0, open = -1;
    for (let i = 0; i < mw - 1; i++) {
      const k = j * mw + i;
      const on = m[k] >= least || m[k + 1] >= least || m[k + mw] >= least || m[k + mw + 1] >= least;
      if (on && open < 0) open = i;
      else if (!on && open >= 0) runs[nRuns++] = open, runs[nRuns++] = i, open = -1;
    }
    if (open >= 0) runs[nRuns++] = open, runs[nRuns++] = mw - 1;
    if (nRuns === 0) continue;
    for (let y = y0 + j * step, yEnd = Math.min(ye, y + step); y < yEnd; y++) {
      const fy = (y - y0) / step - j;
      for (let r = 0; r < nRuns; r += 2) {
        let any = false;
        const ia = runs[r], ib = runs[r + 1];
        for (let i = ia; i < ib; i++) {
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
          if (edge) {
            const hi = Math.max(m[k], m[k + 1], m[k + mw], m[k + mw + 1]) * opacity;
            const lo = Math.min(m[k], m[k + 1], m[k + mw], m[k + mw + 1]) * opacity;
            if (hi - lo > EDGE_STEP) edge(row, xa - x0, xa, y, xb - xa, hi, k);
          }
        }
        if (!any) continue;
        const pa = ia * step, pb = Math.min(xe - x0, ib * step);
        if (second) planeRow(second.data, secondRow, j, ia, ib, fy);
        if (darken) planeRow(darken, darkenRow, j, ia, ib, fy);
        paintRow(
          d,
          lut,
          row,
          pa,
          (y * img.width + x0 + pa) * 3,
          pb - pa,
          second?.lut,
          secondRow,
          darken ? darkenRow : undefined,
        );
      }
    }
  }
}

/** The recolour's colour table (see shiftLut) `lift` L* lighter, its strands' offsets kept. */
export function liftedTable(mean: Lab, target: Lab, lift: number): Float32Array {
  return shiftLut(mean, target, lift);
}

/**
 * Recolours n pixels from byte offset o through the table, each by its mask
 * value alpha[k..] (values at or under FRINGE are left alone); with `lut2`,
 * each pixel's colour is the tables' blend by share[k..] (0: `lut`, 1: `lut2`);
 * with `darken`, darken[k..] sRGB levels are taken off the recoloured colour.
 */
export function paintRow(
  d: Uint8ClampedArray,
  lut: Float32Array,
  alpha: Float32Array,
  k: number,
  o: number,
  n: number,
  lut2?: Float32Array,
  share?: Float32Array,
  darken?: Float32Array,
): void {
  const sR = 3, sG = LUT_N * 3, sB = LUT_N * LUT_N * 3;
  const e = k + n;
  for (; k < e; k++, o += 3) {
    const a = alpha[k];
    // The mask's faint fringe (at or under FRINGE) is dropped, with a continuous ramp above it.
    if (a <= FRINGE) continue;
    const a1 = a >= 1 ? 1 : (a - FRINGE) / (1 - FRINGE);
    // Tetrahedral lookup (4 grid nodes instead of trilinear's 8, same nodes on the cube's diagonal).
    const cr = d[o], cg = d[o + 1], cb = d[o + 2];
    const fr = CELL_FRAC[cr], fg = CELL_FRAC[cg], fb = CELL_FRAC[cb];
    const p0 = CELL_BASE[cr] * sR + CELL_BASE[cg] * sG + CELL_BASE[cb] * sB, p3 = p0 + sR + sG + sB;
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
    let outR = lut[p0] * w0 + lut[p1] * w1 + lut[p2] * w2 + lut[p3] * w3;
    let outG = lut[p0 + 1] * w0 + lut[p1 + 1] * w1 + lut[p2 + 1] * w2 + lut[p3 + 1] * w3;
    let outB = lut[p0 + 2] * w0 + lut[p1 + 2] * w1 + lut[p2 + 2] * w2 + lut[p3 + 2] * w3;
    const t = lut2 ? share![k] : 0;
    if (t > 0.01) {
      const q = lut2!;
      outR += (q[p0] * w0 + q[p1] * w1 + q[p2] * w2 + q[p3] * w3 - outR) * t;
      outG += (q[p0 + 1] * w0 + q[p1 + 1] * w1 + q[p2 + 1] * w2 + q[p3 + 1] * w3 - outG) * t;
      outB += (q[p0 + 2] * w0 + q[p1 + 2] * w1 + q[p2 + 2] * w2 + q[p3 + 2] * w3 - outB) * t;
    }
    if (darken) {
      const v = darken[k];
      outR -= v, outG -= v, outB -= v;
    }
    // The store rounds and clamps (Uint8ClampedArray).
    d[o] = cr + (outR - cr) * a1;
    d[o + 1] = cg + (outG - cg) * a1;
    d[o + 2] = cb + (outB - cb) * a1;
  }
}
