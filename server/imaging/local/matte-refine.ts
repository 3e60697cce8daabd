/**
 * From the coarse person matte (a quarter-resolution grid from the selfie
 * model) to a full-resolution alpha that follows the photo's own edges, and a
 * composite without a fringe of the old background:
 *
 * 1. Only the chosen person: connected regions of the grid matte that do not
 *    touch the face are dropped (neighbours, detached fragments), and so is old
 *    background the model half takes beside the person (backgroundObjects).
 * 2. A guided filter (He, Sun and Tang) on the photo's luminance snaps the
 *    upsampled matte to real edges within a few pixels, at full resolution.
 * 3. Edge colours are decontaminated: where alpha is partial, the old
 *    background's local colour is estimated from nearby background pixels and
 *    removed (I = aF + (1-a)B solved for F) before the new backdrop goes in;
 *    the ramp below alpha 0.5 is steepened (mostly old background on soft edges).
 * 4. Specks the refinement left apart from the body, and larger pieces it split off the person, are
 *    dropped (dropAlphaIslands).
 */
import type { Canvas } from "./blend.ts";
import { linearToSrgb, luminance, SRGB_TO_LINEAR } from "./color.ts";
import { boxMean, labelPatches, type Point } from "./masks.ts";
import { cellColours, personAt, type PersonMask } from "./person-mask.ts";
import { clamp01 } from "./ramps.ts";

/** Grid cells at or above this count as person when finding connected regions. */
const REGION_THRESHOLD = 0.35;

/**
 * The connected region (8-connected, grid cells >= REGION_THRESHOLD) that holds `seed` (canvas pixels, the
 * face centre): 1 on its cells. Undefined when no cell near the seed reaches the threshold.
 */
function dominantRegion(person: PersonMask, seed: Point): Int32Array | undefined {
  const { w, h, data } = person;
  const label = new Int32Array(w * h);
  const sx = Math.min(w - 1, Math.max(0, Math.floor(seed[0] / person.step)));
  const sy = Math.min(h - 1, Math.max(0, Math.floor(seed[1] / person.step)));
  // The seed cell may sit in a low-confidence spot (an open mouth): start from the best cell near it.
  let start = sy * w + sx, best = -1;
  for (let dy = -3; dy <= 3; dy++) {
    for (let dx = -3; dx <= 3; dx++) {
      const x = sx + dx, y = sy + dy;
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      if (data[y * w + x] > best) {
        best = data[y * w + x];
        start = y * w + x;
      }
    }
  }
  if (best < REGION_THRESHOLD) return undefined;
  const stack = new Int32Array(w * h);
  let top = 0;
  stack[top++] = start;
  label[start] = 1;
  while (top > 0) {
    const k = stack[--top];
    const x = k % w, y = (k - x) / w;
    for (let dy = -1; dy <= 1; dy++) {
      const yy = y + dy;
      if (yy < 0 || yy >= h) continue;
      for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx;
        if (xx < 0 || xx >= w) continue;
        const n = yy * w + xx;
        if (label[n] === 0 && data[n] >= REGION_THRESHOLD) {
          label[n] = 1;
          stack[top++] = n;
        }
      }
    }
  }
  return label;
}

/**
 * Zeroes, in place, the cells at or above REGION_THRESHOLD of every region but the one that holds `seed` (see
 * dominantRegion); soft cells are left as they are. Before the hair is measured: an island of a neighbour's
 * hair that isolatePerson left (sample6@1081: a patch of the neighbour's dark hair beside her, detached from
 * her) took the dye like her own.
 */
export function dropIslands(person: PersonMask, seed: Point): void {
  const label = dominantRegion(person, seed), d = person.data;
  if (!label) return;
  for (let k = 0; k < d.length; k++) if (d[k] >= REGION_THRESHOLD && label[k] === 0) d[k] = 0;
}

/**
 * Zeroes every connected region (8-connected, grid cells >= REGION_THRESHOLD)
 * that does not contain `seed` (canvas pixels, the face centre), and the soft
 * fringe around those regions; with the cells' colours (`rgb`, see cellColours),
 * the background objects in the region too (backgroundObjects). Returns a new
 * mask; the input is kept.
 */
export function keepDominantRegion(person: PersonMask, seed: Point, rgb?: Float32Array): PersonMask {
  const { w, h, data } = person;
  const out = new Float32Array(data);
  const label = dominantRegion(person, seed);
  if (!label) return { ...person, data: out };
  // Cells outside the kept region keep only their soft fringe next to it (one cell), nothing else.
  // Next to it: the region dilated by one cell (3x3), as a pass along rows then one along columns.
  const across = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0, k = y * w; x < w; x++, k++) {
      across[k] = label[k] | (x > 0 ? label[k - 1] : 0) | (x < w - 1 ? label[k + 1] : 0);
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0, k = y * w; x < w; x++, k++) {
      if (label[k] === 1) continue;
      const near = (across[k] | (y > 0 ? across[k - w] : 0) | (y < h - 1 ? across[k + w] : 0)) === 1;
      if (!near || data[k] >= REGION_THRESHOLD) out[k] = near ? Math.min(out[k], REGION_THRESHOLD) : 0;
    }
  }
  // What the model says, less the background objects (for solidify: they are background).
  let model = data;
  if (rgb) {
    const drop = backgroundObjects(person, label, rgb);
    for (let k = 0; k < w * h; k++) {
      if (drop[k]) {
        if (model === data) model = data.slice();
        label[k] = 0;
        out[k] = 0;
        model[k] = 0;
      }
    }
  }
  solidify(out, label, w, h, model, rgb);
  return { ...person, data: out };
}

/** Below this the selfie model is unsure of a cell of the region (an edge, or an object it half takes). */
const UNSURE = 0.8;
/** At or above this a region cell is surely person. */
const FG_SURE = 0.85;
/**
 * How far (fraction of the grid's width: ~0.25 face widths at the usual framing) the person's own
 * colours are looked for; a cell with none of them that near is not judged.
 */
const OBJECT_RADIUS = 0.1;
/** A cell joins the old background when its colour is at most this far (sRGB) from it... */
const OBJECT_NEAR = 40;
/** ...and this many times nearer it than every sure person colour around. */
const OBJECT_RATIO = 2.5;
/**
 * OBJECT_RATIO on a cell the selfie passes disagree on (PersonMask.doubted): one pass already said
 * background, so the colour need not be as far from the person's. At 2.5 the frame beside sample6@1081's
 * caramel lengths stayed (its colour ~50 sRGB from theirs, ~16 from the frame's outside).
 */
const DOUBTED_RATIO = 1.5;
/** Patches smaller than this share of the grid's width, squared, are left to the edge refinement. */
const OBJECT_MIN = 1 / 30;

/**
 * Old background the selfie model half takes for the person, joined to the hair or the body (a
 * wooden window frame beside the hair, at 0.35-0.7): the region's threshold keeps it and solidify
 * makes it solid, so the refinement takes it for sure person. Such a patch is continuous with
 * the background outside the region: grown from the region's outline inward through unsure
 * cells (below UNSURE) whose colour stays near the outside cell it was grown from (OBJECT_NEAR)
 * and is OBJECT_RATIO times nearer that than any sure person colour (FG_SURE or more) within
 * OBJECT_RADIUS (the hair or clothes beside it; a cell with no sure person that near is kept).
 * A cell the selfie passes disagree on (PersonMask.doubted: the head tile sure of what the whole
 * canvas's pass left out) is judged as an unsure one whatever its value, at DOUBTED_RATIO, and its
 * colour is not one of the person's. Patches of at least OBJECT_MIN² cells are returned (1 per cell
 * to drop); smaller ones are a strand's or an edge's mixed colour, which the refinement blends. A
 * patch is returned only when some of it grew from the outside proper (a piece of the cells off the
 * region of OBJECT_MIN² cells or more): grown only from pinholes the model left in the hair, a
 * hand-wide patch of sample4@1216's blonde lengths at the frame's edge was cut out and showed the
 * new backdrop (the frame beside sample6's hair grows from the window too, and from the small
 * pieces of it the region encloses).
 * `label`: 1 on the region's cells; `rgb`: each cell's sRGB colour (cellColours).
 */
export function backgroundObjects(
  person: PersonMask,
  label: Int32Array | Uint8Array,
  rgb: Float32Array,
): Uint8Array {
  const { w, h, data, doubted } = person;
  const n = w * h;
  const drop = new Uint8Array(n);
  // Every stride-th cell of the window is looked at (at most ~17 x 17).
  const R = Math.max(3, Math.round(OBJECT_RADIUS * w)), stride = Math.ceil(R / 8);
  // Squared sRGB distances (Math.hypot is several times slower than the sum).
  const dist2 = (a: number, b: number) => {
    const dr = rgb[a * 3] - rgb[b * 3],
      dg = rgb[a * 3 + 1] - rgb[b * 3 + 1],
      db = rgb[a * 3 + 2] - rgb[b * 3 + 2];
    return dr * dr + dg * dg + db * db;
  };
  // The nearest sure person colour within R (every stride-th cell; squared), per candidate, when asked.
  const fgNear = new Float32Array(n).fill(-1);
  const nearestPerson = (k: number): number => {
    if (fgNear[k] >= 0) return fgNear[k];
    const x = k % w, y = (k - x) / w;
    let best = Infinity;
    for (let yy = Math.max(0, y - R); yy <= Math.min(h - 1, y + R); yy += stride) {
      for (let xx = Math.max(0, x - R), o = yy * w; xx <= Math.min(w - 1, x + R); xx += stride) {
        const q = o + xx;
        if (label[q] === 1 && data[q] >= FG_SURE && !doubted?.[q]) {
          const d = dist2(k, q);
          if (d < best) best = d;
        }
      }
    }
    return (fgNear[k] = best);
  };
  const candidate = (k: number) => label[k] === 1 && (data[k] < UNSURE || doubted?.[k] === 1);
  const min = (OBJECT_MIN * w) ** 2;
  // Breadth-first from the outline: each reached cell carries the outside cell it was grown from.
  const from = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let head = 0, tail = 0;
  const joins = (k: number, ref: number) => {
    const d = dist2(k, ref);
    if (d > OBJECT_NEAR * OBJECT_NEAR) return false;
    const f = nearestPerson(k), ratio = doubted?.[k] ? DOUBTED_RATIO : OBJECT_RATIO;
    return f < Infinity && ratio * ratio * d < f;
  };
  for (let k = 0; k < n; k++) {
    if (!candidate(k)) continue;
    const x = k % w, y = (k - x) / w;
    // The outside neighbour nearest in colour.
    let ref = -1, best = Infinity;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx, yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        const q = yy * w + xx;
        if (label[q] === 1) continue;
        const d = dist2(k, q);
        if (d < best) {
          best = d;
          ref = q;
        }
      }
    }
    if (ref >= 0 && joins(k, ref)) {
      from[k] = ref;
      queue[tail++] = k;
    }
  }
  while (head < tail) {
    const k = queue[head++], ref = from[k];
    const x = k % w, y = (k - x) / w;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx, yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        const q = yy * w + xx;
        if (from[q] >= 0 || !candidate(q) || !joins(q, ref)) continue;
        from[q] = ref;
        queue[tail++] = q;
      }
    }
  }
  // Patches of the reached cells (8-connected), kept when large enough.
  const reached = new Uint8Array(n);
  for (let i = 0; i < tail; i++) reached[queue[i]] = 1;
  const { label: patches, count } = labelPatches(reached, w, h, min);
  if (count === 0) return drop;
  // Whether the piece of the cells off the region that holds `q` has `min` cells or more: a flood
  // fill that stops at `min` (labelling the whole outside made a plan's check at 1080x1920 ~10 ms
  // slower, 46-48 ms against 36-41). Cells it visited remember the answer (1 small, 2 large): a
  // later fill that meets one stops there.
  const piece = new Uint8Array(n), fill: number[] = [];
  const outsideProper = (q: number): boolean => {
    if (piece[q] !== 0) return piece[q] === 2;
    fill.length = 0;
    fill.push(q);
    piece[q] = 3;
    let big = fill.length >= min;
    for (let i = 0; i < fill.length && !big; i++) {
      const k = fill[i], x = k % w, y = (k - x) / w;
      for (let dy = -1; dy <= 1 && !big; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const nb = yy * w + xx;
          if (label[nb] === 1 || piece[nb] === 3) continue;
          if (piece[nb] === 2 || fill.length + 1 >= min) {
            big = true;
            break;
          }
          piece[nb] = 3;
          fill.push(nb);
        }
      }
    }
    for (const k of fill) piece[k] = big ? 2 : 1;
    return big;
  };
  const proper = new Uint8Array(count + 1);
  for (let i = 0; i < tail; i++) {
    const k = queue[i], p = patches[k];
    if (p > 0 && !proper[p] && outsideProper(from[k])) proper[p] = 1;
  }
  for (let k = 0; k < n; k++) if (proper[patches[k]]) drop[k] = 1;
  return drop;
}

/**
 * An enclosed hole the selfie model is sure is background (mean under HOLE_SURE) whose colour is
 * not the person's around it (more than HOLE_APART from the mean of the region's cells bordering
 * it, sRGB): the background seen through a loop of arm and head, not a shirt the model doubted
 * where it resembles the wall (that hole has the shirt's colour).
 */
function openHole(
  hole: number[],
  out: Float32Array,
  label: Int32Array,
  rgb: Float32Array,
  w: number,
): boolean {
  if (hole.length < HOLE_MIN) return false;
  let v = 0;
  for (const k of hole) v += out[k];
  if (v / hole.length >= HOLE_SURE) return false;
  // A hole no region cell borders is not judged (an enclosed hole always has one; see solidify).
  const gap = rimGap(hole, label, rgb, w);
  return gap !== Infinity && gap > HOLE_APART;
}

/**
 * A pocket at the frame's edge that no cell the model is sure is background opens (see solidify) is
 * filled when its colour is the person's around it (within HOLE_APART): hair or a shoulder running off
 * the frame where the model's values fall to 0.3 (sample4@1216: her blonde hair at the right edge, a
 * 12 x 80 px notch of the new backdrop cut into it). A pocket of another colour stays open.
 */
function edgeNotch(hole: number[], label: Int32Array, rgb: Float32Array, w: number): boolean {
  return rimGap(hole, label, rgb, w) <= HOLE_APART;
}

/**
 * The distance (sRGB) between a hole's mean colour and that of the region's cells bordering it
 * (4-connected); Infinity when none borders it.
 */
function rimGap(hole: number[], label: Int32Array, rgb: Float32Array, w: number): number {
  const hc = [0, 0, 0], rc = [0, 0, 0];
  let rim = 0;
  const n = label.length;
  for (const k of hole) {
    for (let c = 0; c < 3; c++) hc[c] += rgb[k * 3 + c];
    const x = k % w;
    for (const nb of [k - w, k + w, x > 0 ? k - 1 : -1, x < w - 1 ? k + 1 : -1]) {
      if (nb < 0 || nb >= n || label[nb] !== 1) continue;
      rim++;
      for (let c = 0; c < 3; c++) rc[c] += rgb[nb * 3 + c];
    }
  }
  if (rim === 0) return Infinity;
  return Math.hypot(...hc.map((s, c) => s / hole.length - rc[c] / rim));
}

/** Whether any of the cells lies on the grid's outer row or column. */
function onBorder(cells: number[], w: number, h: number): boolean {
  return cells.some((k) => {
    const x = k % w;
    return x === 0 || x === w - 1 || k < w || k >= (h - 1) * w;
  });
}

/** See openHole: the hole's mean grid value under this... */
const HOLE_SURE = 0.15;
/** ...and its mean colour this far from the bordering person cells' (sRGB units)... */
const HOLE_APART = 40;
/** ...and at least this many cells (a speck is the model's noise). */
const HOLE_MIN = 16;

/** Cells this far (chessboard, in grid cells) inside the kept region are surely person. */
const CORE_DEPTH = 3;

/**
 * Inside the person there is no old background and no backdrop showing
 * through: small holes enclosed by the kept region (the model unsure on a
 * shirt that resembles the wall; under 2% of the region) are filled, unless
 * the cells' colours (`rgb`) show background seen through a loop of arm and
 * head (see openHole), and
 * every cell CORE_DEPTH cells or more inside the region gets alpha 1 (the
 * model's 0.6-0.8 inside a torso would let the new backdrop show through).
 * Larger enclosed gaps (an arm on a hip) stay background. With the colours, a
 * small pocket the model doubted where the person runs off the frame is filled
 * like a hole when it has the person's colour (see edgeNotch).
 */
function solidify(
  out: Float32Array,
  label: Int32Array,
  w: number,
  h: number,
  model: Float32Array,
  rgb?: Float32Array,
): void {
  const n = w * h;
  let area = 0;
  for (let k = 0; k < n; k++) area += label[k];
  // Background reachable from the frame's border (4-connected through cells outside the region);
  // a cell is marked when it is put on the stack, so it is there once.
  const outside = new Uint8Array(n);
  const stack = new Int32Array(n);
  let top = 0;
  const reach = (k: number) => {
    if (outside[k] || label[k] === 1) return;
    outside[k] = 1;
    stack[top++] = k;
  };
  // With the colours, only border cells that the model (`model`: its values before the region was kept,
  // background objects at 0) is sure are background, with the cell inside them, start it: a pocket of cells it
  // was unsure of, cut by the frame's edge and otherwise enclosed by the region, is looked at as a hole (see
  // edgeNotch). One sure cell at the edge is not enough: the person's isolation zeroes a patch it drops, down
  // to one column of cells along the edge.
  const seed = (k: number, inner: number) =>
    (!rgb || (model[k] < HOLE_SURE && model[inner] < HOLE_SURE)) && reach(k);
  for (let x = 0; x < w; x++) {
    seed(x, Math.min(n - 1, x + w));
    seed((h - 1) * w + x, Math.max(0, (h - 2) * w + x));
  }
  for (let y = 0; y < h; y++) {
    seed(y * w, y * w + Math.min(1, w - 1));
    seed(y * w + w - 1, y * w + Math.max(0, w - 2));
  }
  while (top > 0) {
    const k = stack[--top];
    const x = k % w;
    if (x > 0) reach(k - 1);
    if (x < w - 1) reach(k + 1);
    if (k >= w) reach(k - w);
    if (k < n - w) reach(k + w);
  }
  const solid = new Uint8Array(n);
  // A cell of the hole being traced, unless already seen.
  const step = (nb: number) => {
    if (nb < 0 || nb >= n || label[nb] === 1 || outside[nb] || solid[nb] !== 0) return;
    solid[nb] = 2;
    stack[top++] = nb;
  };
  const hole: number[] = [];
  for (let k0 = 0; k0 < n; k0++) {
    if (label[k0] === 1) solid[k0] = 1;
    if (label[k0] === 1 || outside[k0] || solid[k0] !== 0) continue;
    // One enclosed hole: filled when small.
    hole.length = 0;
    stack[top++] = k0;
    solid[k0] = 2;
    while (top > 0) {
      const k = stack[--top];
      hole.push(k);
      const x = k % w;
      if (x > 0) step(k - 1);
      if (x < w - 1) step(k + 1);
      step(k - w);
      step(k + w);
    }
    // Only a small hole is judged (its colours are read only then).
    const fill = hole.length < 0.02 * area &&
      (onBorder(hole, w, h)
        ? !!rgb && edgeNotch(hole, label, rgb, w)
        : !(rgb && openHole(hole, out, label, rgb, w)));
    if (fill) {
      for (const k of hole) {
        out[k] = 1;
        solid[k] = 1;
      }
    }
  }
  // Chessboard distance to the nearest cell outside the (filled) region, two raster passes; the
  // frame's edge is not a boundary (a body cut by the bottom edge is solid down to it).
  const depth = new Uint16Array(n);
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? CORE_DEPTH : depth[y * w + x]);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (solid[y * w + x] !== 1) continue; // 2: a hole left open
      depth[y * w + x] = 1 + Math.min(at(x - 1, y), at(x, y - 1), at(x - 1, y - 1), at(x + 1, y - 1));
    }
  }
  for (let y = h - 1; y >= 0; y--) {
    for (let x = w - 1; x >= 0; x--) {
      const k = y * w + x;
      if (depth[k] === 0) continue;
      depth[k] = Math.min(
        depth[k],
        1 + Math.min(at(x + 1, y), at(x, y + 1), at(x + 1, y + 1), at(x - 1, y + 1)),
      );
      if (depth[k] >= CORE_DEPTH) out[k] = 1;
    }
  }
}

/** The soft matte's smoothstep 0.15..0.85 (the selfie model's edges are wide). */
const tighten = (v: number) => {
  if (v <= 0.15) return 0;
  if (v >= 0.85) return 1;
  const t = (v - 0.15) / 0.7;
  return t * t * (3 - 2 * t);
};

export interface RefinedMatte {
  /** Size of the refined grid: the canvas divided by `scale`. */
  width: number;
  height: number;
  scale: number;
  /** Alpha per canvas pixel, 0..1. */
  alpha: Float32Array;
  /**
   * Local mean colours (linear RGB planes) of the sure person and the sure old background, on a
   * grid half the refined grid's size (they are smooth over R pixels): index
   * (y >> 1) * meansWidth + (x >> 1) for refined-grid pixel (x, y). Computed only in the unsure
   * tiles and the tiles next to them (where the composite blends); NaN elsewhere.
   */
  fg: Float32Array[];
  bg: Float32Array[];
  meansWidth: number;
}

/**
 * The old background counts as patterned in proportion to its variance against TEXTURE_SHARE of
 * the squared person-background distance; SPREAD_FLOOR (linear light, squared) is the least
 * spread a side is given (grain).
 */
const TEXTURE_SHARE = 0.02, SPREAD_FLOOR = 0.002;

/** Side of the tiles the refined grid is split into: only tiles near the person's edge are refined. */
const TILE = 16;

/**
 * Scratch planes of one worker, reused from render to render (a 540x960 plane
 * is 2 MB; a render needed a dozen). Only intermediate values live here: what
 * refineMatte returns is allocated per call.
 */
const scratch = new Map<string, Float32Array>();
const scratch64 = new Map<string, Float64Array>();
/** Drops the scratch planes (a worker going idle gives their memory back; the next matte allocates them). */
export function releaseMatteScratch(): void {
  scratch.clear();
  islands.label = new Int32Array(0);
  islands.stack = new Int32Array(0);
  scratch64.clear();
  guidedScratch.clear();
}

/** Bytes of scratch planes held (diagnostics). */
export function matteScratchBytes(): number {
  let n = 0;
  for (
    const b of [
      ...scratch.values(),
      ...scratch64.values(),
      ...[...guidedScratch.values()].flat(),
      islands.label,
      islands.stack,
    ]
  ) {
    n += b.byteLength;
  }
  return n;
}

function plane(name: string, n: number): Float32Array {
  let b = scratch.get(name);
  if (!b || b.length !== n) {
    b = new Float32Array(n);
    scratch.set(name, b);
  }
  return b;
}

/**
 * What refinement needs from the grid matte alone (no pixel): the kept region, the refined grid,
 * which tiles are sure, unsure or read, the upsampled matte and its box means. It depends only
 * on the person mask, the face centre and the canvas size, so it may be made while the canvas is
 * still being rendered, and kept with the mask.
 */
export interface MattePlan {
  scale: number;
  W: number;
  H: number;
  kept: PersonMask;
  /** The unsure band's radius, the guided filter's, the local means' (on the half grid). */
  R: number;
  r: number;
  Rc: number;
  /** Tiles per row and column; per tile: its own coarse value, the one R + 2r px around it (-1 mixed), read. */
  tw: number;
  th: number;
  own: Int8Array;
  around: Int8Array;
  need: Uint8Array;
  /** The upsampled coarse matte and its box means of radius R and R / 2. */
  p: Float32Array;
  pMean: Float32Array;
  near: Float32Array;
  /**
   * Whether background objects joined to the person (see backgroundObjects) were looked for with
   * the pixels' colours: a plan made before the canvas exists is checked by its first refineMatte,
   * which updates it in place (a kept plan is checked once).
   */
  checked: boolean;
}

export function planMatte(
  size: { width: number; height: number },
  person: PersonMask,
  seed: Point,
  rgb?: Float32Array,
): MattePlan {
  return planFromRegion(size, keepDominantRegion(person, seed, rgb), !!rgb);
}

/** planMatte's plan from the region it keeps (`checked`: the region was kept with the pixels' colours). */
function planFromRegion(
  size: { width: number; height: number },
  kept: PersonMask,
  checked: boolean,
): MattePlan {
  // Frames wider than REFINE_MAX_WIDTH are refined at half size (4x less work; the selfie
  // matte's own grid is 4 px, so the refined edge is still 2x finer than it was).
  const scale = size.width > REFINE_MAX_WIDTH ? 2 : 1;
  const W = Math.ceil(size.width / scale), H = Math.ceil(size.height / scale), n = W * H;
  // Wider than the selfie matte's error (a grid cell is ~W/256 px, its edges ~2 cells soft).
  const R = Math.max(6, Math.round(W / 45));
  // The guided filter's radius.
  const r = Math.max(1, Math.round(W / 540));
  const tw = Math.ceil(W / TILE), th = Math.ceil(H / TILE);
  // Each tile's coarse value within `margin` pixels: 0 or 1 when every grid cell that reaches
  // there is sure (tighten gives exactly 0 or 1 between such cells), else -1.
  const tileValue = (tx: number, ty: number, margin: number): number => {
    const cell = (v: number, n: number) =>
      Math.min(n - 1, Math.max(0, Math.floor(((v + 0.5) * scale) / kept.step - 0.5)));
    const x0 = cell(tx * TILE - margin, kept.w),
      x1 = Math.min(kept.w - 1, cell((tx + 1) * TILE - 1 + margin, kept.w) + 1);
    const y0 = cell(ty * TILE - margin, kept.h),
      y1 = Math.min(kept.h - 1, cell((ty + 1) * TILE - 1 + margin, kept.h) + 1);
    let lo = Infinity, hi = -Infinity;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const v = kept.data[y * kept.w + x];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
    return hi <= 0.15 ? 0 : lo >= 0.85 ? 1 : -1;
  };
  const own = new Int8Array(tw * th), around = new Int8Array(tw * th);
  for (let ty = 0; ty < th; ty++) {
    for (let tx = 0; tx < tw; tx++) {
      own[ty * tw + tx] = tileValue(tx, ty, 0);
      around[ty * tw + tx] = tileValue(tx, ty, R + 2 * r + 1);
    }
  }
  // The half-size grid of the local means (below) and its box radius.
  const Rc = Math.max(3, R >> 1);
  // The means are read only in the unsure tiles (the estimate) and next to them (the composite's
  // blend): only pixels within the means' box (2 Rc px) of those tiles are summed.
  const reach = Math.ceil((2 * Rc + 2) / TILE), need = new Uint8Array(tw * th);
  for (let ty = 0; ty < th; ty++) {
    for (let tx = 0; tx < tw; tx++) {
      if (around[ty * tw + tx] >= 0) continue;
      for (let y = Math.max(0, ty - reach); y <= Math.min(th - 1, ty + reach); y++) {
        need.fill(1, y * tw + Math.max(0, tx - reach), y * tw + Math.min(tw - 1, tx + reach) + 1);
      }
    }
  }
  // The upsampled coarse matte.
  const p = new Float32Array(n);
  forTiles(W, H, (t, x0, y0, x1, y1) => {
    const v = own[t];
    for (let y = y0; y < y1; y++) {
      if (v >= 0) {
        p.fill(v, y * W + x0, y * W + x1);
        continue;
      }
      for (let x = x0; x < x1; x++) {
        p[y * W + x] = tighten(personAt(kept, (x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5));
      }
    }
  });
  const tmp = plane("tmp", n), pMean = new Float32Array(n), near = new Float32Array(n);
  boxMean(p, W, H, R, pMean, tmp);
  // Sure person / sure background: far enough inside their side of the coarse edge.
  boxMean(p, W, H, Math.max(2, R >> 1), near, tmp);
  return { scale, W, H, kept, R, r, Rc, tw, th, own, around, need, p, pMean, near, checked };
}

/**
 * Full-resolution alpha. The grid matte (dominant region only) is upsampled;
 * in the band where it is unsure (any window of radius R around the pixel
 * holds both person and background), each pixel's alpha is read off the
 * colour line between the local sure-person and sure-background means
 * (I = aF + (1-a)B), weighted by how far apart those colours are; then a
 * guided filter on the luminance cleans the noise while keeping edges.
 * Away from the edge (a tile whose grid cells, R + 2r pixels around it, are
 * all sure person or all sure background) every step gives back the coarse
 * matte's 0 or 1: such tiles are filled, and only the others are computed.
 * A `plan` made without the cells' colours is checked for background objects
 * first, with this canvas's (see checkPlan; it is updated in place).
 */
export function refineMatte(
  full: Canvas,
  person: PersonMask,
  seed: Point,
  plan?: MattePlan,
): RefinedMatte {
  if (!plan) plan = planMatte(full, person, seed, cellColours(full, person));
  else if (!plan.checked) checkPlan(plan, full, person, seed);
  const { scale, W, H, r, around, need, p, pMean } = plan;
  const n = W * H, eps = 0.001;
  // The pixels: only the tiles that need them are halved.
  const d = scale === 1 ? full.data : halfSize(full, need);
  // Local means of the sure person's and sure background's linear colours on a half-size grid
  // (2x2 sums): 4x less work, the means are smooth.
  const cw = (W + 1) >> 1, ch = (H + 1) >> 1;
  const { fg, bg, fgVar, bgVar } = localMeans(plan, d, cw, ch);
  // The colour-line estimate, in the unsure band only (elsewhere the coarse matte).
  const est = plane("est", n);
  est.set(p);
  forTiles(W, H, (t, x0, y0, x1, y1) => {
    if (around[t] >= 0) return;
    for (let y = y0; y < y1; y++) {
      const c0 = (y >> 1) * cw;
      for (let x = x0; x < x1; x++) {
        const k = y * W + x;
        if (pMean[k] <= 0.001 || pMean[k] >= 0.999) continue;
        const c = c0 + (x >> 1);
        const f0 = fg[0][c], b0 = bg[0][c];
        if (Number.isNaN(f0) || Number.isNaN(b0)) continue;
        const varB = bgVar[c];
        const dr = f0 - b0, dg = fg[1][c] - bg[1][c], db = fg[2][c] - bg[2][c];
        const len2 = dr * dr + dg * dg + db * db;
        const i = k * 3;
        const r = SRGB_TO_LINEAR[d[i]], g = SRGB_TO_LINEAR[d[i + 1]], b = SRGB_TO_LINEAR[d[i + 2]];
        const ir = r - b0, ig = g - bg[1][c], ib = b - bg[2][c];
        let a = (ir * dr + ig * dg + ib * db) / (len2 + 1e-6);
        a = a < 0 ? 0 : a > 1 ? 1 : a;
        // A patterned old background (blinds, shelves): its mean is a colour none of its pixels
        // has, and a slat darker than that mean reads as part person on the line. There, each
        // side's spread says more: the pixel goes to the side it is nearer to, in units of that
        // side's own spread (its variance about its local mean).
        const tex = varB / (varB + TEXTURE_SHARE * len2 + 1e-6);
        if (tex > 0.05) {
          const varF = fgVar[c];
          const jr = r - f0, jg = g - fg[1][c], jb = b - fg[2][c];
          const qB = (ir * ir + ig * ig + ib * ib) / (varB + SPREAD_FLOOR);
          const qF = (jr * jr + jg * jg + jb * jb) / (varF + SPREAD_FLOOR);
          a = (1 - tex) * a + tex * (qB / (qB + qF + 1e-9));
        }
        // Similar person and background colours say little: lean on the coarse matte there.
        const conf = Math.min(1, Math.sqrt(len2) / 0.12);
        est[k] = conf * a + (1 - conf) * p[k];
      }
    }
  });
  // Guided filter (grey guide, small window): removes the per-pixel noise of the estimate. Per
  // tile, on the tile and 2r pixels around it (what its box means of box means read).
  const alpha = new Float32Array(n);
  const side = TILE + 4 * r, pn = side * side;
  const gI = new Float32Array(pn), gP = new Float32Array(pn), gT = new Float32Array(pn);
  const mI = new Float32Array(pn),
    mP = new Float32Array(pn),
    mIP = new Float32Array(pn),
    mII = new Float32Array(pn),
    ga = new Float32Array(pn),
    gb = new Float32Array(pn);
  forTiles(W, H, (t, x0, y0, x1, y1) => {
    if (around[t] >= 0) {
      for (let y = y0; y < y1; y++) alpha.fill(around[t], y * W + x0, y * W + x1);
      return;
    }
    const px0 = Math.max(0, x0 - 2 * r), py0 = Math.max(0, y0 - 2 * r);
    const pw = Math.min(W, x1 + 2 * r) - px0, ph = Math.min(H, y1 + 2 * r) - py0, m = pw * ph;
    for (let y = 0; y < ph; y++) {
      for (let x = 0; x < pw; x++) {
        const k = (py0 + y) * W + px0 + x, i = k * 3, q = y * pw + x;
        gI[q] = (0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]) / 255;
        gP[q] = est[k];
      }
    }
    if (r === 1) guided3(gI, gP, pw, ph, x0 - px0, y0 - py0, x1 - px0, y1 - py0, eps, ga, gb);
    else {
      const box = (src: Float32Array, out: Float32Array) => boxMean(src, pw, ph, r, out, gT);
      box(gI, mI);
      box(gP, mP);
      for (let q = 0; q < m; q++) ga[q] = gI[q] * gP[q];
      box(ga, mIP);
      for (let q = 0; q < m; q++) ga[q] = gI[q] * gI[q];
      box(ga, mII);
      for (let q = 0; q < m; q++) {
        const varI = mII[q] - mI[q] * mI[q];
        const a = (mIP[q] - mI[q] * mP[q]) / (varI + eps);
        mIP[q] = a;
        mII[q] = mP[q] - a * mI[q];
      }
      box(mIP, ga);
      box(mII, gb);
    }
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const k = y * W + x, q = (y - py0) * pw + (x - px0);
        const v = ga[q] * gI[q] + gb[q];
        // Below 0.5 the alpha is squared (2v², continuous at 0.5): on a soft photo edge (an
        // upscaled crop, a bright window behind the hair) the ramp outside the contour is mostly
        // old background, and each of its pixels kept a share of the person's colour over the new
        // backdrop, a grey rim 10-15 px wide. The 0.5 contour does not move.
        alpha[k] = est[k] === 1 && v > 0.9 ? 1 : v < 0.02 ? 0 : v > 0.98 ? 1 : v < 0.5 ? 2 * v * v : v;
      }
    }
  });
  dropAlphaIslands(alpha, plan, [seed[0] / scale, seed[1] / scale]);
  return { width: W, height: H, scale, alpha, fg, bg, meansWidth: cw };
}

/** Pieces are looked for among pixels of alpha ISLAND_ALPHA or more, then FAINT_ALPHA or more. */
const ISLAND_ALPHA = 0.5, FAINT_ALPHA = 0.05;
/** A piece apart from the body smaller than this share of the refined grid's width, squared, is an island. */
const ISLAND_MAX = 0.02;
/** The soft rim (alpha below ISLAND_ALPHA) within this many pixels of a speck goes with it. */
const ISLAND_RIM = 2;

/**
 * Zeroes, in place, the small pieces of a refined alpha (`plan`'s grid) that lie apart from the person's
 * body: a speck of a bright window beside the hair, a square of a stair's wood in the dark between two
 * locks, a fleck of a red cushion (the colour line took them for the person where the grid matte was
 * unsure, and the guided filter kept them apart from the body). Looked for twice: specks of alpha
 * ISLAND_ALPHA or more, which a faint rim may join to the body, go with that rim (ISLAND_RIM px, except
 * where it is as near the body); then faint smudges (FAINT_ALPHA or more) joined to nothing. A piece that
 * reaches the body (see dropPieces), or is ISLAND_MAX² or larger, is the body. On the sixteen test portraits
 * framed at 1080x1920 (a 540-px grid): 24 specks on eleven of them before (1 to 80 px) and 36 faint pieces,
 * none after; 3 ms a matte (decision 019). With the face's centre (`seed`, refined-grid pixels), larger
 * pieces no path joins to the face's are dropped too, at each level (see dropDetached).
 */
export function dropAlphaIslands(alpha: Float32Array, plan: MattePlan, seed?: Point): void {
  dropPieces(alpha, plan, ISLAND_ALPHA, Infinity, ISLAND_RIM);
  if (seed) dropDetached(alpha, plan, seed, ISLAND_ALPHA);
  dropPieces(alpha, plan, FAINT_ALPHA, ISLAND_ALPHA, 0);
  if (seed) dropDetached(alpha, plan, seed, FAINT_ALPHA);
}

/** A piece no path joins to the face's, under this share of the face's piece, is dropped (see dropDetached). */
const DETACHED_SHARE = 0.02;
/** The soft rim (alpha under the pass's threshold) within this many pixels of a dropped piece goes with it. */
const DETACHED_RIM = 3;

/**
 * Zeroes, in place, pieces of alpha `from` or more that no path of such pixels (8-connected) joins to
 * the face's (`seed`, refined-grid pixels), when under DETACHED_SHARE of the face's piece, with their
 * soft rim (DETACHED_RIM px of alpha under `from`, except where a kept piece is as near). dropPieces
 * takes a piece ISLAND_MAX² or larger, or one that reaches a tile the grid matte is sure of, for the
 * body: at sample6@1081's wide crop a 6,104-px block of the wooden window frame beside her hair stayed,
 * apart from her (the grid matte had joined it to her through the frame's cells, and the refinement
 * split it off), with a faint smudge of 179 px (at 0.05) beside it. Tiles whose every pixel is `from`
 * or more ("full") are one node each, joined to their full neighbours; the other pixels are traced
 * one by one (in the tiles the grid matte is unsure of: ~1-2 ms a pass at 1080x1920).
 */
function dropDetached(
  alpha: Float32Array,
  { W, H, tw, th, around }: MattePlan,
  seed: Point,
  from: number,
): void {
  const nt = tw * th, shift = Math.log2(TILE);
  const full = new Uint8Array(nt), parent: number[] = [], size: number[] = [];
  forTiles(W, H, (t, x0, y0, x1, y1) => {
    parent.push(t);
    size.push(0);
    if (around[t] >= 0) {
      full[t] = around[t];
    } else {
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) if (alpha[y * W + x] < from) return;
      }
      full[t] = 1;
    }
    if (full[t]) size[t] = (x1 - x0) * (y1 - y0);
  });
  const find = (a: number): number => {
    while (parent[a] !== a) a = parent[a] = parent[parent[a]];
    return a;
  };
  const union = (a: number, b: number) => {
    const ra = find(a), rb = find(b);
    if (ra !== rb) parent[ra] = rb;
  };
  for (let ty = 0; ty < th; ty++) {
    for (let tx = 0; tx < tw; tx++) {
      const t = ty * tw + tx;
      if (!full[t]) continue;
      if (tx + 1 < tw && full[t + 1]) union(t, t + 1);
      if (ty + 1 < th) {
        for (let dx = -1; dx <= 1; dx++) {
          if (tx + dx >= 0 && tx + dx < tw && full[t + tw + dx]) union(t, t + tw + dx);
        }
      }
    }
  }
  // Pixel pieces in the other tiles: node nt + i, label first + i (see dropPieces for the label plane).
  const { label, stack } = islands;
  const first = islands.next, starts: number[] = [];
  forTiles(W, H, (t, x0, y0, x1, y1) => {
    if (full[t] || around[t] === 0) return;
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const s = y * W + x;
        if (alpha[s] < from || label[s] >= first) continue;
        const node = parent.length, id = first + node - nt;
        parent.push(node);
        size.push(0);
        starts.push(s);
        let top = 0;
        label[s] = id;
        stack[top++] = s;
        while (top > 0) {
          const k = stack[--top], kx = k % W, ky = (k - kx) / W;
          size[node]++;
          for (let ny = Math.max(0, ky - 1); ny <= Math.min(H - 1, ky + 1); ny++) {
            for (let nx = Math.max(0, kx - 1); nx <= Math.min(W - 1, kx + 1); nx++) {
              const q = ny * W + nx, tq = (ny >> shift) * tw + (nx >> shift);
              if (full[tq]) union(node, tq);
              else if (alpha[q] >= from && label[q] < first) {
                label[q] = id;
                stack[top++] = q;
              }
            }
          }
        }
      }
    }
  });
  islands.next = first + parent.length - nt;
  const sx = Math.min(W - 1, Math.max(0, Math.round(seed[0]))),
    sy = Math.min(H - 1, Math.max(0, Math.round(seed[1])));
  const st = (sy >> shift) * tw + (sx >> shift), sl = label[sy * W + sx];
  const seedNode = full[st] ? st : alpha[sy * W + sx] >= from && sl >= first ? nt + sl - first : -1;
  if (seedNode < 0) return;
  const total = new Map<number, number>();
  for (let i = 0; i < parent.length; i++) {
    if (size[i] > 0) total.set(find(i), (total.get(find(i)) ?? 0) + size[i]);
  }
  const body = find(seedNode), least = DETACHED_SHARE * total.get(body)!;
  const dropped: number[] = [];
  for (let i = 0; i < parent.length; i++) {
    const root = find(i);
    if (size[i] === 0 || root === body || total.get(root)! >= least) continue;
    if (i < nt) {
      const x0 = (i % tw) * TILE, y0 = Math.floor(i / tw) * TILE;
      for (let y = y0; y < Math.min(H, y0 + TILE); y++) {
        for (let x = x0; x < Math.min(W, x0 + TILE); x++) dropped.push(y * W + x);
      }
      continue;
    }
    labelledPiece(starts[i - nt], first + i - nt, W, H, dropped);
  }
  for (const k of dropped) alpha[k] = 0;
  // The body here: any pixel still `from` or more (the dropped pieces are gone).
  clearRim(alpha, W, H, dropped, DETACHED_RIM, from, (q) => alpha[q] >= from);
}

/**
 * dropAlphaIslands' one pass: pieces are 8-connected pixels of alpha `from` or more in the tiles the grid
 * matte leaves unsure (`around` -1), but for the body's own: a pixel of `upTo` or more, or of ISLAND_ALPHA
 * or more in a tile whose own grid cells are all sure person (`own` 1). A piece that touches the body, or
 * is ISLAND_MAX² or larger, is the body; the others are zeroed with their soft rim (`rim` px).
 * With no sure person tile (a tiny person), the largest piece is the body.
 */
function dropPieces(
  alpha: Float32Array,
  { W, H, around, own, tw }: MattePlan,
  from: number,
  upTo: number,
  rim: number,
): void {
  const n = W * H;
  if (islands.label.length !== n) {
    islands.label = new Int32Array(n);
    islands.stack = new Int32Array(n);
    islands.next = 1;
  }
  // Piece ids grow from call to call, so the label plane is never cleared: an id below `first` is another
  // call's (unlabelled here).
  if (islands.next > 2e9) {
    islands.label.fill(0);
    islands.next = 1;
  }
  const { label, stack } = islands;
  const first = islands.next;
  const sizes: number[] = [], body: boolean[] = [], starts: number[] = [];
  const shift = Math.log2(TILE);
  // The body's own pixels, where a piece stops: `upTo` or more, or ISLAND_ALPHA or more in a sure tile.
  const terminal = (q: number, tile: number) =>
    alpha[q] >= upTo || (own[tile] === 1 && alpha[q] >= ISLAND_ALPHA);
  let anySure = false;
  forTiles(W, H, (t, x0, y0, x1, y1) => {
    if (own[t] === 1) anySure = true;
    if (around[t] >= 0) return;
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const s = y * W + x;
        if (alpha[s] < from || label[s] >= first || terminal(s, t)) continue;
        const id = islands.next++;
        let size = 0, top = 0, isBody = false;
        label[s] = id;
        stack[top++] = s;
        while (top > 0) {
          const k = stack[--top], kx = k % W, ky = (k - kx) / W;
          size++;
          for (let ny = ky - 1; ny <= ky + 1; ny++) {
            if (ny < 0 || ny >= H) continue;
            const row = (ny >> shift) * tw;
            for (let nx = kx - 1; nx <= kx + 1; nx++) {
              if (nx < 0 || nx >= W) continue;
              const q = ny * W + nx;
              if (terminal(q, row + (nx >> shift))) {
                isBody = true;
                continue;
              }
              if (alpha[q] >= from && label[q] < first) {
                label[q] = id;
                stack[top++] = q;
              }
            }
          }
        }
        sizes.push(size);
        body.push(isBody);
        starts.push(s);
      }
    }
  });
  const least = (ISLAND_MAX * W) ** 2;
  let largest = -1;
  for (let i = 0; i < sizes.length; i++) {
    if (sizes[i] >= least) body[i] = true;
    if (largest < 0 || sizes[i] > sizes[largest]) largest = i;
  }
  if (!anySure && largest >= 0) body[largest] = true;
  // The body here: a pixel of the body's own, or of a piece found to be the body.
  const isBody = (q: number) => {
    if (alpha[q] < from) return false;
    const x = q % W, y = (q - x) / W;
    if (terminal(q, (y >> shift) * tw + (x >> shift))) return true;
    const l = label[q];
    return l >= first && body[l - first];
  };
  for (let i = 0; i < sizes.length; i++) {
    if (body[i]) continue;
    // The island's pixels again (flooded from its first pixel through its label), then zeroed with its rim.
    const pixels: number[] = [];
    labelledPiece(starts[i], first + i, W, H, pixels);
    if (rim > 0) clearRim(alpha, W, H, pixels, rim, from, isBody);
    for (const k of pixels) alpha[k] = 0;
  }
}

/**
 * Zeroes, in place, the soft rim of dropped `pixels` (W x H): each pixel of alpha over 0 and under `from` within
 * `rim` px of one, unless a pixel of the body (`isBody`; the two passes that drop pieces differ in what the body
 * is) lies within `rim` px of it.
 */
function clearRim(
  alpha: Float32Array,
  W: number,
  H: number,
  pixels: number[],
  rim: number,
  from: number,
  isBody: (q: number) => boolean,
): void {
  const nearBody = (x: number, y: number) => {
    for (let yy = Math.max(0, y - rim); yy <= Math.min(H - 1, y + rim); yy++) {
      for (let xx = Math.max(0, x - rim); xx <= Math.min(W - 1, x + rim); xx++) {
        if (isBody(yy * W + xx)) return true;
      }
    }
    return false;
  };
  for (const k of pixels) {
    const kx = k % W, ky = (k - kx) / W;
    for (let y = Math.max(0, ky - rim); y <= Math.min(H - 1, ky + rim); y++) {
      for (let x = Math.max(0, kx - rim); x <= Math.min(W - 1, kx + rim); x++) {
        const q = y * W + x;
        if (alpha[q] > 0 && alpha[q] < from && !nearBody(x, y)) alpha[q] = 0;
      }
    }
  }
}

/**
 * The pixels of the piece labelled `id` in the islands' label plane (W x H) that holds `start`, pushed
 * onto `out`; flooded through the label, which each pixel's is negated (read once).
 */
function labelledPiece(start: number, id: number, W: number, H: number, out: number[]): void {
  const { label, stack } = islands;
  let top = 0;
  stack[top++] = start;
  label[start] = -id;
  while (top > 0) {
    const k = stack[--top], kx = k % W, ky = (k - kx) / W;
    out.push(k);
    for (let ny = Math.max(0, ky - 1); ny <= Math.min(H - 1, ky + 1); ny++) {
      for (let nx = Math.max(0, kx - 1); nx <= Math.min(W - 1, kx + 1); nx++) {
        const q = ny * W + nx;
        if (label[q] === id) {
          label[q] = -id;
          stack[top++] = q;
        }
      }
    }
  }
}

/** dropPieces' planes, reused from render to render (see releaseMatteScratch). */
const islands = { label: new Int32Array(0), stack: new Int32Array(0), next: 1 };

/**
 * Drops the background objects (see backgroundObjects) from a person mask, in place: the region
 * is its cells at REGION_THRESHOLD or more; `rgb` its cells' colours (cellColours). For a caller
 * that has the photo's colours when the mask is made (the hair recolour reads the mask too); the
 * matte's plan then finds nothing more to drop. Returns the number of cells dropped.
 */
export function dropBackgroundObjects(m: PersonMask, rgb: Float32Array): number {
  const region = new Uint8Array(m.w * m.h);
  for (let k = 0; k < region.length; k++) region[k] = m.data[k] >= REGION_THRESHOLD ? 1 : 0;
  const drop = backgroundObjects(m, region, rgb);
  let n = 0;
  for (let k = 0; k < drop.length; k++) {
    if (drop[k]) {
      m.data[k] = 0;
      n++;
    }
  }
  return n;
}

/**
 * A plan made without the pixels, checked with the canvas's colours, in place: the region kept with
 * them (background objects dropped, a hole of background kept open: see openHole) is compared with
 * the plan's; most photos have neither, and the plan stands; otherwise it is made again.
 */
function checkPlan(plan: MattePlan, full: Canvas, person: PersonMask, seed: Point): void {
  const rgb = cellColours(full, person);
  // With the colours, the region may lose background objects and keep a hole open (see openHole).
  const kept = keepDominantRegion(person, seed, rgb), was = plan.kept.data;
  for (let k = 0; k < kept.data.length; k++) {
    if (kept.data[k] !== was[k]) {
      Object.assign(plan, planFromRegion(full, kept, true));
      break;
    }
  }
  plan.checked = true;
}

/** Scratch of guided3, per window size. */
const guidedScratch = new Map<number, Float32Array[]>();

/**
 * The guided filter's coefficients with a 3x3 window (r = 1) on a pw x ph window, the same
 * values as a 3x3 box mean of each plane (clamped at the window's edges) in fewer passes: the four
 * first box means together, the coefficients as they come, and the second box means only over
 * the tile [tx0, tx1) x [ty0, ty1) (what is read). Writes the box means of a and b into ga, gb.
 */
function guided3(
  gI: Float32Array,
  gP: Float32Array,
  pw: number,
  ph: number,
  tx0: number,
  ty0: number,
  tx1: number,
  ty1: number,
  eps: number,
  ga: Float32Array,
  gb: Float32Array,
): void {
  const n = pw * ph;
  let sc = guidedScratch.get(n);
  if (!sc) guidedScratch.set(n, sc = [0, 1, 2, 3, 4, 5].map(() => new Float32Array(n)));
  const [hI, hP, hIP, hII, A, B] = sc;
  const f = Math.fround;
  for (let y = 0; y < ph; y++) {
    const o = y * pw;
    for (let x = 0; x < pw; x++) {
      const l = o + (x > 0 ? x - 1 : 0), c = o + x, rr = o + (x < pw - 1 ? x + 1 : x);
      const il = gI[l], ic = gI[c], ir = gI[rr], pl = gP[l], pc = gP[c], pr = gP[rr];
      hI[c] = il + ic + ir;
      hP[c] = pl + pc + pr;
      hIP[c] = f(il * pl) + f(ic * pc) + f(ir * pr);
      hII[c] = f(il * il) + f(ic * ic) + f(ir * ir);
    }
  }
  // The second box reads a and b one row and column around the tile.
  const ay0 = Math.max(0, ty0 - 1), ay1 = Math.min(ph, ty1 + 1);
  const ax0 = Math.max(0, tx0 - 1), ax1 = Math.min(pw, tx1 + 1);
  for (let y = ay0; y < ay1; y++) {
    const up = (y > 0 ? y - 1 : 0) * pw, o = y * pw, down = (y < ph - 1 ? y + 1 : y) * pw;
    for (let x = ax0; x < ax1; x++) {
      const mI = f((hI[up + x] + hI[o + x] + hI[down + x]) / 9);
      const mP = f((hP[up + x] + hP[o + x] + hP[down + x]) / 9);
      const mIP = f((hIP[up + x] + hIP[o + x] + hIP[down + x]) / 9);
      const mII = f((hII[up + x] + hII[o + x] + hII[down + x]) / 9);
      const a = (mIP - mI * mP) / (mII - mI * mI + eps);
      A[o + x] = a;
      B[o + x] = mP - a * mI;
    }
  }
  for (let y = ay0; y < ay1; y++) {
    const o = y * pw;
    for (let x = tx0; x < tx1; x++) {
      const l = o + (x > 0 ? x - 1 : 0), c = o + x, rr = o + (x < pw - 1 ? x + 1 : x);
      hI[c] = A[l] + A[c] + A[rr];
      hP[c] = B[l] + B[c] + B[rr];
    }
  }
  for (let y = ty0; y < ty1; y++) {
    const up = (y > 0 ? y - 1 : 0) * pw, o = y * pw, down = (y < ph - 1 ? y + 1 : y) * pw;
    for (let x = tx0; x < tx1; x++) {
      ga[o + x] = (hI[up + x] + hI[o + x] + hI[down + x]) / 9;
      gb[o + x] = (hP[up + x] + hP[o + x] + hP[down + x]) / 9;
    }
  }
}

/** Values summed per half-grid cell: person count, r, g, b, r²+g²+b²; the same for the background. */
const SUMS = 10;

/** One side's mean colour and variance at cell c from its box sums (count, r, g, b, r²+g²+b²) at box[o]. */
function meanAt(box: Float64Array, o: number, mean: Float32Array[], spread: Float32Array, c: number): void {
  const count = box[o];
  if (count < 0.5) return;
  const m0 = box[o + 1] / count, m1 = box[o + 2] / count, m2 = box[o + 3] / count;
  mean[0][c] = m0;
  mean[1][c] = m1;
  mean[2][c] = m2;
  spread[c] = Math.max(0, box[o + 4] / count - m0 * m0 - m1 * m1 - m2 * m2);
}

/**
 * The local means (radius Rc, half grid) of the sure person's and the sure background's linear
 * colours and their variances (the spread of r, g, b about the mean, summed), NaN where the box
 * holds no such pixel. Only the cells of the unsure tiles and the tiles next to them are
 * computed (the estimate reads the former, the composite's blend the latter; elsewhere NaN), from
 * a summed-area table of the cells within the summed tiles.
 */
function localMeans(
  plan: MattePlan,
  d: Uint8Array,
  cw: number,
  ch: number,
): { fg: Float32Array[]; bg: Float32Array[]; fgVar: Float32Array; bgVar: Float32Array } {
  const { W, H, Rc, around, need, near, tw, th } = plan;
  const cn = cw * ch, half = TILE >> 1;
  const fg = [0, 1, 2].map(() => new Float32Array(cn).fill(NaN));
  const bg = [0, 1, 2].map(() => new Float32Array(cn).fill(NaN));
  const fgVar = plane("fgVar", cn).fill(NaN), bgVar = plane("bgVar", cn).fill(NaN);
  // The summed tiles' bounds on the half grid.
  let bx0 = cw, by0 = ch, bx1 = 0, by1 = 0;
  for (let t = 0; t < tw * th; t++) {
    if (!need[t]) continue;
    const tx = t % tw, ty = (t - tx) / tw;
    bx0 = Math.min(bx0, tx * half);
    by0 = Math.min(by0, ty * half);
    bx1 = Math.max(bx1, Math.min(cw, (tx + 1) * half));
    by1 = Math.max(by1, Math.min(ch, (ty + 1) * half));
  }
  if (bx1 <= bx0 || by1 <= by0) return { fg, bg, fgVar, bgVar };
  const bw = bx1 - bx0, bh = by1 - by0;
  const acc = plane("acc", bw * bh * SUMS).fill(0);
  forTiles(W, H, (t, x0, y0, x1, y1) => {
    if (!need[t]) return;
    for (let y = y0; y < y1; y++) {
      const o = ((y >> 1) - by0) * bw - bx0;
      for (let x = x0; x < x1; x++) {
        const k = y * W + x, v = near[k];
        if (v > 0.001 && v <= 0.999) continue;
        const i = k * 3, a = (o + (x >> 1)) * SUMS + (v > 0.999 ? 0 : 5);
        const r = SRGB_TO_LINEAR[d[i]], g = SRGB_TO_LINEAR[d[i + 1]], b = SRGB_TO_LINEAR[d[i + 2]];
        acc[a] += 1;
        acc[a + 1] += r;
        acc[a + 2] += g;
        acc[a + 3] += b;
        acc[a + 4] += r * r + g * g + b * b;
      }
    }
  });
  // Summed-area table (float64: sums of a few thousand values), one row and column of zeros first.
  const sw = bw + 1;
  let sat = scratch64.get("sat");
  if (!sat || sat.length < sw * (bh + 1) * SUMS) {
    scratch64.set("sat", sat = new Float64Array(sw * (bh + 1) * SUMS));
  }
  sat.fill(0, 0, sw * SUMS);
  const row = new Float64Array(SUMS);
  for (let y = 0; y < bh; y++) {
    row.fill(0);
    const up = y * sw * SUMS, here = (y + 1) * sw * SUMS;
    sat.fill(0, here, here + SUMS);
    for (let x = 0, a = y * bw * SUMS; x < bw; x++) {
      const o = (x + 1) * SUMS;
      for (let q = 0; q < SUMS; q++, a++) {
        row[q] += acc[a];
        sat[here + o + q] = sat[up + o + q] + row[q];
      }
    }
  }
  const box = new Float64Array(SUMS);
  const htw = Math.ceil(cw / half);
  for (let ty = 0; ty < th; ty++) {
    for (let tx = 0; tx < tw; tx++) {
      // An unsure tile, or one next to it.
      let read = false;
      for (let y = Math.max(0, ty - 1); y <= Math.min(th - 1, ty + 1) && !read; y++) {
        for (let x = Math.max(0, tx - 1); x <= Math.min(tw - 1, tx + 1); x++) {
          if (around[y * tw + x] < 0) read = true;
        }
      }
      if (!read || tx >= htw) continue;
      for (let cy = ty * half; cy < Math.min(ch, (ty + 1) * half); cy++) {
        const ya = Math.max(by0, cy - Rc) - by0, yb = Math.min(by1, cy + Rc + 1) - by0;
        if (ya >= yb) continue;
        for (let cx = tx * half; cx < Math.min(cw, (tx + 1) * half); cx++) {
          const xa = Math.max(bx0, cx - Rc) - bx0, xb = Math.min(bx1, cx + Rc + 1) - bx0;
          if (xa >= xb) continue;
          const p11 = (yb * sw + xb) * SUMS, p10 = (yb * sw + xa) * SUMS;
          const p01 = (ya * sw + xb) * SUMS, p00 = (ya * sw + xa) * SUMS;
          for (let q = 0; q < SUMS; q++) box[q] = sat[p11 + q] - sat[p10 + q] - sat[p01 + q] + sat[p00 + q];
          const c = cy * cw + cx;
          meanAt(box, 0, fg, fgVar, c);
          meanAt(box, 5, bg, bgVar, c);
        }
      }
    }
  }
  return { fg, bg, fgVar, bgVar };
}

/** Calls `f` for each TILE x TILE tile of a W x H grid: tile index and its pixel rectangle [x0, x1) x [y0, y1). */
function forTiles(
  W: number,
  H: number,
  f: (t: number, x0: number, y0: number, x1: number, y1: number) => void,
): void {
  const tw = Math.ceil(W / TILE);
  for (let y0 = 0, ty = 0; y0 < H; y0 += TILE, ty++) {
    for (let x0 = 0, tx = 0; x0 < W; x0 += TILE, tx++) {
      f(ty * tw + tx, x0, y0, Math.min(W, x0 + TILE), Math.min(H, y0 + TILE));
    }
  }
}

const REFINE_MAX_WIDTH = 600;

/**
 * The pixels of a 2x box-downsampled copy (sRGB bytes; edges matter less here than speed), in the
 * tiles (TILE px of the copy) where `need` is set; the others are left 0.
 */
function halfSize(img: Canvas, need: Uint8Array): Uint8Array {
  const w = Math.ceil(img.width / 2), h = Math.ceil(img.height / 2), W = img.width, H = img.height;
  const out = new Uint8Array(w * h * 3), d = img.data;
  forTiles(w, h, (t, x0, y0, x1, y1) => {
    if (!need[t]) return;
    for (let y = y0; y < y1; y++) {
      const r0 = 2 * y * W * 3, r1 = Math.min(H - 1, 2 * y + 1) * W * 3;
      let o = (y * w + x0) * 3;
      for (let x = x0; x < x1; x++) {
        // Byte offsets of the two columns (the last one repeated on an odd width).
        const c0 = 6 * x, c1 = 2 * x + 1 < W ? c0 + 3 : c0;
        for (let c = 0; c < 3; c++, o++) {
          out[o] = (d[r0 + c0 + c] + d[r0 + c1 + c] + d[r1 + c0 + c] + d[r1 + c1 + c] + 2) >> 2;
        }
      }
    }
  });
  return out;
}

/** How far (half-grid cells, chessboard) composeRefined looks for a local mean missing at a pixel. */
const MEANS_REACH = 6;

/** The nearest cell (by rings) within MEANS_REACH of cell k whose mean is known, or k. */
function nearestMean(plane: Float32Array, w: number, k: number): number {
  const h = plane.length / w, x = k % w, y = (k - x) / w;
  for (let r = 1; r <= MEANS_REACH; r++) {
    let best = -1, bd = Infinity;
    for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
      const edge = yy === y - r || yy === y + r;
      for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
        // Only the ring: inside it nothing was found.
        if (!edge && xx !== x - r && xx !== x + r) continue;
        const q = yy * w + xx;
        if (Number.isNaN(plane[q])) continue;
        const dd = (xx - x) ** 2 + (yy - y) ** 2;
        if (dd < bd) {
          bd = dd;
          best = q;
        }
      }
    }
    if (best >= 0) return best;
  }
  return k;
}

/** An edge pixel's brightness relative to the local person colour, bounded (see composeRefined). */
const EDGE_DIM = 0.35, EDGE_BRIGHT = 2.5;

/**
 * Person over `background` (same size, sRGB bytes) with the refined alpha, in
 * place. Where alpha is partial, the old background's local colour is taken
 * out of the pixel (I = aF + (1-a)B solved for F), so no fringe of the old
 * backdrop survives; then the new one goes in. `gains` relight the person
 * (see relightGains in scene.ts).
 */
export function composeRefined(
  img: Canvas,
  matte: RefinedMatte,
  background: Uint8Array,
  gains: readonly [number, number, number] = [1, 1, 1],
): void {
  const d = img.data, W = img.width, H = img.height, s = matte.scale, mw = matte.width, mh = matte.height;
  const a = matte.alpha;
  // The person relit (per-channel gains in linear light, see relightGains): a table per channel.
  const relit = gains.every((g) => g === 1) ? undefined : gains.map((g) => {
    const lut = new Uint8Array(256);
    for (let v = 0; v < 256; v++) lut[v] = linearToSrgb(Math.min(1, SRGB_TO_LINEAR[v] * g));
    return lut;
  });
  // The bilinear sampling's columns (cell, weight, next-cell step) are the same on every row.
  const cx0 = new Int32Array(W),
    cfx = new Float64Array(W),
    cx1 = new Uint8Array(W),
    cgx = new Float64Array(W);
  for (let x = 0; x < W; x++) {
    const gx = Math.min(mw - 1.001, Math.max(0, (x + 0.5) / s - 0.5));
    cgx[x] = gx;
    cx0[x] = gx | 0;
    cfx[x] = gx - (gx | 0);
    cx1[x] = (gx | 0) + 1 < mw ? 1 : 0;
  }
  // Per matte cell of the current row pair: 1 when its four corners are all 1 (the pixels it spans are
  // person), 0 when all 0 (new backdrop), 2 otherwise (blend each pixel).
  const cls = new Uint8Array(mw);
  let clsRow = -1;
  const [r0, r1, r2] = relit ?? [];
  for (let y = 0; y < H; y++) {
    const gy = Math.min(mh - 1.001, Math.max(0, (y + 0.5) / s - 0.5));
    const y0 = gy | 0, fy = gy - y0;
    const row0 = y0 * mw, row1 = Math.min(mh - 1, y0 + 1) * mw;
    if (clsRow !== y0) {
      clsRow = y0;
      for (let x = 0; x < mw; x++) {
        const x1 = x + 1 < mw ? x + 1 : x;
        const sum = a[row0 + x] + a[row0 + x1] + a[row1 + x] + a[row1 + x1];
        cls[x] = sum === 4 ? 1 : sum === 0 ? 0 : 2;
      }
    }
    for (let x = 0; x < W;) {
      const i = (y * W + x) * 3;
      const c0 = cls[cx0[x]];
      if (c0 !== 2) {
        // A run of pixels on sure cells: the backdrop copied in one go, or the person relit.
        let j = x + 1;
        while (j < W && cls[cx0[j]] === c0) j++;
        const end = (y * W + j) * 3;
        if (c0 === 0) d.set(background.subarray(i, end), i);
        else if (relit) {
          for (let q = i; q < end; q += 3) {
            d[q] = r0![d[q]];
            d[q + 1] = r1![d[q + 1]];
            d[q + 2] = r2![d[q + 2]];
          }
        }
        x = j;
        continue;
      }
      const x0 = cx0[x], fx = cfx[x], x1 = cx1[x], m = row0 + x0, m1 = row1 + x0;
      const al = (a[m] * (1 - fx) + a[m + x1] * fx) * (1 - fy) + (a[m1] * (1 - fx) + a[m1 + x1] * fx) * fy;
      const gx = cgx[x];
      x++;
      if (al >= 0.999) {
        if (relit) {
          d[i] = relit[0][d[i]];
          d[i + 1] = relit[1][d[i + 1]];
          d[i + 2] = relit[2][d[i + 2]];
        }
        continue;
      }
      if (al <= 0.001) {
        d[i] = background[i];
        d[i + 1] = background[i + 1];
        d[i + 2] = background[i + 2];
        continue;
      }
      const k = (Math.min(mh - 1, Math.round(gy)) >> 1) * matte.meansWidth +
        (Math.min(mw - 1, Math.round(gx)) >> 1);
      // A wide soft edge (an upscaled photo, a window's glow beside the hair) can leave a pixel
      // farther than the means' box from the sure person or the sure background: its colour
      // was then kept as it is, the old background's included (a grey-blue rim over the new
      // backdrop). The nearest cell within MEANS_REACH that has the mean stands in.
      const kf = Number.isNaN(matte.fg[0][k]) ? nearestMean(matte.fg[0], matte.meansWidth, k) : k;
      const kb = Number.isNaN(matte.bg[0][k]) ? nearestMean(matte.bg[0], matte.meansWidth, k) : k;
      const fr = matte.fg[0][kf], fgg = matte.fg[1][kf], fb = matte.fg[2][kf];
      const br = matte.bg[0][kb], bgg = matte.bg[1][kb], bb = matte.bg[2][kb];
      let f0 = SRGB_TO_LINEAR[d[i]], f1 = SRGB_TO_LINEAR[d[i + 1]], f2 = SRGB_TO_LINEAR[d[i + 2]];
      if (!Number.isNaN(br)) {
        const inv = 1 / Math.max(al, 0.05);
        f0 = (f0 - (1 - al) * br) * inv;
        f1 = (f1 - (1 - al) * bgg) * inv;
        f2 = (f2 - (1 - al) * bb) * inv;
      }
      if (!Number.isNaN(fr)) {
        // The edge's colour is the local person colour at the pixel's own (decontaminated)
        // brightness: a per-channel estimate amplifies any error of the old background's local
        // mean (blinds, a patterned wall) into a teal or red fringe on the hair; brightness keeps
        // the strands. Thin edges (dividing by a small alpha amplifies noise) lean on the local
        // brightness too.
        const yl = luminance(fr, fgg, fb);
        let ratio = yl > 1e-4 ? luminance(f0, f1, f2) / yl : 1;
        ratio = ratio < EDGE_DIM ? EDGE_DIM : ratio > EDGE_BRIGHT ? EDGE_BRIGHT : ratio;
        if (al < 0.5) ratio = 1 + (ratio - 1) * (al / 0.5);
        f0 = fr * ratio;
        f1 = fgg * ratio;
        f2 = fb * ratio;
      }
      const n0 = SRGB_TO_LINEAR[background[i]], n1 = SRGB_TO_LINEAR[background[i + 1]];
      const n2 = SRGB_TO_LINEAR[background[i + 2]];
      d[i] = linearToSrgb(n0 + (clamp01(f0 * gains[0]) - n0) * al);
      d[i + 1] = linearToSrgb(n1 + (clamp01(f1 * gains[1]) - n1) * al);
      d[i + 2] = linearToSrgb(n2 + (clamp01(f2 * gains[2]) - n2) * al);
    }
  }
}
