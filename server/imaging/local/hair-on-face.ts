/**
 * The hair recolour on the face, on the mask grid (see planHair in hair-recolor.ts): the face's own dark
 * features (eyes, lashes, brows, nostrils, lips) that hair dye leaves alone, a beard's presence, and strands
 * of hair lying across the face, which are dyed with the hair.
 */
import type { Canvas } from "./blend.ts";
import { linearToLabInto, SRGB_TO_LINEAR } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import {
  BROW_L,
  BROW_R,
  CHIN_ZONE,
  EYE_L,
  EYE_R,
  FACE_OVAL,
  LIPS_OUTER,
  MOUSTACHE_ZONE,
} from "./landmarks.ts";
import { feather, fillPolygon, labelPatches, type Mask, type Point } from "./masks.ts";

/** The face oval's bounding box on the mask grid (x0, y0: the grid's origin), grown by 3 nodes; no data. */
export function ovalBox(g: FaceGeometry, mw: number, mh: number, x0: number, y0: number, step: number): Mask {
  const pts = pick(g, FACE_OVAL), xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const i0 = Math.max(0, Math.floor((Math.min(...xs) - x0) / step) - 3),
    i1 = Math.min(mw, Math.ceil((Math.max(...xs) - x0) / step) + 4),
    j0 = Math.max(0, Math.floor((Math.min(...ys) - y0) / step) - 3),
    j1 = Math.min(mh, Math.ceil((Math.max(...ys) - y0) / step) + 4);
  return { x: i0, y: j0, w: Math.max(1, i1 - i0), h: Math.max(1, j1 - j0), data: new Float32Array(0) };
}

/** Feathers the part of a w-wide grid plane inside `box` (the rest is left as it is). */
export function featherBox(plane: Float32Array, w: number, box: Mask, sigma: number): void {
  const sub: Mask = { ...box, data: new Float32Array(box.w * box.h) };
  for (let j = 0; j < box.h; j++) {
    sub.data.set(plane.subarray((box.y + j) * w + box.x, (box.y + j) * w + box.x + box.w), j * box.w);
  }
  feather(sub, sigma);
  for (let j = 0; j < box.h; j++) {
    plane.set(sub.data.subarray(j * box.w, (j + 1) * box.w), (box.y + j) * w + box.x);
  }
}

/**
 * Whether a beard or moustache is there: half the chin zone or of the
 * moustache zone (lips excluded by the zones) 20 L* or more darker than the
 * skin, on the mask grid. A strand across the face must not lead the dye into
 * it (see reachStrands). On the 16 beardless frontal test faces the darkest
 * chin zone (in shadow) counts 0.42.
 */
export function hasBeard(
  img: Canvas,
  g: FaceGeometry,
  skinL: number,
  box: Mask,
  x0: number,
  y0: number,
  step: number,
): boolean {
  const d = img.data;
  for (const zone of [CHIN_ZONE, MOUSTACHE_ZONE]) {
    const m: Mask = { ...box, data: new Float32Array(box.w * box.h) };
    fillPolygon(m, pick(g, zone).map(([x, y]): Point => [(x - x0) / step + 0.5, (y - y0) / step + 0.5]));
    let n = 0, dark = 0;
    const lab = new Float64Array(3);
    for (let k = 0; k < m.data.length; k++) {
      if (m.data[k] < 0.5) continue;
      const o =
        ((y0 + (box.y + Math.floor(k / box.w)) * step) * img.width + x0 + (box.x + (k % box.w)) * step) * 3;
      linearToLabInto(lab, SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]);
      n++;
      if (lab[0] < skinL - 20) dark++;
    }
    if (n > 0 && dark >= 0.5 * n) return true;
  }
  return false;
}

/** The nose's wings and nostrils (dark like hair; kept out of reachStrands). */
const NOSE_BASE = [129, 64, 98, 97, 2, 326, 327, 294, 358, 4];

/**
 * The face's own dark features on the mask grid: the eyes with their lashes,
 * the brows, the nostrils and the lips, each grown about its centre (see
 * reachStrands). A strand across them is left as it is.
 */
export function featureMask(
  g: FaceGeometry,
  box: Mask,
  x0: number,
  y0: number,
  step: number,
  hairAt: (x: number, y: number) => number,
): Mask {
  const m: Mask = { ...box, data: new Float32Array(box.w * box.h) };
  for (
    const [idx, grow, growY] of [
      [EYE_R, 1.8, 1.8],
      [EYE_L, 1.8, 1.8],
      [LIPS_OUTER, 1.25, 1.25],
      [NOSE_BASE, 1.35, 1.35],
    ] as const
  ) {
    const pts = pick(g, idx);
    const ex = pts.reduce((a, p) => a + p[0], 0) / pts.length,
      ey = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    // A closed eye's outline is a line along the lid; its lashes hang below it (sample2@1370's were dyed).
    let gy: number = growY;
    if (idx === EYE_R || idx === EYE_L) {
      const ys = pts.map((p) => p[1]), xs = pts.map((p) => p[0]);
      const tall = Math.max(...ys) - Math.min(...ys), wide = Math.max(...xs) - Math.min(...xs);
      if (tall < CLOSED_EYE * wide) gy = Math.max(growY, (EYE_TALL * wide * grow) / Math.max(1, tall));
    }
    // Ordered by angle about the centre: the nose's points are not listed along an outline.
    if (idx === NOSE_BASE) {
      pts.sort((a, b) => Math.atan2(a[1] - ey, a[0] - ex) - Math.atan2(b[1] - ey, b[0] - ex));
    }
    fillPolygon(
      m,
      pts.map((
        [x, y],
      ): Point => [(ex + (x - ex) * grow - x0) / step + 0.5, (ey + (y - ey) * gy - y0) / step + 0.5]),
    );
  }
  // The brows as boxes: on a tilted head the mesh's brow sat 0.06 face widths below the brow's tail and
  // sloped the other way (the tail, connected to a strand, took the dye). A column of the box with hair
  // just above it is hair lying over the brow's tail, not the brow (forehead skin lies above a brow): on a
  // head turned away the mesh put the tail 0.1 face widths out in the hair over the temple, and that hair
  // was left undyed in a rectangle with straight edges.
  for (const idx of [BROW_R, BROW_L]) {
    const pts = pick(g, idx), xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    const bw = Math.max(...xs) - Math.min(...xs);
    const l = Math.round((Math.min(...xs) - 0.1 * bw - x0) / step),
      r = Math.round((Math.max(...xs) + 0.1 * bw - x0) / step);
    const t = Math.round((Math.min(...ys) - 0.08 * g.fw - y0) / step),
      b = Math.round((Math.max(...ys) + 0.02 * g.fw - y0) / step);
    for (let i = Math.max(l, m.x); i <= Math.min(r, m.x + m.w - 1); i++) {
      let above = 0;
      for (let d = 1; d <= BROW_CHECK_ROWS; d++) above += hairAt(x0 + i * step, y0 + (t - d) * step);
      if (above / BROW_CHECK_ROWS >= 0.5) continue;
      for (let j = Math.max(t, m.y); j <= Math.min(b, m.y + m.h - 1); j++) {
        m.data[(j - m.y) * m.w + i - m.x] = 1;
      }
    }
  }
  feather(m, 1.5);
  for (let k = 0; k < m.data.length; k++) m.data[k] = Math.min(1, 2 * m.data[k]);
  return m;
}

/** An eye whose outline is less tall than this share of its width is closed or nearly (see featureMask). */
const CLOSED_EYE = 0.22;

/** A closed eye's grown outline is at least this share of its width tall (its lashes hang below the lid). */
const EYE_TALL = 0.5;

/** Grid rows above a brow's box whose colour tells a brow (skin above) from hair over it (featureMask). */
const BROW_CHECK_ROWS = 3;

/** A node counts as part of a strand across the face from this (smoothed) strand likeness (see reachStrands). */
const STRAND_LIKE = 0.5;

/**
 * Strands lying across the face (the core below the brows, where the mask
 * holds no hair, and the oval's fringe, where only sure colours count): nodes
 * whose `strand` likeness (hair-like and not skin-like, off the eyes, brows,
 * nose and lips, fading toward the chin or a beard) is above STRAND_LIKE join
 * the hair when connected, through such nodes, to hair above row `seedRows`
 * (eye level): strands fall from the head, while the face's own dark places (a
 * shadow, an eye corner) are not reached from there through hair-coloured
 * nodes. They take the room hair has there times their likeness, softened over
 * a node (a blotchy edge where a strand thins out otherwise), off nodes whose
 * colour is clearly skin (`skinAt`); each pixel at their edge is decided by its
 * own hair-likeness (`ovalAt` 0, see refine). The colour model is seldom sure
 * of such strands (they lie between its hair clusters in lightness): left to
 * sureness, they stayed near-black beside dyed hair, with a hard edge where the
 * face core began.
 */
export function reachStrands(
  m: Mask,
  box: Mask,
  strand: Float32Array,
  room: Float32Array,
  skinAt: Float32Array,
  ovalAt: Float32Array,
  seedRows: number,
): void {
  const { w, h, data } = m;
  const seen = new Uint8Array(w * h), stack: number[] = [];
  for (let j = 1; j < Math.min(h - 1, seedRows); j++) {
    for (let i = 1; i < w - 1; i++) {
      const k = j * w + i;
      if (data[k] <= 0.3) continue;
      for (const n of [k - 1, k + 1, k - w, k + w]) {
        if (!seen[n] && strand[n] > STRAND_LIKE) seen[n] = 1, stack.push(n);
      }
    }
  }
  if (!stack.length) return;
  const add = new Float32Array(w * h);
  while (stack.length) {
    const k = stack.pop()!, i = k % w;
    add[k] = Math.min(1, 1.25 * strand[k]) * room[k];
    if (i === 0 || i === w - 1 || k < w || k >= w * (h - 1)) continue;
    for (const n of [k - 1, k + 1, k - w, k + w, k - w - 1, k - w + 1, k + w - 1, k + w + 1]) {
      if (!seen[n] && strand[n] > STRAND_LIKE) seen[n] = 1, stack.push(n);
    }
  }
  featherBox(add, w, box, 1);
  for (let j = box.y; j < box.y + box.h; j++) {
    for (let k = j * w + box.x; k < j * w + box.x + box.w; k++) {
      const v = add[k] * (1 - skinAt[k]);
      if (v > data[k]) data[k] = v;
      if (v > 0.05) ovalAt[k] = 0;
    }
  }
}

/** Longest run of hair down a column of the face oval that may be a lash line or a brow, in face widths (see dropLashLines). */
export const LASH_RUN = 0.08;

/** Side of the smallest piece of such runs that is dropped, in face widths (see dropLashLines). */
export const LASH_PIECE = 0.045;

/**
 * About each eye, outside the face oval too: the lashes of a closed or downcast eye can hang an eye's width past
 * the mesh's outer corner, beside the hair at the face's edge (sample2@1370's right eye: 64 px, 1.0 eye widths;
 * its lashes curl down there in a run of 0.096 face widths). The zone reaches EYE_ZONE_OUT eye widths past each
 * corner and EYE_ZONE_HALF eye widths above and below the eye's centre; in it a run of up to EYE_LASH_RUN face
 * widths may be a lash line (see eyeZones, dropLashLines).
 */
export const EYE_ZONE_OUT = 1, EYE_ZONE_HALF = 0.5, EYE_LASH_RUN = 0.12;

/** The grid nodes (`w` x `h`, from x0, y0 every `step` px) in either eye's zone (see EYE_ZONE_OUT). */
export function eyeZones(
  g: FaceGeometry,
  w: number,
  h: number,
  x0: number,
  y0: number,
  step: number,
): Uint8Array {
  const zone = new Uint8Array(w * h);
  for (const idx of [EYE_R, EYE_L]) {
    const pts = pick(g, idx), xs = pts.map((p) => p[0]);
    const left = Math.min(...xs), right = Math.max(...xs), ew = right - left;
    const cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    const i0 = Math.max(0, Math.floor((left - EYE_ZONE_OUT * ew - x0) / step)),
      i1 = Math.min(w - 1, Math.ceil((right + EYE_ZONE_OUT * ew - x0) / step));
    const j0 = Math.max(0, Math.floor((cy - EYE_ZONE_HALF * ew - y0) / step)),
      j1 = Math.min(h - 1, Math.ceil((cy + EYE_ZONE_HALF * ew - y0) / step));
    for (let j = j0; j <= j1; j++) zone.fill(1, j * w + i0, j * w + i1 + 1);
  }
  return zone;
}

/**
 * In the face oval, a short run of hair-coloured nodes (0.3 and up) down a
 * column, with no hair (under 0.2) or skin right above and right below it, is
 * a lash line or a brow, not hair: a strand across the face runs on past the
 * features, and the hair at the oval's edge runs on out of it. The mesh's eyes
 * and brows (featureMask) keep these out where it finds them; on sample2@1370's
 * closed eye it put the brow's tail 0.1 face widths short and the lashes under
 * the lid's line, reached from the hair at the face's edge (dyed copper).
 * `inOval` marks where runs are judged (the face oval, or the eyes' zones: see
 * eyeZones). The nodes checked above and below a run may lie outside it: a
 * strand that goes on past its edge is kept.
 */
export function dropLashLines(
  mask: Mask,
  skinLike: Float32Array,
  inOval: Uint8Array,
  maxRun: number,
  minArea: number,
): void {
  const { w, h, data } = mask;
  const open = (k: number) => skinLike[k] >= 0.5 || data[k] < 0.2;
  const drop: Mask = { x: 0, y: 0, w, h, data: new Float32Array(w * h) };
  for (let i = 0; i < w; i++) {
    for (let j = 0; j < h; j++) {
      if (!inOval[j * w + i] || data[j * w + i] < 0.3) continue;
      let e = j;
      while (e + 1 < h && inOval[(e + 1) * w + i] && data[(e + 1) * w + i] >= 0.3) e++;
      // Within two nodes above the run's top and below its end.
      const above = (j >= 1 && open((j - 1) * w + i)) || (j >= 2 && open((j - 2) * w + i));
      const below = (e + 1 < h && open((e + 1) * w + i)) || (e + 2 < h && open((e + 2) * w + i));
      if (e - j + 1 <= maxRun && above && below) { for (let t = j; t <= e; t++) drop.data[t * w + i] = 1; }
      j = e;
    }
  }
  // Only pieces of some size: a column crosses a strand at the face's edge in a short run too.
  const { label, count } = labelPatches(drop.data, w, h, minArea);
  for (let k = 0; k < label.length; k++) if (label[k] === 0) drop.data[k] = 0;
  if (count === 0) return;
  // Softened, so that columns dropped beside kept ones do not leave a dyed block with straight edges.
  feather(drop, 1);
  for (let k = 0; k < data.length; k++) data[k] *= 1 - Math.min(1, 2 * drop.data[k]);
}

/** Mask value from which a node counts toward a mark (see dropFaceMarks). */
const MARK_STRONG = 0.5;

/** Widest and tallest a mark may be, in face widths (see dropFaceMarks). */
export const MARK_SIDE = 0.12;

/** Side of the smallest mark dropped, in face widths (see dropFaceMarks): a speck or two is left alone. */
export const MARK_AREA_SIDE = 0.04;

/** Share of a mark's surrounding nodes that are skin from which it is dropped (see dropFaceMarks). */
const MARK_RING_SKIN = 0.5;

/**
 * Below the head's hair (rows from `headRow`), a compact piece of surely painted nodes (MARK_STRONG and
 * up, 8-connected) that is not joined to the head's hair at that strength, no wider or taller than
 * `maxSide` nodes, at least `minArea` nodes, and ringed by skin (MARK_RING_SKIN of the nodes within two of
 * its box are skin-like) is a dark mark on the face, not hair: it is dropped with the nodes around it.
 * sample1@334's painted dot on her cheek lies past the mesh's face oval (narrower than her cheek there), as
 * dark as her hair: it was dyed Auburn, joined to her hair only through her cheek's half-likely nodes (0.2-0.5).
 * Hair beside the face or across it runs on into the head's hair, or out past the face; a lock cut off from
 * it is ringed by background and other hair as well as skin. Measured (Auburn; the 16 frontal faces, default
 * crop and 0.6 / 3.2 at 1080x1920, default and 0.5625 / 3.2 at 540x960): her dot's ring 0.55-0.69 skin; every
 * other piece of that size 0.45 at most (sample5@1319 at 540).
 */
export function dropFaceMarks(
  mask: Mask,
  skinLike: Float32Array,
  headRow: number,
  maxSide: number,
  minArea: number,
): void {
  const { w, h, data } = mask;
  const strong = new Uint8Array(w * h);
  for (let k = 0; k < w * h; k++) strong[k] = data[k] >= MARK_STRONG ? 1 : 0;
  const { label, count } = labelPatches(strong, w, h, minArea);
  // Per piece: its box, and whether it reaches above `headRow` (joined to the head's hair).
  const i0 = new Int32Array(count + 1).fill(w), i1 = new Int32Array(count + 1).fill(-1);
  const j0 = new Int32Array(count + 1).fill(h), j1 = new Int32Array(count + 1).fill(-1);
  const head = new Uint8Array(count + 1);
  for (let k = 0; k < w * h; k++) {
    const v = label[k];
    if (v === 0) continue;
    const i = k % w, j = (k - i) / w;
    if (j < headRow) head[v] = 1;
    i0[v] = Math.min(i0[v], i);
    i1[v] = Math.max(i1[v], i);
    j0[v] = Math.min(j0[v], j);
    j1[v] = Math.max(j1[v], j);
  }
  for (let v = 1; v <= count; v++) {
    if (head[v] || Math.max(i1[v] - i0[v], j1[v] - j0[v]) + 1 > maxSide) continue;
    let ring = 0, skin = 0;
    for (let j = Math.max(0, j0[v] - 2); j <= Math.min(h - 1, j1[v] + 2); j++) {
      for (let i = Math.max(0, i0[v] - 2); i <= Math.min(w - 1, i1[v] + 2); i++) {
        const k = j * w + i;
        if (label[k] === v) continue;
        ring++;
        if (skinLike[k] >= 0.5) skin++;
      }
    }
    if (skin < MARK_RING_SKIN * ring) continue;
    for (let j = Math.max(0, j0[v] - 1); j <= Math.min(h - 1, j1[v] + 1); j++) {
      for (let i = Math.max(0, i0[v] - 1); i <= Math.min(w - 1, i1[v] + 1); i++) data[j * w + i] = 0;
    }
  }
}
