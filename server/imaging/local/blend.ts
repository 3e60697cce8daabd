/**
 * Per-pixel blending of a layer into the canvas through a soft mask:
 * `out = orig + (effect - orig) * mask * opacity`, computed in linear light.
 */
import { linearToSrgb, luminance, SRGB_TO_LINEAR } from "./color.ts";
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

/** Blends `effect` over the canvas through `mask` at `opacity`. `step` as in maskRow. */
export function blendLayer(
  img: Canvas,
  mask: Mask,
  opacity: number,
  effect: Effect,
  step = 1,
): void {
  if (opacity <= 0) return;
  const px = new Float32Array(3);
  const d = img.data, W = img.width;
  const [x0, y0, x1, y1] = maskSpan(mask, step, W, img.height);
  const row = scratchRow(x1 - x0);
  for (let y = y0; y < y1; y++) {
    if (!maskRow(mask, step, y, x0, x1, row)) continue;
    for (let x = x0; x < x1; x++) {
      const a = row[x - x0] * opacity;
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
      sum += m * luminance(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
      n += m;
    }
  }
  return n > 0 ? sum / n : 0.1;
}

/**
 * Mean linear colour of the canvas under the cells of `m` at `least` or more, or undefined when there are none.
 * The mask may be stored at 1/`step` of the canvas (a cell reads its top-left canvas pixel); pixels whose sRGB
 * bytes `skip` holds for are left out.
 */
export function maskedMeanLinear(
  img: Canvas,
  m: Mask,
  least = 0.5,
  step = 1,
  skip?: (r: number, g: number, b: number) => boolean,
): number[] | undefined {
  const s = [0, 0, 0], d = img.data;
  let n = 0;
  for (let j = 0; j < m.h; j++) {
    for (let i = 0; i < m.w; i++) {
      if (m.data[j * m.w + i] < least) continue;
      const x = Math.min(img.width - 1, (m.x + i) * step), y = Math.min(img.height - 1, (m.y + j) * step);
      const o = (y * img.width + x) * 3;
      if (skip?.(d[o], d[o + 1], d[o + 2])) continue;
      for (let k = 0; k < 3; k++) s[k] += SRGB_TO_LINEAR[d[o + k]];
      n++;
    }
  }
  return n > 0 ? s.map((v) => v / n) : undefined;
}

/**
 * Per-channel effect table: entry `ch * 256 + v` is the effect colour (linear
 * light) of channel `ch` for the sRGB byte `v` (`f` gets that byte in linear light).
 */
export function channelLut(f: (lin: number, ch: number) => number): Float32Array {
  const lut = new Float32Array(768);
  for (let ch = 0; ch < 3; ch++) {
    for (let v = 0; v < 256; v++) lut[ch * 256 + v] = f(SRGB_TO_LINEAR[v], ch);
  }
  return lut;
}

/**
 * Mask values along canvas row `y`, columns x0..x1-1, into `row` (index 0 =
 * x0). The mask may be stored at 1/`step` of the canvas resolution (its
 * x, y, w, h then count grid cells; cell centres sit at canvas (i + 0.5) *
 * step) and is sampled bilinearly, 0 outside. Returns false if the row is all 0.
 */
export function maskRow(
  m: Mask,
  step: number,
  y: number,
  x0: number,
  x1: number,
  row: Float32Array,
): boolean {
  const d = m.data, mw = m.w;
  if (step === 1) {
    const r = y - m.y;
    if (r < 0 || r >= m.h) return false;
    const o = r * mw - m.x;
    for (let x = x0; x < x1; x++) {
      const c = x - m.x;
      row[x - x0] = c >= 0 && c < mw ? d[o + x] : 0;
    }
    return true;
  }
  const gy = (y + 0.5) / step - 0.5 - m.y;
  const j0 = Math.floor(gy), fy = gy - j0;
  if (j0 < -1 || j0 >= m.h) return false;
  const w0 = j0 >= 0 ? 1 - fy : 0, w1 = j0 + 1 < m.h ? fy : 0;
  const o0 = Math.max(0, j0) * mw, o1 = Math.min(m.h - 1, j0 + 1) * mw;
  const { cell, frac } = columnsOf(step, m.x, x0, x1);
  for (let x = x0; x < x1; x++) {
    const i0 = cell[x - x0], fx = frac[x - x0];
    let a = 0, b = 0;
    if (i0 >= 0 && i0 < mw) {
      a = d[o0 + i0];
      b = d[o1 + i0];
    }
    let c = 0, e = 0;
    if (i0 + 1 >= 0 && i0 + 1 < mw) {
      c = d[o0 + i0 + 1];
      e = d[o1 + i0 + 1];
    }
    row[x - x0] = (a * w0 + b * w1) * (1 - fx) + (c * w0 + e * w1) * fx;
  }
  return true;
}

/** Each canvas column's grid cell and its fraction toward the next, for a mask at 1/`step` resolution. */
interface Columns {
  step: number;
  mx: number;
  x0: number;
  x1: number;
  cell: Int32Array;
  frac: Float64Array;
}

/**
 * The last two column tables maskRow used. A layer samples its mask row by row over the same columns, so the
 * per-pixel floor and division are done once per layer, not once per row (the base makeup reads two masks
 * row by row in turn, hence two). Float64: the fractions are the same doubles as computed inline.
 */
const columnTables: (Columns | undefined)[] = [undefined, undefined];
let columnTableNext = 0;

function columnsOf(step: number, mx: number, x0: number, x1: number): Columns {
  for (const t of columnTables) {
    if (t && t.step === step && t.mx === mx && t.x0 === x0 && t.x1 === x1) return t;
  }
  const n = x1 - x0, cell = new Int32Array(n), frac = new Float64Array(n), inv = 1 / step;
  for (let x = x0; x < x1; x++) {
    const gx = (x + 0.5) * inv - 0.5 - mx;
    const i0 = Math.floor(gx);
    cell[x - x0] = i0;
    frac[x - x0] = gx - i0;
  }
  const t = { step, mx, x0, x1, cell, frac };
  columnTables[columnTableNext] = t;
  columnTableNext = 1 - columnTableNext;
  return t;
}

/** The canvas rectangle [x0, x1) x [y0, y1) a (possibly subsampled) mask reaches. */
export function maskSpan(m: Mask, step: number, W: number, H: number): [number, number, number, number] {
  return [
    Math.max(0, Math.floor((m.x - 0.5) * step)),
    Math.max(0, Math.floor((m.y - 0.5) * step)),
    Math.min(W, Math.ceil((m.x + m.w + 0.5) * step)),
    Math.min(H, Math.ceil((m.y + m.h + 0.5) * step)),
  ];
}

let rowScratch = new Float32Array(0);

/** A row buffer reused across layers and jobs (one worker renders one job at a time). */
export function scratchRow(n: number): Float32Array {
  if (rowScratch.length < n) rowScratch = new Float32Array(Math.max(n, 2048));
  return rowScratch;
}

/**
 * blendLayer for effects that act on each channel alone, through a
 * channelLut table (no per-pixel callback or pow). `step` as in maskRow.
 */
export function blendLut(img: Canvas, mask: Mask, opacity: number, lut: Float32Array, step = 1): void {
  if (opacity <= 0) return;
  const d = img.data, W = img.width;
  const [x0, y0, x1, y1] = maskSpan(mask, step, W, img.height);
  const row = scratchRow(x1 - x0);
  for (let y = y0; y < y1; y++) {
    if (!maskRow(mask, step, y, x0, x1, row)) continue;
    let i = (y * W + x0) * 3;
    for (let x = x0; x < x1; x++, i += 3) {
      const a = row[x - x0] * opacity;
      if (a < 0.002) continue;
      const k = a > 1 ? 1 : a;
      const r = d[i], g = d[i + 1], b = d[i + 2];
      const lr = SRGB_TO_LINEAR[r], lg = SRGB_TO_LINEAR[g], lb = SRGB_TO_LINEAR[b];
      d[i] = linearToSrgb(lr + (lut[r] - lr) * k);
      d[i + 1] = linearToSrgb(lg + (lut[256 + g] - lg) * k);
      d[i + 2] = linearToSrgb(lb + (lut[512 + b] - lb) * k);
    }
  }
}
