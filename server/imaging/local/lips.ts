/** Lipstick: the lip mask, the photo's light on the lips, and the finish (matte, satin, gloss). */
import type { CatalogEntry } from "../../styling/catalog.ts";
import { blendLayer, type Canvas, meanLuminance } from "./blend.ts";
import {
  hexToLinear,
  hueDegrees,
  linearToLab,
  linearToLabInto,
  luminance,
  SRGB_TO_LINEAR,
  wrapDegrees,
} from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { LIPS_INNER, LIPS_OUTER } from "./landmarks.ts";
import { clamp01 } from "./ramps.ts";
import {
  boundsOf,
  createMask,
  feather,
  fillPolygon,
  labelPatches,
  type Mask,
  type Point,
  type Rect,
} from "./masks.ts";
import { LIP_FINISH } from "./recipes.ts";
import { skinMeanLinear } from "./skin-tone.ts";
import { highlightExposure, MIN_EXPOSURE, SKIN_SOFTEN, skinExposure } from "./photo-exposure.ts";

/**
 * The lip mask: the mesh's outer lip, feathered, minus the real mouth
 * opening. The mesh's inner outline is only a guide: on a closed mouth it
 * encloses lip (painted), on a smile the teeth reach past it (kept). Each
 * pixel near the mouth is classed by colour against the lip's own mean:
 * teeth are lighter and greyer than lip (or, around the opening, far
 * lighter and yellower: teeth in warm light), the mouth's cavity far darker.
 * The gaps between teeth are closed along rows (closeTeethGaps). The classes
 * are smoothed over a pixel, so the lipstick's edge along the teeth is as
 * soft as the photo's. Where the mesh's outline is found well off the lips
 * the photo shows (lipFit), the lips found by their colour take its place.
 */
export function lipMask(img: Canvas, g: FaceGeometry): Mask {
  const fit = lipFit(img, g);
  const outer = pick(g, LIPS_OUTER), inner = pick(g, LIPS_INNER);
  const sigma = Math.max(0.8, 0.006 * g.fw);
  const rect = fit?.rect ?? boundsOf(outer, sigma * 4, img.width, img.height);
  const m = createMask(rect);
  fillPolygon(m, outer);
  const poly = fit ? m.data.slice() : undefined;
  feather(m, sigma);
  const hole = createMask(rect);
  fillPolygon(hole, inner);
  feather(hole, sigma * 0.5);
  if (fit) {
    // The lips found by colour, feathered as the mesh's outline is. The mesh's
    // own outline counts only next to them (within about a feather): it still
    // fills what the colour left out at the lips' edge, but no longer paints
    // the skin past the lips the photo shows (its opening too ran past the
    // mouth's corner there).
    const found = createMask(rect);
    for (let k = 0; k < fit.lips.length; k++) found.data[k] = fit.lips[k];
    feather(found, sigma);
    for (let k = 0; k < m.data.length; k++) {
      const f = found.data[k];
      m.data[k] = Math.max(m.data[k] * Math.min(1, 2 * f), f);
    }
  }
  // Both lips' colour, and each lip's own: in a light from one side the two differ (sample3@1005's upper lip
  // lit blue, lavender, her lower lip red), and upper lip inside the mesh's opening was far from their mean.
  const sides = lipSides(g, rect);
  const colours = lipColours(img, m, hole, sides);
  const lip = colours.both ?? { L: 50, a: 20, b: 10 };
  const upper = colours.upper ?? lip, lower = colours.lower ?? lip;
  const lipHue = hueDegrees(lip.a, lip.b);
  // Where teeth can be: the mesh's opening and a band around it (a wide
  // smile's teeth reach well past the mesh's inner outline, over what it
  // takes for the lips).
  const mouth = createMask(rect);
  fillPolygon(mouth, inner);
  feather(mouth, TEETH_REACH * g.fw);
  const d = img.data;
  const open = createMask(rect);
  const teethOf = createMask(rect);
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] <= 0) continue;
      const i = ((m.y + r) * img.width + m.x + c) * 3;
      const [L, a, b] = linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
      // Teeth: lighter than the lip and much less red (warm light makes them yellow, not red).
      const grey = clamp01((L - lip.L - 3) / 5) * clamp01((0.75 * lip.a - a) / (0.15 * lip.a + 1));
      // In warm light teeth can be as red as the skin and only a little less red than the lip
      // (sample4@1216: a* 14-24 against the lip's 30): near the opening, far lighter than the lip
      // and yellower than it (its hue turned toward b*) is tooth too.
      const yellow = L > lip.L + 8 && mouth.data[k] > 0
        ? clamp01(mouth.data[k] * 20) * clamp01((L - lip.L - 8) / 10) *
          clamp01((hueDegrees(a, b) - lipHue - 2) / 4)
        : 0;
      const teeth = Math.max(grey, yellow);
      // Lip in shadow (the crease where closed lips meet): never the opening (see lipShade).
      const shade = lipShade(L, a, b, lip, lipHue);
      // The cavity (and the tongue's shadow): much darker than lip, inside the mesh's opening or,
      // where the lips were found by colour, anywhere past the mesh's outline (the real opening of
      // a mouth the mesh put elsewhere).
      const cavity = Math.max(hole.data[k], poly ? 1 - poly[k] : 0) *
        clamp01((0.7 * lip.L - L) / (0.15 * lip.L + 1)) * (1 - shade);
      // Inside the mesh's opening, only what does not look like lip is the opening.
      const side = 2 * r < sides.upper[c] + sides.lower[c] ? upper : lower;
      const lipLike = Math.hypot(L - lip.L, a - lip.a, b - lip.b) < 16 ||
          Math.hypot(L - side.L, a - side.a, b - side.b) < 16 || shade > 0.5 ||
          (a >= LIT_LIP_RED * Math.min(upper.a, lower.a) && Math.abs(L - lip.L) <= LIT_LIP_L)
        ? 1
        : 0;
      teethOf.data[k] = teeth;
      open.data[k] = clamp01(Math.max(cavity, hole.data[k] * (1 - lipLike) * 0.6));
    }
  }
  closeTeethGaps(teethOf, m, g.fw);
  for (let k = 0; k < m.data.length; k++) open.data[k] = clamp01(Math.max(open.data[k], teethOf.data[k]));
  // Classed a pixel at a time, the opening's edge follows every pixel that
  // falls either side of a colour threshold: a ragged lipstick edge along
  // the teeth, and single painted pixels dotted over them. Smoothed over a
  // pixel (only ever widened: a tooth classed as such stays bare), the edge
  // is soft as the photo's own and the dots go.
  const raw = open.data.slice();
  feather(open, OPEN_SMOOTH);
  for (let k = 0; k < m.data.length; k++) m.data[k] *= 1 - clamp01(Math.max(raw[k], open.data[k]));
  return m;
}

/** The widest gap between teeth closed along a row (face widths; 15 px on a face 500 px wide, half a tooth). */
const TEETH_GAP = 0.03;

/** The smallest patch of teeth whose gaps are closed (face widths squared; a highlight on a lip is under 0.0015). */
const TEETH_ROW_AREA = 0.003;

/**
 * Closes the gaps between teeth along each row (in place). The shade between two teeth, and a tooth's
 * own shaded side, are as dark as the lip and as red in a coloured light (sample3@1005's blue-lit smile:
 * L* 49-55, a* 30-35 against the lip's 45-49 and 30), so the colour classes leave them as lip and the
 * lipstick ran down between the teeth in red wedges and hooks. A gap of up to TEETH_GAP between two
 * teeth pixels on one row becomes tooth, taking the lower of its two sides' classes.
 *
 * Only between the teeth of a patch that can be a row of teeth, inside the lips (feathered outline 0.9
 * or more):
 * - a patch of TEETH_ROW_AREA or more: a highlight on closed lips is lighter and less red than the lip
 *   too, and closing its gaps bared more of the lip;
 * - in the lips on both sides: in half its columns or more, something that is not tooth lies within the
 *   lips above it and below it. Where the mesh's outline runs past the upper lip (sample1@334), the skin
 *   above the lip is a large "teeth" patch with lip only below it; closing it bared the lip's edge.
 */
function closeTeethGaps(teeth: Mask, lips: Mask, fw: number): void {
  const { w, h } = teeth;
  const inLips = (k: number) => lips.data[k] >= 0.9;
  const core = new Uint8Array(w * h);
  for (let k = 0; k < core.length; k++) core[k] = teeth.data[k] >= 0.5 && inLips(k) ? 1 : 0;
  const { label, count } = labelPatches(core, w, h, Math.max(4, Math.round(TEETH_ROW_AREA * fw * fw)));
  if (count === 0) return;
  const columns = new Int32Array(count + 1), enclosed = new Int32Array(count + 1);
  const otherAt = (x: number, y0: number, step: number) => {
    for (let y = y0; y >= 0 && y < h && lips.data[y * w + x] >= 0.5; y += step) {
      if (teeth.data[y * w + x] < 0.5) return true;
    }
    return false;
  };
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      const l = label[y * w + x];
      if (l <= 0) continue;
      let y1 = y;
      while (y1 + 1 < h && label[(y1 + 1) * w + x] === l) y1++;
      columns[l]++;
      if (otherAt(x, y - 1, -1) && otherAt(x, y1 + 1, 1)) enclosed[l]++;
      y = y1;
    }
  }
  const row = new Float32Array(w), widest = new Float32Array(w);
  const r = Math.max(1, Math.round(TEETH_GAP * fw / 2));
  for (let y = 0; y < h; y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) {
      const l = label[o + x];
      row[x] = l > 0 && 2 * enclosed[l] >= columns[l] ? teeth.data[o + x] : 0;
    }
    // A grey closing: the highest value within r either side, then the lowest of those.
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let j = Math.max(0, x - r); j <= Math.min(w - 1, x + r); j++) if (row[j] > v) v = row[j];
      widest[x] = v;
    }
    for (let x = 0; x < w; x++) {
      if (!inLips(o + x)) continue;
      let v = 1;
      for (let j = Math.max(0, x - r); j <= Math.min(w - 1, x + r); j++) if (widest[j] < v) v = widest[j];
      if (v > teeth.data[o + x]) teeth.data[o + x] = v;
    }
  }
}

/**
 * How surely a pixel is lip in shadow: darker than the lip's typical colour (down to about half its L*), at
 * its hue (fully within 8 degrees, not past 12) and with its chroma (from 85 %, fully by 95 %). The crease
 * where closed lips meet is such a pixel (sample2@805: L* 30-35 at a* 29-31 against the lip's 47 at 20):
 * more than 16 ΔE from the lip's colour and as dark as the mouth's cavity, it counted as the opening and
 * took 40 % of the shade, two bare patches in the middle of painted lips. The cavity (and a shaded tooth) is
 * darker still or greyer.
 */
function lipShade(
  L: number,
  a: number,
  b: number,
  lip: { L: number; a: number; b: number },
  lipHue: number,
): number {
  const C = Math.hypot(a, b), lipC = Math.hypot(lip.a, lip.b);
  const dh = Math.abs(wrapDegrees(hueDegrees(a, b) - lipHue));
  return clamp01((12 - dh) / 4) * clamp01((C - 0.85 * lipC) / (0.1 * lipC + 1)) * clamp01((lip.L - L) / 3) *
    clamp01((L - 0.5 * lip.L) / (0.05 * lip.L + 1));
}

/**
 * Inside the mesh's opening, a pixel at least this share as red (a*) as the less red lip, and within LIT_LIP_L of
 * the lips' L*, is lip in another light whatever its hue: sample3@1005's mouth corner lit warm (L* 43-46, a*
 * 26-29, b* 14-30) lay over 16 ΔE from both her lips (the upper lit blue, b* -10; the lower red, b* 9) and took
 * 40 % of the shade, a paler streak inside the painted upper lip. Teeth are far less red, the cavity far darker.
 * (A tongue as red and as light as the lips is painted, as one within 16 ΔE of their colour always was.)
 */
const LIT_LIP_RED = 0.75, LIT_LIP_L = 12;

/** Gaussian sigma (px) the mouth opening's per-pixel classes are smoothed over. */
const OPEN_SMOOTH = 1;

/** How far past the mesh's inner lip outline teeth are looked for (Gaussian sigma, face widths). */
const TEETH_REACH = 0.03;

interface LipLab {
  L: number;
  a: number;
  b: number;
}

/** The mesh's inner lip outline: its upper edge from corner to corner, and its lower edge. */
const INNER_UPPER = LIPS_INNER.slice(0, 11), INNER_LOWER = [...LIPS_INNER.slice(10), LIPS_INNER[0]];

/**
 * Per column of `rect`, the row (from rect.y) of the mesh's inner outline's upper and lower edge: lip pixels
 * above the upper edge are the upper lip, below the lower one the lower lip. Past the corners, the corner's row.
 */
function lipSides(g: FaceGeometry, rect: Rect): { upper: Float32Array; lower: Float32Array } {
  const at = (ids: number[]) => {
    const pts = pick(g, ids).sort((p, q) => p[0] - q[0]);
    const rows = new Float32Array(rect.w);
    for (let c = 0, j = 0; c < rect.w; c++) {
      const x = rect.x + c + 0.5;
      while (j < pts.length - 2 && pts[j + 1][0] < x) j++;
      const [x0, y0] = pts[j], [x1, y1] = pts[j + 1];
      const t = x1 > x0 ? Math.max(0, Math.min(1, (x - x0) / (x1 - x0))) : 0;
      rows[c] = y0 + (y1 - y0) * t - rect.y;
    }
    return rows;
  };
  return { upper: at(INNER_UPPER), lower: at(INNER_LOWER) };
}

/**
 * The lips' typical Lab: pixels well inside the outer outline and outside the
 * mesh's opening, sorted by lightness, averaged between the 20th and 60th
 * percentile (teeth that reach past the opening and highlights are the
 * lightest, creases the darkest; neither may move the reference). Of all of
 * them (`both`), and of those above the opening's upper edge and below its
 * lower one (each lip: see lipSides), from one pass over the mask. Each is
 * undefined from fewer than 10 pixels.
 */
function lipColours(
  img: Canvas,
  m: Mask,
  hole: Mask,
  sides: { upper: Float32Array; lower: Float32Array },
): { both?: LipLab; upper?: LipLab; lower?: LipLab } {
  const both: [number, number, number][] = [], upper: typeof both = [], lower: typeof both = [];
  const d = img.data;
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] < 0.9 || hole.data[k] > 0.02) continue;
      const i = ((m.y + r) * img.width + m.x + c) * 3;
      const lab = linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
      both.push(lab);
      if (r < sides.upper[c]) upper.push(lab);
      if (r > sides.lower[c]) lower.push(lab);
    }
  }
  return { both: typicalLab(both), upper: typicalLab(upper), lower: typicalLab(lower) };
}

/** The mean of `labs` between their 20th and 60th percentile of lightness (sorts them); undefined under 10. */
function typicalLab(labs: [number, number, number][]): LipLab | undefined {
  if (labs.length < 10) return undefined;
  labs.sort((p, q) => p[0] - q[0]);
  const from = Math.floor(labs.length * 0.2), to = Math.max(from + 1, Math.floor(labs.length * 0.6));
  const s = [0, 0, 0];
  for (let i = from; i < to; i++) for (let c = 0; c < 3; c++) s[c] += labs[i][c];
  const n = to - from;
  return { L: s[0] / n, a: s[1] / n, b: s[2] / n };
}

/** The lips found by colour (lipFit) over `rect`: 1 lip, 0 not. */
export interface LipFit {
  rect: Rect;
  lips: Uint8Array;
}

/** lipFit's answer per face geometry (null: the mesh's outline is used as it is). */
const fits = new WeakMap<FaceGeometry, LipFit | null>();

/**
 * Finds the lips by colour on `img` (see lipFit) and keeps the answer with the
 * geometry, so that the lipstick uses what the photo showed before the base,
 * blush or contour were painted around the mouth.
 */
export function primeLips(img: Canvas, g: FaceGeometry): void {
  lipFit(img, g);
}

/**
 * The lips as the photo shows them where the mesh's outline is well off them,
 * else undefined (the outline is used as it is; so on nearly every face). The
 * mesh can sit far from the real lips: on a tilted, laughing face
 * (sample1@1438) its outline covers the right half of the mouth and runs past
 * the corner onto the cheek, and the lips' left half lies outside it. Lips are
 * redder and darker than the skin around them: the lip's colour is taken from
 * the reddest part of the mesh's lip ring, the skin's from a ring around the
 * mouth, and each pixel is placed between the two (0 skin, 1 lip). The lips
 * are the pixels nearer lip than skin connected to the ring's confident lip
 * pixels, opened (a crease or fold as red as lip is thinner than a lip), not
 * through the mesh's opening (a lit tongue is as red as lip; in it only what
 * has the lip's colour is lip, as on any face) nor the mouth's dark cavity;
 * small enclosed gaps (a highlight) are filled. They replace the
 * outline only when it is clearly off: much of its lip ring has the skin's
 * colour and much of the lips found lies well outside it. Not when the two
 * colours are close, when little lip is found, or when the lip colour spreads
 * over far more than a lip (rosy or red-lit skin).
 */
function lipFit(img: Canvas, g: FaceGeometry): LipFit | undefined {
  let fit = fits.get(g);
  if (fit === undefined) {
    fit = findLips(img, g) ?? null;
    fits.set(g, fit);
  }
  return fit ?? undefined;
}

function findLips(img: Canvas, g: FaceGeometry): LipFit | undefined {
  const outer = pick(g, LIPS_OUTER), inner = pick(g, LIPS_INNER), fw = g.fw;
  const sigma = Math.max(0.8, 0.006 * fw);
  const area = boundsOf(outer, sigma * 4 + FIT_REACH * fw, img.width, img.height);
  // Worked on a grid of `step` px (0.004 face widths, 2 px on a face 500 px wide: the canvas is
  // the photo enlarged, neighbours repeat each other); each cell takes its centre pixel's colour.
  const step = Math.max(1, Math.round(0.004 * fw)), half = step >> 1;
  const w = Math.ceil(area.w / step), h = Math.ceil(area.h / step), n = w * h;
  const grid: Rect = { x: 0, y: 0, w, h };
  const toGrid = (pts: Point[]) => pts.map((p): Point => [(p[0] - area.x) / step, (p[1] - area.y) / step]);
  const poly = createMask(grid), hole = createMask(grid);
  fillPolygon(poly, toGrid(outer));
  fillPolygon(hole, toGrid(inner));
  // The skin around the mouth: the mesh's outline scaled 1.25-1.6x about its centre.
  let cx = 0, cy = 0;
  for (const p of outer) {
    cx += p[0] / outer.length;
    cy += p[1] / outer.length;
  }
  const scaled = (s: number) => toGrid(outer.map((p): Point => [cx + (p[0] - cx) * s, cy + (p[1] - cy) * s]));
  const big = createMask(grid), small = createMask(grid);
  fillPolygon(big, scaled(1.6));
  fillPolygon(small, scaled(1.25));
  // Each cell's Lab, read on first use (most faces are done with the two rings).
  const W = img.width, d = img.data;
  const L = new Float32Array(n).fill(NaN), A = new Float32Array(n), B = new Float32Array(n);
  const lab = new Float64Array(3);
  const read = (k: number) => {
    const c = k % w, r = (k - c) / w;
    const i =
      (Math.min(img.height - 1, area.y + r * step + half) * W + Math.min(W - 1, area.x + c * step + half)) *
      3;
    linearToLabInto(lab, SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
    L[k] = lab[0];
    A[k] = lab[1];
    B[k] = lab[2];
  };
  const ring: number[] = [], around: number[] = [];
  for (let k = 0; k < n; k++) {
    if (poly.data[k] >= 0.99 && hole.data[k] <= 0) ring.push(k);
    else if (big.data[k] >= 0.5 && small.data[k] <= 0) around.push(k);
    else continue;
    read(k);
  }
  if (ring.length < 30 || around.length < 30) return undefined;
  const skin = [L, A, B].map((ch) => quantile(around.map((k) => ch[k]), 0.5));
  // The lip: the ring's reddest 40 %, leaving out the cavity's dark pixels.
  const darkL = 0.6 * quantile(ring.map((k) => L[k]), 0.5);
  const lit = ring.filter((k) => L[k] > darkL);
  const redAbove = quantile(lit.map((k) => A[k]), 0.6);
  const top = lit.filter((k) => A[k] >= redAbove);
  const lip = [L, A, B].map((ch) => top.reduce((s, k) => s + ch[k], 0) / Math.max(1, top.length));
  // The mesh's lip ring on skin: its pixels of the skin's own colour.
  const onSkin = ring.filter((k) => Math.hypot(L[k] - skin[0], A[k] - skin[1], B[k] - skin[2]) < 8).length;
  if (onSkin < RING_ON_SKIN * ring.length) return undefined;
  const dir = [W_L * W_L * (lip[0] - skin[0]), lip[1] - skin[1], lip[2] - skin[2]];
  const sep2 = W_L * W_L * (lip[0] - skin[0]) ** 2 + dir[1] ** 2 + dir[2] ** 2;
  if (sep2 < MIN_SEPARATION ** 2) return undefined;
  // Each cell between skin (0) and lip (1). Lip-coloured: nearer lip than skin and not dark;
  // outside the mesh's opening they may grow into the lips (cand), inside it they are lip as on
  // any face (a lip the opening took in).
  const t = new Float32Array(n), inHole = new Uint8Array(n);
  const cand = createMask(grid);
  for (let k = 0; k < n; k++) {
    if (Number.isNaN(L[k])) read(k);
    t[k] = (dir[0] * (L[k] - skin[0]) + dir[1] * (A[k] - skin[1]) + dir[2] * (B[k] - skin[2])) / sep2;
    const coloured = t[k] >= GROW_T && L[k] > darkL ? 1 : 0;
    if (hole.data[k] < 0.5) cand.data[k] = coloured;
    else inHole[k] = coloured;
  }
  // The lips found are lip-coloured cells outside the opening: too few of those, or too few of them well
  // outside the outline (more than ~0.03 face widths past it), and the outline stands whatever the opening and
  // the growth below would find (on nearly every face: the search stops here).
  feather(poly, 0.015 * fw / step);
  let candidates = 0, candidatesFar = 0;
  for (let k = 0; k < n; k++) {
    if (!cand.data[k]) continue;
    candidates++;
    if (poly.data[k] < 0.02) candidatesFar++;
  }
  if (candidates < 0.5 * ring.length || candidatesFar < FAR_OFF * ring.length) return undefined;
  // Opened: eroded (a blur kept where nearly all of it is lip-coloured), grown from the ring's
  // confident lip pixels through what is left, then grown back over the lip-coloured pixels
  // within the blur's reach.
  const isCand = cand.data.slice();
  feather(cand, OPEN_R * fw / step);
  const core = cand.data;
  const lips = new Uint8Array(n);
  const queue = new Int32Array(n);
  let tail = 0;
  for (const k of ring) {
    if (t[k] >= SEED_T && core[k] >= 0.9) {
      lips[k] = 1;
      queue[tail++] = k;
    }
  }
  for (let q = 0; q < tail; q++) {
    const k = queue[q], x = k % w;
    for (let e = 0; e < 4; e++) {
      if ((e === 0 && k < w) || (e === 1 && k + w >= n) || (e === 2 && x === 0) || (e === 3 && x === w - 1)) {
        continue;
      }
      const j = e === 0 ? k - w : e === 1 ? k + w : e === 2 ? k - 1 : k + 1;
      if (lips[j] || core[j] < 0.9) continue;
      lips[j] = 1;
      queue[tail++] = j;
    }
  }
  const back = createMask(grid);
  for (let k = 0; k < n; k++) back.data[k] = lips[k];
  feather(back, OPEN_R * fw / step);
  let found = 0;
  for (let k = 0; k < n; k++) {
    lips[k] = isCand[k] && back.data[k] > 0.02 ? 1 : 0;
    found += lips[k];
  }
  if (found < 0.5 * ring.length || found > 3 * ring.length) return undefined;
  // Lips found well outside the outline (poly was feathered above).
  let far = 0;
  for (let k = 0; k < n; k++) if (lips[k] && poly.data[k] < 0.02) far++;
  if (far < FAR_OFF * ring.length) return undefined;
  for (let k = 0; k < n; k++) lips[k] |= inHole[k];
  fillSmallGaps(lips, w, h, (0.04 * fw / step) ** 2);
  // On the canvas, over the lips' own bounds and room for the feather.
  let c0 = w, c1 = -1, r0 = h, r1 = -1;
  for (let k = 0; k < n; k++) {
    if (!lips[k]) continue;
    const c = k % w, r = (k - c) / w;
    if (c < c0) c0 = c;
    if (c > c1) c1 = c;
    if (r < r0) r0 = r;
    if (r > r1) r1 = r;
  }
  const rect = boundsOf(
    [[area.x + c0 * step, area.y + r0 * step], [area.x + (c1 + 1) * step, area.y + (r1 + 1) * step]],
    sigma * 4,
    img.width,
    img.height,
  );
  const out = new Uint8Array(rect.w * rect.h);
  for (let r = 0; r < rect.h; r++) {
    const gr = Math.floor((rect.y + r - area.y) / step);
    if (gr < 0 || gr >= h) continue;
    for (let c = 0; c < rect.w; c++) {
      const gc = Math.floor((rect.x + c - area.x) / step);
      if (gc >= 0 && gc < w) out[r * rect.w + c] = lips[gr * w + gc];
    }
  }
  return { rect, lips: out };
}

/** The q-quantile of `v`. */
function quantile(v: number[], q: number): number {
  const s = Float32Array.from(v).sort();
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** How far past the mesh's outer lip outline the lips are looked for by colour (face widths). */
const FIT_REACH = 0.22;
/** Weight of L* against a*, b* in the lip-against-skin contrast (shading moves L* on skin too). */
const W_L = 0.5;
/** Lip and skin colours closer than this (weighted ΔE) are not told apart by colour. */
const MIN_SEPARATION = 7;
/** Where a pixel sits between skin (0) and lip (1): ring pixels from here seed the lips... */
const SEED_T = 0.7;
/** ...and connected pixels from here are lip. */
const GROW_T = 0.5;
/** Radius (face widths) of the opening that drops creases thinner than a lip. */
const OPEN_R = 0.01;
/**
 * The outline is off when at least this share of its lip ring has the skin's colour (a first,
 * cheap test: 0.21-0.38 on sample1@1438's two crops, 0-0.11 on 24 of the 29 other frontal test
 * crops, up to 0.63 on pale or dark lips)...
 */
const RING_ON_SKIN = 0.15;
/**
 * ...and the lips found more than ~0.03 face widths outside it amount to this share of the ring
 * (0.31-1.03 on sample1@1438, at most 0.08 on the other crops).
 */
const FAR_OFF = 0.2;

/** Sets the 4-connected gaps of `m` that touch no border of it and are smaller than `maxArea` px. */
function fillSmallGaps(m: Uint8Array, w: number, h: number, maxArea: number): void {
  const seen = new Uint8Array(m.length);
  const comp = new Int32Array(m.length);
  for (let s = 0; s < m.length; s++) {
    if (m[s] || seen[s]) continue;
    let size = 0, border = false;
    comp[size++] = s;
    seen[s] = 1;
    for (let q = 0; q < size; q++) {
      const k = comp[q], x = k % w, y = (k - x) / w;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) {
        border = true;
        continue;
      }
      for (let e = 0; e < 4; e++) {
        const j = e === 0 ? k - w : e === 1 ? k + w : e === 2 ? k - 1 : k + 1;
        if (m[j] || seen[j]) continue;
        seen[j] = 1;
        comp[size++] = j;
      }
    }
    if (!border && size < maxArea) { for (let q = 0; q < size; q++) m[comp[q]] = 1; }
  }
}

/** Bounds of lipstick's exposure on a well-exposed photo (see photoLight). */
const LIT_FLOOR = 0.6, LIT_CEILING = 1.15;

/**
 * How the photo's light scales a colour: the skin's luminance against a
 * well-lit reference (softened, bounded to LIT_FLOOR..LIT_CEILING), and a mild share of the skin's
 * colour cast (warm or cool light), so a shade sits in the photo instead of
 * glowing on a dim or tinted one. On an underexposed photo (its highlights darker than a well-exposed one's:
 * see highlightExposure) the bounds would hold the shade at 0.6 of its light whatever the dimness: a pink
 * lipstick on a dim, warm copy of a test portrait glowed, far lighter than the face around it. There the skin
 * is judged as if the photo were exposed well (its luminance over the highlights' exposure), and the exposure
 * found is scaled by the highlights' back down.
 */
export function photoLight(img: Canvas, g: FaceGeometry): [number, number, number] {
  const skin = skinMeanLinear(img, g);
  const y = luminance(skin[0], skin[1], skin[2]);
  let bySkin = skinExposure(skin), under = 1;
  if (bySkin < LIT_FLOOR) {
    under = clamp(highlightExposure(img), MIN_EXPOSURE, 1);
    bySkin /= under ** SKIN_SOFTEN;
  }
  const exposure = under * clamp(bySkin, LIT_FLOOR, LIT_CEILING);
  // Typical skin chromaticity under neutral light (linear r/Y and b/Y); a quarter of the deviation is light.
  const rc = clamp((skin[0] / y / 1.55) ** 0.25, 0.93, 1.07),
    bc = clamp((skin[2] / y / 0.6) ** 0.25, 0.93, 1.07);
  return [exposure * rc, exposure, exposure * bc];
}

const clamp = (v: number, lo: number, hi: number) => v < lo ? lo : v > hi ? hi : v;

/**
 * How strongly a lipstick covers at intensity t: product is opaque, so even
 * the default 60 lays down most of the shade (0.94), 100 all of it, 0 none.
 */
export const lipOpacity = (t: number) => t <= 0 ? 0 : 1 - (1 - clamp01(t)) ** 3;

export function lipsLayer(img: Canvas, g: FaceGeometry, entry: CatalogEntry, t: number): void {
  const m = lipMask(img, g);
  const ym = Math.max(0.005, meanLuminance(img, m, 0.5));
  const finish = LIP_FINISH[entry.id] ?? "satin";
  const gloss = finish === "gloss" ? 1.4 : finish === "satin" ? 0.45 : 0;
  const opacity = lipOpacity(t);
  if (!entry.hex) {
    // Clear gloss: keep the colour, add shine on the highlights.
    blendLayer(img, m, opacity, (px) => {
      const y = luminance(px[0], px[1], px[2]);
      const s = 1.6 * Math.max(0, y - 1.15 * ym) + 0.04 * y / ym * ym;
      px[0] = px[0] * 1.04 + s;
      px[1] = px[1] * 1.04 + s;
      px[2] = px[2] * 1.04 + s;
    });
    return;
  }
  const light = photoLight(img, g);
  const sw = hexToLinear(entry.hex);
  const c = [sw[0] * light[0], sw[1] * light[1], sw[2] * light[2]];
  const yc = Math.max(0.002, luminance(c[0], c[1], c[2]));
  // Every finish keeps the lip's own lines and shading (a flattened texture reads as a
  // sticker; matte differs only by having no shine). Lightness is a cube root of
  // luminance, so a darker shade would shrink the visible texture by (yc/ym)^(1/3):
  // the luminance ratio is raised by the inverse to keep it.
  const texture = Math.min(1.8, Math.max(1, (ym / yc) ** (1 / 3)));
  const d = img.data;
  // Normalise the texture term so the mean lip lands on the shade as lit.
  let norm = 1;
  if (texture !== 1) {
    let sum = 0, n = 0;
    for (let r = 0; r < m.h; r++) {
      for (let col = 0; col < m.w; col++) {
        const w = m.data[r * m.w + col];
        if (w < 0.5) continue;
        const i = ((m.y + r) * img.width + m.x + col) * 3;
        const lum = luminance(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
        sum += w * (lum / ym) ** texture;
        n += w;
      }
    }
    if (n > 0 && sum > 0) norm = n / sum;
  }
  blendLayer(img, m, opacity, (px) => {
    const lum = luminance(px[0], px[1], px[2]);
    const ratio = lum / ym;
    let k = texture === 1 ? ratio : norm * ratio ** texture;
    if (k > 2.2) k = 2.2;
    const spec = gloss * Math.max(0, lum - 1.3 * ym);
    px[0] = c[0] * k + spec;
    px[1] = c[1] * k + spec;
    px[2] = c[2] * k + spec;
  });
}
