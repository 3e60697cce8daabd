/**
 * Thin dark lines over bare skin below the chin: a bra strap, a top's shoulder strap, a dark neckline's edge.
 * Black reads as dark hair to the colour model, and the lengths' growth creeps along a strap from the hair at
 * the shoulder (each step a small one), so a strap was dyed with the hair: gold straps in Honey Blonde, and the
 * skin between two straps, held by the grid's cells over them, turned cream (sample2@1370). Neither colour nor
 * texture tells a black strap from a black strand (a strand of sample1@773's black hair over her grey top, the
 * dark strands between sample6@1081's golden ones); shape does. A strap is a narrow run of near-black between
 * skin on both sides that goes on straight for a long way; strands curve, cross and end. What the dye reached
 * only along such a line (a top's hem below a strap) goes with it.
 */
import type { Canvas } from "./blend.ts";
import { cellOf } from "./hair-colour-samples.ts";
import type { ColourModel } from "./hair-colour-model.ts";
import { atCanvasScale } from "./output-scale.ts";
import { labelPatches } from "./masks.ts";

/**
 * A run of pixels (across a row or down a column) this wide or narrower, in face widths, between skin on both
 * sides may be a line: sample2@1370's straps measure 0.036-0.1 face widths across, blends included, and 0.12
 * where the two run together above her top.
 */
export const LINE_WIDTH = 0.15;
/**
 * At least LINE_DARK_SHARE of a line's pixels are under this L* (a strap's black: L* 5-13; its edges are blends
 * with the skin) and LINE_BELOW_SKIN darker than the skin on either side of it.
 */
const LINE_DARK = 25, LINE_BELOW_SKIN = 25, LINE_DARK_SHARE = 0.3;
/** Skin, for the lines' sides: the colour model finds it at least this like skin and under HAIR_MAX like hair. */
const SKIN_MIN = 0.5, HAIR_MAX = 0.3;
/**
 * A line goes on for at least this many face widths (runs on consecutive rows or columns that overlap), and
 * keeps within LINE_STRAIGHT face widths of the straight line fitted through its runs' centres.
 */
export const LINE_LENGTH = 0.35, LINE_STRAIGHT = 0.03;
/**
 * The lines are looked for on every LINE_GRID-th pixel each way at the output's size (every other one on the
 * preview: the same stretch of the face, see atCanvasScale). sample2@1370's narrower strap is 16 pixels across
 * at 1080x1920 (4 grid pixels), 8 on the preview; judged on every other pixel the search took 1.4-11 ms per
 * portrait at 1080x1920, on every fourth 1.5-5 ms (0.5-3 ms on the preview), with the same straps found.
 */
const LINE_GRID = 4;
/** A line's run on the next row (or column) is at most this many times wider or narrower (plus 2 grid pixels). */
const LINE_WIDEN = 1.5;

/** A run of a line's pixels on one row (or column): its index there, and its first and last position + 1. */
interface Run {
  line: number;
  a: number;
  b: number;
  /** The chain of runs it belongs to (union-find parent). */
  parent: number;
}

/**
 * Clears, in the dye's strength plane `plane` (bw x bh pixels from canvas pixel x0, y0), the thin dark lines
 * over skin from canvas row `fromY` down (see LINE_WIDTH, LINE_LENGTH) and the skin along them, up to a
 * line's width each side (dyed with them where the grid's cells held the line; between a pair of straps, the
 * skin between them): across rows (lines that run down) and down columns (lines that run across), then the dye
 * the cut left apart from the rest (see severedPieces). Returns the pixels cleared.
 */
export function clearThinLines(
  img: Canvas,
  plane: Float32Array,
  x0: number,
  y0: number,
  bw: number,
  bh: number,
  fromY: number,
  fw: number,
  colour: ColourModel,
): number {
  // Only about the dye below `fromY`: its box, widened by a line's width each way.
  const maxWidth = LINE_WIDTH * fw, top = Math.max(0, fromY - y0);
  let bx0 = bw, bx1 = -1, by1 = -1;
  for (let y = top; y < bh; y++) {
    for (let x = 0, k = y * bw; x < bw; x++, k++) {
      if (plane[k] <= 0) continue;
      if (x < bx0) bx0 = x;
      if (x > bx1) bx1 = x;
      by1 = y;
    }
  }
  if (by1 < 0) return 0;
  const margin = Math.ceil(maxWidth);
  bx0 = Math.max(0, bx0 - margin), bx1 = Math.min(bw - 1, bx1 + margin), by1 = Math.min(bh - 1, by1 + margin);
  // Judged on a grid (see LINE_GRID).
  const s = Math.max(1, Math.round(atCanvasScale(LINE_GRID, img.width)));
  const gw = Math.floor((bx1 - bx0) / s) + 1, gh = Math.floor((by1 - top) / s) + 1, n = gw * gh;
  // Per grid pixel: skin (1) or not (0), and its L* (its colour table cell's, within 3).
  const skin = new Uint8Array(n), lightness = new Float32Array(n);
  const W = img.width, d = img.data, cells = colour.cells, cellL = colour.cellL;
  for (let j = 0, k = 0; j < gh; j++) {
    for (let i = 0, o = ((y0 + top + j * s) * W + x0 + bx0) * 3; i < gw; i++, k++, o += 3 * s) {
      const c = cellOf(d[o], d[o + 1], d[o + 2]) * 4;
      if (cells[c] !== cells[c]) colour.fill(c);
      lightness[k] = cellL[c >> 2];
      skin[k] = cells[c + 3] >= SKIN_MIN && cells[c] < HAIR_MAX ? 1 : 0;
    }
  }
  const cut = new Uint8Array(n);
  const width = Math.max(2, Math.round(maxWidth / s));
  const lengths = { width, minLength: LINE_LENGTH * fw / s, straight: LINE_STRAIGHT * fw / s };
  // Lines that run down (cut across rows), then lines that run across (down columns: on the transposed grid).
  markLines(skin, lightness, gh, gw, lengths, cut);
  const skinT = new Uint8Array(n), lightnessT = new Float32Array(n), cutT = new Uint8Array(n);
  for (let j = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++) {
      skinT[i * gh + j] = skin[j * gw + i], lightnessT[i * gh + j] = lightness[j * gw + i];
    }
  }
  markLines(skinT, lightnessT, gw, gh, lengths, cutT);
  for (let j = 0; j < gh; j++) for (let i = 0; i < gw; i++) cut[j * gw + i] |= cutT[i * gh + j];
  // Each grid pixel cut clears the s x s pixels from it.
  let cleared = 0;
  const clear = (k: number) => {
    const i = k % gw, j = (k - i) / gw;
    for (let y = top + j * s, ye = Math.min(bh, y + s); y < ye; y++) {
      for (let x = bx0 + i * s, p = y * bw + x, xe = Math.min(bw, x + s); x < xe; x++, p++) {
        if (plane[p] > 0) plane[p] = 0, cleared++;
      }
    }
  };
  for (let k = 0; k < n; k++) if (cut[k]) clear(k);
  // What the cut left apart from the rest (see severedPieces).
  if (cleared > 0) { for (const k of severedPieces(plane, bw, bh, top, bx0, s, gw, gh, cut)) clear(k); }
  return cleared;
}

/**
 * Dye below the chin (grid pixels of `s` x `s` from plane row `top`, column `bx0`) that a line's cut left apart
 * from the rest: pieces (8-connected, SEVERED_DYE or more) that touch a cut grid pixel and do not reach the
 * chin's row. Lengths fall from the head and cross the chin's row. A garment's edge below the chin in the hair's
 * colours (sample2@1370's black top, its hem a little lighter, L* 17-22, and as blue as her dark hair in a
 * lilac light) was reached by the colour model and the lengths' growth only along a strap from the hair at her
 * shoulder, and stayed gold in Honey Blonde once the strap itself was cleared.
 */
function severedPieces(
  plane: Float32Array,
  bw: number,
  bh: number,
  top: number,
  bx0: number,
  s: number,
  gw: number,
  gh: number,
  cut: Uint8Array,
): number[] {
  const n = gw * gh, on = new Uint8Array(n);
  for (let j = 0, k = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++, k++) {
      if (cut[k]) continue;
      let hit = false;
      for (let y = top + j * s, ye = Math.min(bh, y + s); y < ye && !hit; y++) {
        for (let x = bx0 + i * s, p = y * bw + x, xe = Math.min(bw, x + s); x < xe; x++, p++) {
          if (plane[p] > SEVERED_DYE) {
            hit = true;
            break;
          }
        }
      }
      if (hit) on[k] = 1;
    }
  }
  const { label, count } = labelPatches(on, gw, gh, 1);
  // Per piece: whether it reaches the chin's row (the grid's first) and whether it touches a cut.
  const anchored = new Uint8Array(count + 1), severed = new Uint8Array(count + 1);
  for (let i = 0; i < gw; i++) anchored[label[i]] = 1;
  for (let k = 0; k < n; k++) {
    if (!cut[k]) continue;
    const i = k % gw, j = (k - i) / gw;
    for (let jj = Math.max(0, j - 1); jj <= Math.min(gh - 1, j + 1); jj++) {
      for (let ii = Math.max(0, i - 1); ii <= Math.min(gw - 1, i + 1); ii++) severed[label[jj * gw + ii]] = 1;
    }
  }
  const out: number[] = [];
  for (let k = 0; k < n; k++) if (label[k] > 0 && severed[label[k]] && !anchored[label[k]]) out.push(k);
  return out;
}

/** Dye strength from which a pixel joins its grid pixel to a piece (see severedPieces). */
const SEVERED_DYE = 0.05;

/**
 * Marks in `cut` the thin dark lines across the `count` lines of `span` grid pixels (row-major `skin` and
 * `lightness`; see clearThinLines) and the skin along them.
 */
function markLines(
  skin: Uint8Array,
  lightness: Float32Array,
  count: number,
  span: number,
  { width, minLength, straight }: { width: number; minLength: number; straight: number },
  cut: Uint8Array,
): void {
  const runs: Run[] = [];
  const find = (i: number): number => {
    while (runs[i].parent !== i) i = runs[i].parent = runs[runs[i].parent].parent;
    return i;
  };
  // The runs of the previous line (indexes into runs), and those a run of this line has linked to.
  let prev: number[] = [];
  const taken = new Set<number>();
  for (let line = 0; line < count; line++) {
    const cur: number[] = [];
    let lastSkin = -1;
    for (let t = 0; t < span; t++) {
      if (!skin[line * span + t]) continue;
      const a = lastSkin + 1, b = t;
      lastSkin = t;
      if (a === 0 || b === a || b - a > width) continue;
      const sides = Math.min(lightness[line * span + a - 1], lightness[line * span + b]);
      const darkBelow = Math.min(LINE_DARK, sides - LINE_BELOW_SKIN);
      let darks = 0;
      for (let u = a; u < b; u++) if (lightness[line * span + u] < darkBelow) darks++;
      if (darks < LINE_DARK_SHARE * (b - a)) continue;
      const id = runs.length;
      runs.push({ line, a, b, parent: id });
      cur.push(id);
      // Linked to the run of the previous line it overlaps whose centre is nearest its own, unless a run of
      // this line took it: where two straps meet, each chain stays one strap.
      let best = -1, nearest = Infinity;
      for (const p of prev) {
        const off = Math.abs(runs[p].a + runs[p].b - a - b), wide = runs[p].b - runs[p].a;
        if (!(runs[p].a < b && a < runs[p].b) || off >= nearest || taken.has(p)) continue;
        // (A line keeps its width: where two straps run together, the wider run is neither's.)
        if (b - a <= LINE_WIDEN * wide + 2 && wide <= LINE_WIDEN * (b - a) + 2) best = p, nearest = off;
      }
      if (best >= 0) runs[id].parent = find(best), taken.add(best);
    }
    prev = cur;
  }
  if (runs.length === 0) return;
  // The chains: runs linked line to line.
  const chains = new Map<number, number[]>();
  for (let i = 0; i < runs.length; i++) {
    const r = find(i);
    let list = chains.get(r);
    if (!list) chains.set(r, list = []);
    list.push(i);
  }
  // Kept: long enough, and straight (a least-squares line through its runs' centres).
  const kept = new Uint8Array(runs.length);
  for (const list of chains.values()) {
    if (runs[list[list.length - 1]].line - runs[list[0]].line + 1 < minLength) continue;
    let sl = 0, sc = 0, sll = 0, slc = 0;
    for (const i of list) {
      const l = runs[i].line, c = (runs[i].a + runs[i].b) / 2;
      sl += l, sc += c, sll += l * l, slc += l * c;
    }
    const m = list.length, den = m * sll - sl * sl;
    const slope = den > 0 ? (m * slc - sl * sc) / den : 0, icpt = (sc - slope * sl) / m;
    let worst = 0;
    for (const i of list) {
      worst = Math.max(worst, Math.abs((runs[i].a + runs[i].b) / 2 - icpt - slope * runs[i].line));
    }
    if (worst <= straight) { for (const i of list) kept[i] = 1; }
  }
  // A chain that starts or ends where a kept one ends or starts (a line or two away, overlapping) continues
  // it: where two straps run together above a top, their joint run is wider than either's chain allows.
  const byLine = new Map<number, number[]>();
  for (let i = 0; i < runs.length; i++) {
    let list = byLine.get(runs[i].line);
    if (!list) byLine.set(runs[i].line, list = []);
    list.push(i);
  }
  const touchesKept = (i: number, dir: number) =>
    [1, 2].some((g) =>
      (byLine.get(runs[i].line + dir * g) ?? []).some((q) =>
        kept[q] && runs[q].a < runs[i].b && runs[i].a < runs[q].b
      )
    );
  for (let grew = true; grew;) {
    grew = false;
    for (const list of chains.values()) {
      if (kept[list[0]] || !(touchesKept(list[0], -1) || touchesKept(list[list.length - 1], 1))) continue;
      for (const i of list) kept[i] = 1;
      grew = true;
    }
  }
  // Cut the kept runs and the skin along them (up to a line's width each side: between two straps, the skin
  // between them). Only skin: hair lying beside a strap keeps its dye.
  for (let i = 0; i < runs.length; i++) {
    if (!kept[i]) continue;
    const { line, a, b } = runs[i];
    for (let u = a; u < b; u++) cut[line * span + u] = 1;
    for (let u = a - 1; u >= Math.max(0, a - 1 - width) && skin[line * span + u]; u--) {
      cut[line * span + u] = 1;
    }
    for (let u = b; u < Math.min(span, b + width) && skin[line * span + u]; u++) cut[line * span + u] = 1;
  }
}
