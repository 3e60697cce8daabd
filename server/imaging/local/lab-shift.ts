/** The Lab colour shift hair and facial-hair recolouring paint through a soft mask. */
import type { Canvas } from "./blend.ts";
import {
  hueDegrees,
  type Lab,
  labToLinear,
  lightnessOf,
  linearToLab,
  linearToSrgbFloat,
  luminanceOfL,
  SRGB_TO_LINEAR,
} from "./color.ts";
import { boxMean, boxOver, type Mask } from "./masks.ts";
import { ramp } from "./ramps.ts";

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
 *   mean hue stays the swatch's). A golden shade's shadows turn toward red
 *   (SHADOW_WARMTH).
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
  const warmth = shadowWarmth(ta, tb);
  return (L, a, bb) => {
    const Lo = lightness(L);
    const rel = Math.min(1, Math.max(0.3, Lo / Math.max(8, tL)));
    const follow = Math.pow(rel, 0.8);
    const da = a - mean[1], db = bb - mean[2];
    const along = Math.max(0, tC * follow + 0.5 * (da * ux + db * uy));
    const across = 0.25 * (db * ux - da * uy);
    let ao = along * ux - across * uy, bo = along * uy + across * ux;
    if (warmth > 0 && rel < 1) {
      // A golden shade's shadows turn toward red (see SHADOW_WARMTH).
      const turn = -warmth * Math.min(1, (1 - rel) / 0.5);
      const cos = Math.cos(turn), sin = Math.sin(turn), at = ao * cos - bo * sin;
      bo = ao * sin + bo * cos;
      ao = at;
    }
    const c = Math.hypot(ao, bo), cap = Math.min(capC, CHROMA_PER_L * Lo + 2);
    if (c > cap) {
      ao *= cap / c;
      bo *= cap / c;
    }
    return inGamut(Lo, ao, bo);
  };
}

/**
 * Degrees a golden shade's hue turns toward red in the dyed hair's shadows, in full at half the shade's L* or
 * darker (in proportion above it). Light leaving hair in shadow has crossed more of the pigmented fibre, so it
 * is deeper and warmer: a blonde's shadows are amber, not a darker yellow. Held at the swatch's hue, Honey
 * Blonde's shadows and dark-based mid-tones (L* 35-50, at about 0.6 of the swatch's chroma) read khaki, olive
 * beside the skin in a warm photo (sample5@1319, sample1@773).
 */
const SHADOW_WARMTH = 15;
/**
 * The shades it applies to: hue past GOLDEN_FROM degrees (in full GOLDEN_SPAN further on: Honey Blonde's 77 and
 * the beard's Blonde's 82 in full, Caramel's 63 about half, the reds none; out again from GOLDEN_TO, toward
 * green) and chroma past GOLDEN_CHROMA (in full 10 further on: Platinum Blonde's 11, near neutral, keeps its
 * hue).
 */
const GOLDEN_FROM = 55, GOLDEN_SPAN = 15, GOLDEN_TO = 100, GOLDEN_CHROMA = 20;

/** The turn (radians) of a shade a*, b*'s hue in the hair's shadows (see SHADOW_WARMTH). */
function shadowWarmth(a: number, b: number): number {
  const hue = hueDegrees(a, b), c = Math.hypot(a, b);
  const golden = ramp(hue, GOLDEN_FROM, GOLDEN_FROM + GOLDEN_SPAN) *
    ramp(hue, GOLDEN_TO + GOLDEN_SPAN, GOLDEN_TO) * ramp(c, GOLDEN_CHROMA, GOLDEN_CHROMA + 10);
  return golden * SHADOW_WARMTH * Math.PI / 180;
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
 * the values for pixels x..x+n-1 of row y, `hi` and `lo` the cell's largest and
 * smallest corners (both scaled by the opacity) and `k` its top-left node.
 */
export type EdgeRefine = (
  row: Float32Array,
  from: number,
  x: number,
  y: number,
  n: number,
  hi: number,
  k: number,
  lo: number,
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

/** A mask's grid over the canvas: nodes every `step` pixels from (x0, y0), up to (x1, y1). */
export interface MaskGrid {
  mask: Mask;
  step: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The recolour's strength per pixel, row by row: the mask interpolated between grid nodes (pixels past the
 * last grid node are left alone), scaled by `opacity`, refined at edges by `edge` when given. Only the runs of
 * grid cells with a node at 0.01 or more are visited (the hair is a fraction of the box, and walking every cell
 * of every pixel row cost more than painting); `visit` gets each run's pixels pa..pb (from x0) of pixel row y,
 * in grid cells ia..ib of grid row j, fy of the way down, in `row` (indexed from x0).
 */
function strengthRows(
  grid: MaskGrid,
  opacity: number,
  edge: EdgeRefine | undefined,
  visit: (
    row: Float32Array,
    y: number,
    j: number,
    fy: number,
    ia: number,
    ib: number,
    pa: number,
    pb: number,
  ) => void,
): void {
  const { mask, step, x0, y0, x1, y1 } = grid;
  const m = mask.data, mw = mask.w;
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
            if (hi - lo > EDGE_STEP) edge(row, xa - x0, xa, y, xb - xa, hi, k, lo);
          }
        }
        if (any) visit(row, y, j, fy, ia, ib, ia * step, Math.min(xe - x0, ib * step));
      }
    }
  }
}

/**
 * Paints pixels pa..pb (from the grid's x0) of row y through the recolour's table `lut` at the strengths
 * `values` (indexed from x0), with `second` and `darken` (per grid node, bilinear like the mask) read over grid
 * cells ia..ib of grid row j, fy of the way down; `scratch` holds their rows.
 */
function paintStrengthRow(
  d: Uint8ClampedArray,
  width: number,
  grid: MaskGrid,
  lut: Float32Array,
  values: Float32Array,
  rowAt: { y: number; j: number; fy: number; ia: number; ib: number; pa: number; pb: number },
  scratch: { second: Float32Array; darken: Float32Array },
  second?: SecondTable,
  darken?: Float32Array,
): void {
  const { y, j, fy, ia, ib, pa, pb } = rowAt;
  if (second) planeRow(grid, second.data, scratch.second, j, ia, ib, fy);
  if (darken) planeRow(grid, darken, scratch.darken, j, ia, ib, fy);
  const o = (y * width + grid.x0 + pa) * 3;
  paintRow(d, lut, values, pa, o, pb - pa, second?.lut, scratch.second, darken ? scratch.darken : undefined);
}

/** A per-node plane over grid cells ia..ib of grid row j, bilinear like the mask, into `out` (indexed from x0). */
function planeRow(
  grid: MaskGrid,
  u: Float32Array,
  out: Float32Array,
  j: number,
  ia: number,
  ib: number,
  fy: number,
) {
  const { step, x0 } = grid, mw = grid.mask.w, xe = Math.min(grid.x1, x0 + (mw - 1) * step);
  for (let i = ia; i < ib; i++) {
    const k = j * mw + i;
    const l0 = u[k] + (u[k + mw] - u[k]) * fy, l1 = u[k + 1] + (u[k + mw + 1] - u[k + 1]) * fy;
    const xa = x0 + i * step, xb = Math.min(xe, xa + step);
    for (let x = xa; x < xb; x++) out[x - x0] = l0 + (l1 - l0) * ((x - xa) / step);
  }
  // Past the last node column, the last column's value (see dyeStrengths).
  if (ib === mw - 1) {
    const k = j * mw + mw - 1;
    out.fill(u[k] + (u[k + mw] - u[k]) * fy, xe - x0, grid.x1 - x0);
  }
}

/**
 * Lab recolour (see shiftLut) through a (possibly subsampled) mask at `opacity`, painted as it is read (the
 * beard's recolour; the hair's keeps its strengths: see dyeStrengths and paintStrengths).
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
): void {
  const grid = { mask, step, x0, y0, x1, y1 }, lut = shiftLut(mean, target);
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  const scratch = rowScratch(grid);
  strengthRows(grid, opacity, undefined, (row, y, j, fy, ia, ib, pa, pb) => {
    paintStrengthRow(d, img.width, grid, lut, row, { y, j, fy, ia, ib, pa, pb }, scratch);
  });
}

/** The row buffers paintStrengthRow reads `second` and `darken` into (empty for what is not given). */
function rowScratch(grid: MaskGrid, second?: SecondTable, darken?: Float32Array) {
  const n = Math.max(0, grid.x1 - grid.x0);
  return { second: new Float32Array(second ? n : 0), darken: new Float32Array(darken ? n : 0) };
}

/**
 * A recolour's strength per pixel (see strengthRows), smoothed where the dye stops by a guided filter on the
 * photo's luma (see guidedSmooth), kept as bytes (strength x 255) over the rectangle of the pixels it paints
 * (x0, y0: canvas pixels). It does not depend on the shade: one serves every shade a mask is painted in.
 */
export interface Strengths {
  x0: number;
  y0: number;
  w: number;
  h: number;
  data: Uint8Array;
}

/**
 * The strengths of `grid`'s recolour (see Strengths). `shape`, when given, edits the plane of strengths (bw x bh
 * from canvas pixel x0, y0) before it is smoothed.
 */
export function dyeStrengths(
  img: Canvas,
  grid: MaskGrid,
  opacity: number,
  edge: EdgeRefine | undefined,
  smooth: { radius: number; eps: number },
  shape?: (plane: Float32Array, x0: number, y0: number, bw: number, bh: number) => void,
): Strengths {
  const { mask, step, x0, y0, x1, y1 } = grid;
  const bw = Math.max(0, Math.min(x1, x0 + (mask.w - 1) * step) - x0);
  const bh = Math.max(0, Math.min(y1, y0 + (mask.h - 1) * step) - y0);
  const plane = new Float32Array(bw * bh);
  strengthRows(grid, opacity, edge, (row, y, _j, _fy, _ia, _ib, pa, pb) => {
    plane.set(row.subarray(pa, pb), (y - y0) * bw + pa);
  });
  shape?.(plane, x0, y0, bw, bh);
  guidedSmooth(plane, img, x0, y0, bw, bh, smooth.radius, smooth.eps);
  // The rectangle of what is painted (over FRINGE; none: empty, at the plane's far corner).
  const painted = boxOver(plane, bw, bh, FRINGE) ?? { x0: bw, y0: bh, x1: -1, y1: -1 };
  const rx0 = painted.x0, ry0 = painted.y0;
  let rx1 = painted.x1 + 1, ry1 = painted.y1 + 1;
  // Past the last grid node, up to the box's edge (x1, y1: the canvas's, where the hair reaches it), each pixel
  // takes the strength of the last pixel the grid reaches in its row or column: hair touching the canvas's
  // right or bottom edge was left a 3-4 px undyed strip along it (the grid's last node lies up to step - 1
  // pixels short of the edge).
  if (rx1 > rx0 && rx1 === bw) rx1 = x1 - x0;
  if (ry1 > ry0 && ry1 === bh) ry1 = y1 - y0;
  const w = Math.max(0, rx1 - rx0), h = Math.max(0, ry1 - ry0), data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const k = Math.min(y + ry0, bh - 1) * bw;
    for (let x = 0; x < w; x++) data[y * w + x] = Math.round(plane[k + Math.min(x + rx0, bw - 1)] * 255);
  }
  return { x0: x0 + rx0, y0: y0 + ry0, w, h, data };
}

/**
 * Paints `s` (see dyeStrengths) through the recolour's table, with `second` and `darken` as applyLabShift, each
 * strength times `gain` (capped at 1).
 */
export function paintStrengths(
  img: Canvas,
  s: Strengths,
  grid: MaskGrid,
  mean: Lab,
  target: Lab,
  second?: SecondTable,
  darken?: Float32Array,
  gain = 1,
): void {
  const lut = shiftLut(mean, target), { step, x0, y0 } = grid, mw = grid.mask.w;
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  const scratch = rowScratch(grid, second, darken);
  const values = new Float32Array(Math.max(0, grid.x1 - x0));
  for (let r = 0; r < s.h; r++) {
    // Rows past the last grid row (see dyeStrengths) read the planes' last row.
    const y = s.y0 + r, j = Math.max(0, Math.min(grid.mask.h - 2, Math.floor((y - y0) / step)));
    const fy = Math.min(1, (y - y0) / step - j);
    let pa = -1, pb = -1;
    for (let x = 0, k = r * s.w; x < s.w; x++, k++) {
      const v = Math.min(1, s.data[k] * gain / 255);
      values[s.x0 - x0 + x] = v;
      if (v > FRINGE) {
        if (pa < 0) pa = s.x0 - x0 + x;
        pb = s.x0 - x0 + x + 1;
      }
    }
    if (pa < 0) continue;
    const ia = Math.floor(pa / step), ib = Math.min(mw - 1, Math.ceil(pb / step));
    paintStrengthRow(d, img.width, grid, lut, values, { y, j, fy, ia, ib, pa, pb }, scratch, second, darken);
  }
}

/** Tiles (pixels a side) that guidedSmooth filters on their own. */
const SMOOTH_TILE = 32;
/**
 * Only tiles where the dye ends are filtered: their 3x3 tiles hold a value at or under SMOOTH_LOW (undyed) and
 * one at or over SMOOTH_HIGH (dyed). Inside the hair the per-pixel refinement's values stand as they are.
 */
const SMOOTH_LOW = 0.1, SMOOTH_HIGH = 0.5;

/**
 * Fast guided filter (He and Sun, 2015) of `p` (bw x bh, in place) with the canvas's luma over the same box as
 * the guide: where the photo has an edge the values keep theirs; where it is smooth they are averaged over
 * about `radius` pixels. The filter's coefficients are computed at half resolution over the rectangle of the
 * tiles where the dye stops (see SMOOTH_LOW) with the margin they read, and applied at full resolution in those
 * tiles only.
 */
function guidedSmooth(
  p: Float32Array,
  img: Canvas,
  x0: number,
  y0: number,
  bw: number,
  bh: number,
  radius: number,
  eps: number,
): void {
  const d = img.data, W = img.width, T = SMOOTH_TILE;
  const rl = Math.max(1, Math.round(radius / 2)), m = 4 * rl + 2;
  // Each tile's least and greatest value; a tile is filtered when its 3x3 tiles hold both a value at or under
  // SMOOTH_LOW and one at or over SMOOTH_HIGH (its margin, m, is under a tile).
  const tw = Math.ceil(bw / T), th = Math.ceil(bh / T);
  const tlo = new Float32Array(tw * th).fill(Infinity), thi = new Float32Array(tw * th).fill(-Infinity);
  for (let y = 0; y < bh; y++) {
    const trow = Math.floor(y / T) * tw;
    for (let t = 0; t < tw; t++) {
      let lo = tlo[trow + t], hi = thi[trow + t];
      for (let k = y * bw + t * T, e = y * bw + Math.min(bw, (t + 1) * T); k < e; k++) {
        const v = p[k];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      tlo[trow + t] = lo, thi[trow + t] = hi;
    }
  }
  const flagged = new Uint8Array(tw * th);
  let rx0 = bw, ry0 = bh, rx1 = 0, ry1 = 0;
  for (let j = 0; j < th; j++) {
    for (let i = 0; i < tw; i++) {
      let lo = Infinity, hi = -Infinity;
      for (let jj = Math.max(0, j - 1); jj <= Math.min(th - 1, j + 1); jj++) {
        for (let ii = Math.max(0, i - 1); ii <= Math.min(tw - 1, i + 1); ii++) {
          lo = Math.min(lo, tlo[jj * tw + ii]), hi = Math.max(hi, thi[jj * tw + ii]);
        }
      }
      if (!(lo <= SMOOTH_LOW && hi >= SMOOTH_HIGH)) continue;
      flagged[j * tw + i] = 1;
      rx0 = Math.min(rx0, i * T), ry0 = Math.min(ry0, j * T);
      rx1 = Math.max(rx1, Math.min(bw, (i + 1) * T)), ry1 = Math.max(ry1, Math.min(bh, (j + 1) * T));
    }
  }
  if (rx1 <= rx0) return;
  // The rectangle read, on even pixels, and its half-resolution grid (2x2 means; a last odd row or column alone).
  const ax = Math.max(0, rx0 - m) & ~1, ay = Math.max(0, ry0 - m) & ~1;
  const bx = Math.min(bw, rx1 + m), by = Math.min(bh, ry1 + m);
  const lw = (bx - ax + 1) >> 1, lh = (by - ay + 1) >> 1, n = lw * lh;
  const luma = (x: number, y: number) => {
    const o = ((y + y0) * W + x0 + x) * 3;
    return (0.299 * d[o] + 0.587 * d[o + 1] + 0.114 * d[o + 2]) / 255;
  };
  const lI = new Float32Array(n),
    lp = new Float32Array(n),
    II = new Float32Array(n),
    Ip = new Float32Array(n);
  const tmp = new Float32Array(n), mI = new Float32Array(n), mp = new Float32Array(n);
  for (let y = ay; y < by; y++) {
    for (let x = ax, c = ((y - ay) >> 1) * lw; x < bx; x += 2, c++) {
      const two = x + 1 < bx;
      lI[c] += luma(x, y) + (two ? luma(x + 1, y) : 0);
      lp[c] += p[y * bw + x] + (two ? p[y * bw + x + 1] : 0);
      tmp[c] += two ? 2 : 1;
    }
  }
  for (let c = 0; c < n; c++) {
    lI[c] /= tmp[c], lp[c] /= tmp[c];
    II[c] = lI[c] * lI[c], Ip[c] = lI[c] * lp[c];
  }
  boxMean(lI, lw, lh, rl, mI, tmp);
  boxMean(lp, lw, lh, rl, mp, tmp);
  boxMean(II, lw, lh, rl, II, tmp);
  boxMean(Ip, lw, lh, rl, Ip, tmp);
  // a and b, in II and Ip, then their means (in mI and mp).
  for (let c = 0; c < n; c++) {
    const a = (Ip[c] - mI[c] * mp[c]) / (II[c] - mI[c] * mI[c] + eps);
    II[c] = a, Ip[c] = mp[c] - a * mI[c];
  }
  boxMean(II, lw, lh, rl, mI, tmp);
  boxMean(Ip, lw, lh, rl, mp, tmp);
  // Full resolution, in the flagged tiles: a and b bilinear between the half-resolution cells' centres.
  const cellOf = (v: number, cells: number): [number, number, number] => {
    const f = Math.min(cells - 1, Math.max(0, (v - 0.5) / 2)),
      i0 = Math.max(0, Math.min(cells - 2, Math.floor(f)));
    return cells > 1 ? [i0, i0 + 1, f - i0] : [0, 0, 0];
  };
  const colA = new Int32Array(bw), colB = new Int32Array(bw), colW = new Float32Array(bw);
  for (let x = rx0; x < rx1; x++) [colA[x], colB[x], colW[x]] = cellOf(x - ax, lw);
  for (let j = 0; j < th; j++) {
    for (let i = 0; i < tw; i++) {
      if (!flagged[j * tw + i]) continue;
      const xa = i * T, xb = Math.min(bw, xa + T);
      for (let y = j * T; y < Math.min(bh, (j + 1) * T); y++) {
        const [y0l, y1l, wy] = cellOf(y - ay, lh), r0 = y0l * lw, r1 = y1l * lw;
        for (let x = xa; x < xb; x++) {
          const c0 = colA[x], c1 = colB[x], wx = colW[x];
          const a0 = mI[r0 + c0] + (mI[r0 + c1] - mI[r0 + c0]) * wx;
          const a1 = mI[r1 + c0] + (mI[r1 + c1] - mI[r1 + c0]) * wx;
          const b0 = mp[r0 + c0] + (mp[r0 + c1] - mp[r0 + c0]) * wx;
          const b1 = mp[r1 + c0] + (mp[r1 + c1] - mp[r1 + c0]) * wx;
          const v = (a0 + (a1 - a0) * wy) * luma(x, y) + b0 + (b1 - b0) * wy;
          p[y * bw + x] = v < 0 ? 0 : v > 1 ? 1 : v;
        }
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
