/**
 * Person matte from MediaPipe selfie segmentation, run twice: on the whole
 * frame and on a square tile around the head (sharper hair edges), stored at a
 * quarter of the canvas resolution and sampled bilinearly.
 */
import type { Canvas } from "./blend.ts";
import type { FaceModels } from "./face-engine.ts";
import { atCanvasScale } from "./output-scale.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { labelPatches, type Rect, slidingExtreme } from "./masks.ts";
import { edgeFade } from "./framing.ts";

export interface PersonMask {
  /** Grid size (canvas / step). */
  w: number;
  h: number;
  step: number;
  data: Float32Array;
  /**
   * 1 on cells the head tile's pass took for sure person where the whole canvas's pass did not count them
   * as person (see DISAGREE_BACKGROUND); absent when there are none.
   */
  doubted?: Uint8Array;
}

const SIZE = 256;

/**
 * Where the canvas pixels come from: the canvas itself, or (to segment while
 * the framed canvas is still being rendered) the decoded photo and the
 * framing that maps it onto the canvas (canvas = photo * scale + offset).
 */
export interface PhotoSource {
  photo: Canvas;
  scale: number;
  offsetX: number;
  offsetY: number;
}

/** Source pixel index (x or y) for canvas coordinate v, clamped to the source. */
function sourceIndex(v: number, n: number, src?: PhotoSource, offset = 0): number {
  const s = src ? Math.round((v + 0.5 - offset) / src.scale - 0.5) : v;
  return s < 0 ? 0 : s > n - 1 ? n - 1 : s;
}

function tileInput(img: Canvas, r: Rect, src?: PhotoSource): Float32Array {
  const out = new Float32Array(SIZE * SIZE * 3);
  const from = src?.photo ?? img;
  const d = from.data, W = from.width;
  const sx = r.w / SIZE, sy = r.h / SIZE;
  // Sample columns and rows (two per cell each), in source pixels.
  const cols = new Int32Array(2 * SIZE), rows = new Int32Array(2 * SIZE);
  for (let i = 0; i < 2 * SIZE; i++) {
    const o = (i & 1) ? 0.75 : 0.25, c = i >> 1;
    const x = Math.min(img.width - 1, Math.floor(r.x + (c + o) * sx));
    const y = Math.min(img.height - 1, Math.floor(r.y + (c + o) * sy));
    cols[i] = sourceIndex(x, from.width, src, src?.offsetX);
    rows[i] = sourceIndex(y, from.height, src, src?.offsetY);
  }
  for (let j = 0; j < SIZE; j++) {
    for (let i = 0; i < SIZE; i++) {
      let a = 0, b = 0, c = 0;
      for (let q = 0; q < 4; q++) {
        const k = (rows[2 * j + (q >> 1)] * W + cols[2 * i + (q & 1)]) * 3;
        a += d[k];
        b += d[k + 1];
        c += d[k + 2];
      }
      const o = (j * SIZE + i) * 3;
      out[o] = a / 1020;
      out[o + 1] = b / 1020;
      out[o + 2] = c / 1020;
    }
  }
  return out;
}

function sample256(m: Float32Array, u: number, v: number): number {
  const x = Math.min(SIZE - 1.001, Math.max(0, u * SIZE - 0.5));
  const y = Math.min(SIZE - 1.001, Math.max(0, v * SIZE - 0.5));
  const x0 = Math.floor(x), y0 = Math.floor(y), fx = x - x0, fy = y - y0;
  const i = y0 * SIZE + x0;
  return (m[i] * (1 - fx) + m[i + 1] * fx) * (1 - fy) +
    (m[i + SIZE] * (1 - fx) + m[i + SIZE + 1] * fx) * fy;
}

/**
 * A cell the whole canvas's pass gives under DISAGREE_BACKGROUND (the matte's own threshold for person: it
 * would not count the cell in) and the head tile's makes DISAGREE_SURE or more is marked doubted
 * (PersonMask.doubted): the matte's background-object pass then judges it by its colour although the
 * blended value is sure, and asks less of that colour (see backgroundObjects in matte-refine.ts). Its value
 * is left as it is: what the colours do not drop stays person for every stage. Seen: with the face under ~0.7
 * of the canvas's width, the head tile took the golden window frame beside sample6@1081's hair for her (1.0)
 * where the whole pass gave it 0 (decision 019, 2026-12-02).
 */
const DISAGREE_BACKGROUND = 0.35, DISAGREE_SURE = 0.75;

/**
 * `img` gives the canvas size and, unless `src` is given, the pixels; with
 * `src` the model sees the photo as framed (the canvas need not exist yet).
 * `neighbours`: the other people's heads (see neighbourHeads; false or [] when
 * the photo shows one face); the matte keeps only the chosen person, or with `everyone` (for
 * figures) every person the selfie model sees.
 */
export async function personMask(
  engine: FaceModels,
  img: { width: number; height: number; data?: Uint8Array },
  g: FaceGeometry,
  photoRect: Rect,
  neighbours: readonly Head[] | false,
  src?: PhotoSource,
  everyone = false,
): Promise<PersonMask> {
  const canvas: Canvas = { data: img.data ?? new Uint8Array(0), width: img.width, height: img.height };
  // Cells of the same stretch of the face at any render size (see atCanvasScale). The split between people
  // counts cells (patch sizes, geodesic distances against STRANGER_EDGES): on a 4-pixel grid at 540x960 the
  // preview kept whole a neighbour the result removed (sample6@1402's; decision 019).
  const step = atCanvasScale(4, img.width);
  const w = Math.ceil(img.width / step), h = Math.ceil(img.height / step);
  const data = new Float32Array(w * h);
  const full = await engine.segment(tileInput(canvas, { x: 0, y: 0, w: img.width, h: img.height }, src));
  let doubted: Uint8Array | undefined;
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      data[j * w + i] = sample256(full, (i + 0.5) * step / img.width, (j + 0.5) * step / img.height);
    }
  }
  // Head tile.
  const side = Math.min(img.width, img.height, Math.round(3.4 * g.fw));
  const tx = Math.round(Math.min(img.width - side, Math.max(0, g.center[0] - side / 2)));
  const ty = Math.round(Math.min(img.height - side, Math.max(0, g.center[1] - side * 0.55)));
  const head = await engine.segment(tileInput(canvas, { x: tx, y: ty, w: side, h: side }, src));
  const fade = side * 0.12;
  for (let j = 0; j < h; j++) {
    const cy = (j + 0.5) * step;
    if (cy < ty || cy >= ty + side) continue;
    for (let i = 0; i < w; i++) {
      const cx = (i + 0.5) * step;
      if (cx < tx || cx >= tx + side) continue;
      const edge = Math.min(
        tx === 0 ? Infinity : cx - tx,
        tx + side >= img.width ? Infinity : tx + side - cx,
        ty === 0 ? Infinity : cy - ty,
        ty + side >= img.height ? Infinity : ty + side - cy,
      );
      const wt = Math.min(1, edge / fade);
      const v = sample256(head, (cx - tx) / side, (cy - ty) / side);
      const k = j * w + i;
      const whole = data[k];
      data[k] = whole * (1 - wt) + v * wt;
      // The head tile sure of what the whole canvas's pass left out: a doubt (see DISAGREE_BACKGROUND).
      if (whole < DISAGREE_BACKGROUND && data[k] >= DISAGREE_SURE) (doubted ??= new Uint8Array(w * h))[k] = 1;
    }
  }
  // Real photo pixels only; the person is isolated before the inner photo edges fade out (the
  // body does not end in a hard line over a backdrop), or the fade would hide a neighbour there.
  const covers = photoRect.x <= 0 && photoRect.y <= 0 && photoRect.x + photoRect.w >= img.width &&
    photoRect.y + photoRect.h >= img.height;
  const edge = covers ? undefined : new Float32Array(w * h);
  if (edge) {
    for (let j = 0; j < h; j++) {
      const cy = (j + 0.5) * step;
      for (let i = 0; i < w; i++) {
        const f = edgeFade(photoRect, img.width, img.height, (i + 0.5) * step - 0.5, cy - 0.5);
        edge[j * w + i] = f;
        if (f <= 0) data[j * w + i] = 0;
      }
    }
  }
  const mask: PersonMask = doubted ? { w, h, step, data, doubted } : { w, h, step, data };
  let colours: Float32Array | undefined;
  const rgb = () => (colours ??= cellColours(canvas, mask, src));
  if (!everyone) {
    isolatePerson(mask, g, neighbours || [], rgb);
    dropForeignPatches(mask, g, rgb());
  }
  if (edge) { for (let k = 0; k < w * h; k++) data[k] *= edge[k]; }
  if (colours) madeColours.set(mask, colours);
  return mask;
}

/** Cell colours personMask computed for a mask, until the caller takes them (see takeCellColours). */
const madeColours = new WeakMap<PersonMask, Float32Array>();

/**
 * `mask`'s cell colours (see cellColours): the ones personMask computed for it when it judged
 * neighbours and foreign patches, handed over once (a mask kept in the photo cache then does not
 * keep 12 bytes per cell alive with it), or computed now. A first look with a scene needed them
 * twice (5-14 ms each at 1080x1920).
 */
export function takeCellColours(
  mask: PersonMask,
  img: { width: number; height: number; data?: Uint8Array },
  src?: PhotoSource,
): Float32Array {
  const made = madeColours.get(mask);
  if (made) {
    madeColours.delete(mask);
    return made;
  }
  return cellColours(
    { data: img.data ?? new Uint8Array(0), width: img.width, height: img.height },
    mask,
    src,
  );
}

/** A head the matte is split around: centre and face width, in canvas pixels. */
export interface Head {
  cx: number;
  cy: number;
  fw: number;
}

/**
 * The other detected faces as heads in canvas pixels. A face cut by the
 * photo's edge has a box smaller than the face, centred too far in: its
 * centre is moved out by the missing part (a face is about as wide as tall).
 */
export function neighbourHeads(
  faces: readonly { box: readonly [number, number, number, number] }[],
  chosen: { box: readonly [number, number, number, number] },
  photo: { width: number; height: number },
  f: { scale: number; offsetX: number; offsetY: number },
): Head[] {
  return faces.filter((x) => x !== chosen).map(({ box: [x, y, bw, bh] }) => {
    const size = Math.max(bw, bh);
    let cx = x + bw / 2;
    if (x <= 2) cx = x + bw - size / 2;
    else if (x + bw >= photo.width - 2) cx = x + size / 2;
    return { cx: cx * f.scale + f.offsetX, cy: (y + bh / 2) * f.scale + f.offsetY, fw: 0.9 * size * f.scale };
  });
}

/** Mean sRGB colour (0-255) of each grid cell, from four pixels of the cell. */
export function cellColours(
  img: Canvas,
  m: { w: number; h: number; step: number },
  src?: PhotoSource,
): Float32Array {
  const { w, h, step } = m;
  const from = src?.photo ?? img, d = from.data, W = from.width;
  const out = new Float32Array(w * h * 3);
  const q = [step * 0.25, step * 0.75];
  const cols = new Int32Array(2 * w), rows = new Int32Array(2 * h);
  for (let i = 0; i < 2 * w; i++) {
    cols[i] = sourceIndex(
      Math.min(img.width - 1, Math.floor((i >> 1) * step + q[i & 1])),
      W,
      src,
      src?.offsetX,
    );
  }
  for (let j = 0; j < 2 * h; j++) {
    const y = Math.min(img.height - 1, Math.floor((j >> 1) * step + q[j & 1]));
    rows[j] = sourceIndex(y, from.height, src, src?.offsetY);
  }
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const o = (j * w + i) * 3;
      for (let s = 0; s < 4; s++) {
        const k = (rows[2 * j + (s >> 1)] * W + cols[2 * i + (s & 1)]) * 3;
        out[o] += d[k] / 4;
        out[o + 1] += d[k + 1] / 4;
        out[o + 2] += d[k + 2] / 4;
      }
    }
  }
  return out;
}

/** Grid cells at or above this count as person when tracing regions. */
const SOLID = 0.35;
/** Mark of a cell beyond the chosen person's envelope that may be someone else's, before it is judged. */
const STRANGER = 3;
/** The same, for a cell beside the body below the shoulders but within its envelope (SHOULDERS). */
const STRANGER_BODY = 4;
/**
 * Colour edges (in the geodesic's cost units beyond path length) that a path from the chosen
 * person to a cell beyond their envelope must cross for that cell to be someone else's.
 */
const STRANGER_EDGES = 170;
/**
 * Below the shoulders, cells this many face widths or more from the chosen face's centre
 * (beside the body: about the shoulders' half width) may be someone else's, judged like those
 * beside the head.
 */
const SHOULDERS = 1.35;

/**
 * Keeps only the chosen person in the grid matte, in place.
 * 1. Heads: the chosen face, the other detected faces, and any large region
 *    beside the head above the shoulders that is not the chosen head once the
 *    matte is eroded (a neighbour's hair or face whose own face is out of the
 *    frame; the erosion cuts the thin bridges that join neighbours' hair), and
 *    strangers: thick patches beside the head (from 0.9 face widths out) or
 *    beside the body (from SHOULDERS face widths out) that the chosen person
 *    reaches only across colour edges (STRANGER_EDGES), a neighbour whose face
 *    is cut by the frame and whose hair or body is joined to the chosen person's.
 * 2. Every person cell goes to the head it is nearest to along the matte
 *    (geodesic: paths stay inside the person region, and crossing a colour
 *    edge, from one person's hair or clothes to another's, costs extra), the chosen person
 *    favoured (it is the one in front) and owning its own body axis below the
 *    chin; cells of the others are dropped, and, when someone's head is beside
 *    the chosen one, a body-shaped envelope around the chosen person bounds the
 *    rest. Along the split beside the head, cells in the others' colours go to
 *    them (reclaimBand); beyond the face and the body's middle, so do cells their
 *    colour model explains far better (reclaimByColourModel); all along the split, so do
 *    fragments across a colour edge from the chosen person in the others' local colours
 *    (reclaimLocal). Last, the cut's outline is rounded (smoothSplit): no square steps.
 */
export function isolatePerson(
  m: PersonMask,
  g: FaceGeometry,
  neighbours: readonly Head[],
  colours: () => Float32Array,
): void {
  const { w, h, step, data } = m;
  const n = w * h;
  const chinY = g.pts[152][1];
  const shoulderRow = Math.min(h, Math.ceil((chinY + 0.3 * g.fh) / step));
  const seeds = new Int8Array(n); // 1 chosen person, 2 someone else
  const ellipse = (hd: Head, rx: number, ry: number, value: 1 | 2) => {
    const x0 = Math.max(0, Math.floor((hd.cx - rx) / step)),
      x1 = Math.min(w - 1, Math.ceil((hd.cx + rx) / step));
    const y0 = Math.max(0, Math.floor((hd.cy - ry) / step)),
      y1 = Math.min(h - 1, Math.ceil((hd.cy + ry) / step));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const u = ((x + 0.5) * step - hd.cx) / rx, v = ((y + 0.5) * step - hd.cy) / ry;
        if (u * u + v * v <= 1 && data[y * w + x] >= SOLID) seeds[y * w + x] = value;
      }
    }
  };
  for (const hd of neighbours) ellipse(hd, 0.3 * hd.fw, 0.4 * hd.fw, 2);
  const heads = [...neighbours, ...findDetachedHeads(m, g, shoulderRow, seeds)];
  // The chosen person's body lies within an envelope around their axis (half width `envelope`,
  // fading over a quarter face width). Person cells beside the head from 0.9 face widths out,
  // and beside the body from SHOULDERS face widths out, may be someone else's: those in the
  // person's colours (old background far from them, a lit cushion beside an arm, is left to
  // dropForeignPatches: as a seed it would take the arm next to it), in patches thicker than an
  // arm (a few cells past an edge, a bracelet or a shadow on an arm, would take the arm), are
  // judged below once the distances are known.
  const rgb = colours();
  const palette = personPalette(m, g, rgb);
  const envelope = new Float32Array(h), far = new Int8Array(n);
  for (let j = 0; j < h; j++) {
    const cy = (j + 0.5) * step;
    const below = Math.max(0, cy - chinY) / g.fh;
    envelope[j] = g.fw * (cy < chinY ? 1.25 : Math.min(2.8, 1.25 + below * 1.2));
    const head = cy < chinY + 0.3 * g.fh;
    const reach = head ? 0.9 * g.fw : envelope[j] + 0.25 * g.fw;
    for (let i = 0; i < w; i++) {
      const k = j * w + i;
      const dx = Math.abs((i + 0.5) * step - g.center[0]);
      const mark = dx > reach ? STRANGER : !head && dx > SHOULDERS * g.fw ? STRANGER_BODY : 0;
      if (mark && data[k] >= SOLID && seeds[k] === 0 && (!palette || palette(k) < FOREIGN)) far[k] = mark;
    }
  }
  // Each kind in its own patches: a patch beside the body joined to one beyond the envelope
  // would be judged with it (half its cells), and the chosen arm beside a neighbour's sleeve
  // would carry the sleeve.
  const r = Math.max(1, Math.round(0.1 * g.fw / step));
  const cores = { label: new Int32Array(n), count: 0 };
  for (const mark of [STRANGER, STRANGER_BODY]) {
    if (!far.includes(mark)) continue;
    erode(m, far, mark, r);
    const { label, count } = labelPatches(far.map((v) => (v === mark ? 1 : 0)), w, h, 16);
    for (let k = 0; k < n; k++) if (label[k] > 0) cores.label[k] = label[k] + cores.count;
    cores.count += count;
  }
  if (heads.length === 0 && cores.count === 0) return;
  let bounded = heads.length > 0;
  ellipse({ cx: g.center[0], cy: g.center[1], fw: g.fw }, 0.4 * g.fw, 0.45 * g.fh, 1);
  // Each person's body axis below the chin is theirs (the chosen person's first). A neighbour's
  // axis cell that has the colour of the chosen person's body on that row is left to the
  // geodesic (the chosen person stands in front and may cover it).
  const rowColour = new Float32Array(h * 3).fill(NaN);
  const farFromRow = (k: number, y: number) => {
    if (Number.isNaN(rowColour[y * 3]) || k < y * w || k >= (y + 1) * w) return true;
    const dr = rgb[k * 3] - rowColour[y * 3], dg = rgb[k * 3 + 1] - rowColour[y * 3 + 1];
    const db = rgb[k * 3 + 2] - rowColour[y * 3 + 2];
    return dr * dr + dg * dg + db * db >= 45 * 45;
  };
  const axis = (cx: number, top: number, half: number, value: 1 | 2) => {
    // An axis outside the frame (a neighbour cut by the edge) claims the edge column.
    const c = Math.min(w * step - 1, Math.max(0, cx));
    const x0 = Math.max(0, Math.floor((c - half) / step)),
      x1 = Math.min(w - 1, Math.ceil((c + half) / step));
    for (let y = Math.max(0, Math.ceil(top / step)); y < h; y++) {
      let r = 0, gg = 0, b = 0, count = 0;
      for (let x = x0; x <= x1; x++) {
        const k = y * w + x;
        if (data[k] < SOLID || seeds[k] !== 0) continue;
        // Not next to the chosen body's colour either (cells on the edge between two people mix both).
        if (value === 2 && !(farFromRow(k, y) && farFromRow(k - 1, y) && farFromRow(k + 1, y))) continue;
        seeds[k] = value;
        r += rgb[k * 3];
        gg += rgb[k * 3 + 1];
        b += rgb[k * 3 + 2];
        count++;
      }
      if (value === 1 && count > 0) rowColour.set([r / count, gg / count, b / count], y * 3);
    }
  };
  axis(g.center[0], chinY, 0.2 * g.fw, 1);
  for (const hd of heads) axis(hd.cx, hd.cy + 0.7 * hd.fw, 0.15 * hd.fw, 2);
  const rows = solidRows(m), costs = stepCosts(m, rgb, rows);
  const own = geodesic(m, seeds, 1, costs, rows);
  let other = heads.length > 0 ? geodesic(m, seeds, 2, costs, rows) : new Float32Array(n).fill(Infinity);
  if (cores.count > 0) {
    // A core that the chosen person reaches with few colour edges on the way (for most of its
    // cells their geodesic distance, less the straight distance to their seeds, is under
    // STRANGER_EDGES: a raised arm, skin all along) is theirs; the others seed someone else, and
    // the rest of that person (their face cut by the frame and not detected, their hair joined
    // to the chosen person's) goes with them up to the edge between the two.
    const { label, count } = cores;
    const ex = 0.4 * g.fw, ey = 0.45 * g.fh;
    const past = new Int32Array(count + 1), size = new Int32Array(count + 1);
    for (let k = 0; k < n; k++) {
      if (label[k] === 0 || seeds[k] !== 0) continue;
      const dx = ((k % w) + 0.5) * step - g.center[0], y = (Math.floor(k / w) + 0.5) * step;
      const dy = y - g.center[1], r = Math.hypot(dx / ex, dy / ey);
      const head = r <= 1 ? 0 : Math.hypot(dx, dy) * (1 - 1 / r);
      const body = Math.hypot(Math.max(0, Math.abs(dx) - 0.2 * g.fw), Math.max(0, chinY - y));
      size[label[k]]++;
      if (own[k] - Math.min(head, body) / step > STRANGER_EDGES) past[label[k]]++;
    }
    // An accepted core is a head like a detected one: its own body axis below it, and the
    // chosen person's envelope bounds the rest.
    const sx = new Float64Array(count + 1), sy = new Float64Array(count + 1);
    const minX = new Int32Array(count + 1).fill(w), maxX = new Int32Array(count + 1);
    let accepted = 0;
    for (let k = 0; k < n; k++) {
      const p = label[k];
      if (p === 0 || seeds[k] !== 0 || 2 * past[p] < size[p]) continue;
      seeds[k] = 2;
      const x = k % w, y = (k - x) / w;
      sx[p] += x;
      sy[p] += y;
      if (x < minX[p]) minX[p] = x;
      if (x > maxX[p]) maxX[p] = x;
      // Someone's head or hair beside the chosen head: the envelope then bounds the rest. A
      // stranger found only below the shoulders (their hair, arm or leg beside the body) leaves
      // it off, or it would cut a raised arm beside the head.
      if (y < shoulderRow) bounded = true;
      accepted++;
    }
    if (accepted === 0 && !bounded) return;
    if (accepted > 0) {
      for (let p = 1; p <= count; p++) {
        if (2 * past[p] < size[p]) continue;
        const fw = Math.min(g.fw, (maxX[p] - minX[p] + 1) * step);
        axis((sx[p] / size[p] + 0.5) * step, (sy[p] / size[p] + 0.5) * step + 0.7 * fw, 0.15 * fw, 2);
      }
      other = geodesic(m, seeds, 2, costs, rows);
    }
  }
  // Soft over SOFT cells; the chosen person's distances count 0.6.
  const SOFT = 3;
  const keep = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    if (data[k] < SOLID) continue;
    const t = (other[k] - 0.6 * own[k]) / SOFT + 0.5;
    keep[k] = own[k] === Infinity ? 0 : t <= 0 ? 0 : t >= 1 ? 1 : t;
  }
  reclaimBand(m, g, keep, other, seeds, rgb);
  reclaimByColourModel(m, g, keep, other, seeds, rgb);
  // The envelope's factor (see below), for reclaimLocal to see what it leaves.
  const bound = new Float32Array(n).fill(1);
  if (bounded) {
    for (let j = 0; j < h; j++) {
      for (let i = 0; i < w; i++) {
        const over = Math.abs((i + 0.5) * step - g.center[0]) - envelope[j];
        if (over > 0) bound[j * w + i] = Math.max(0, 1 - over / (0.25 * g.fw));
      }
    }
  }
  reclaimLocal(m, g, keep, bound, seeds, rgb, costs, rows);
  smoothSplit(m, keep, seeds);
  for (let j = 0; j < h; j++) {
    const half = envelope[j];
    for (let i = 0; i < w; i++) {
      const k = j * w + i;
      if (data[k] === 0) continue;
      let kk = keep[k];
      if (data[k] < SOLID) {
        // The soft fringe follows the region it borders.
        kk = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const x = i + dx, y = j + dy;
            if (x >= 0 && y >= 0 && x < w && y < h && keep[y * w + x] > kk) kk = keep[y * w + x];
          }
        }
      }
      // With a neighbour's head in the frame, the envelope bounds the rest (cells beyond it that no
      // seed reached); without one, only the seeded strangers go (a raised arm stays).
      const over = bounded ? Math.abs((i + 0.5) * step - g.center[0]) - half : 0;
      if (over > 0) kk *= Math.max(0, 1 - over / (0.25 * g.fw));
      data[k] *= kk;
    }
  }
}

/** Radius (cells) of smoothSplit's window: notches and spurs of up to 2 cells go. */
const SPLIT_SMOOTH = 2;
/**
 * Rounds the outline the split cut (in place): the geodesic and the three reclaims decide cell by cell, and
 * the cut between two people is a staircase of the 4-px grid with notches of a cell or two, which the refined
 * matte cannot undo where both sides have like colours (hair against hair, skin against a neighbour's brown
 * hair: the colour line leans on the grid there). On the result that is a square step where the person meets
 * the new backdrop (sample6@1081's shoulder). Each person cell within SPLIT_SMOOTH cells of both sides takes
 * the mean decision of the person cells around it, sharpened (smoothstep 0.3..0.7): an outline that bends
 * less than the window keeps its course, a notch fills and a spur goes. Seeds (the faces and body axes) keep
 * theirs. Measured on the 32 crops of the matte bench: 172 cells decided against most of their neighbours
 * before, 45 after (most of those left are old-background objects dropped by colour, dropForeignPatches);
 * neighbours' head area kept and the chosen person's own area lost unchanged (56.1 %, 2.19 -> 2.18 %); the
 * halo bench's means 5.79 -> 5.81 and 4.70 -> 4.72 (sample6@1402's kept neighbour fragment loses its spurs:
 * 5.88 -> 6.22 on Beach Sunset). Filling notches only (95 left, no halo change) kept the jagged shoulder;
 * leaving the cells the colour reclaims gave away (101 left) kept the notch.
 */
function smoothSplit(m: PersonMask, keep: Float32Array, seeds: Int8Array): void {
  const { w, h, data } = m;
  const R = SPLIT_SMOOTH;
  const src = Float32Array.from(keep);
  // A direct 5x5 window: 3-5 ms at 1080x1920 (a separable running min and max to skip most cells took 6).
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      if (data[k] < SOLID || seeds[k] !== 0) continue;
      let sum = 0, count = 0, lo = 1, hi = 0;
      for (let yy = Math.max(0, y - R); yy <= Math.min(h - 1, y + R); yy++) {
        for (let xx = Math.max(0, x - R); xx <= Math.min(w - 1, x + R); xx++) {
          const q = yy * w + xx;
          if (data[q] < SOLID) continue;
          const v = src[q];
          sum += v;
          count++;
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
      if (hi - lo < 0.5) continue;
      const t = (sum / count - 0.3) / 0.4;
      keep[k] = t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t);
    }
  }
}

/** Half width (face widths) of the band along the split in which cells are judged by colour (reclaimBand). */
const BAND = 0.35;
/** A band cell goes to the other person when its colour is this much nearer theirs (sRGB units). */
const BAND_MARGIN = 20;

/**
 * The split follows the colour edge between two heads only roughly: the chosen person's distances
 * are favoured, and a path through someone else's dark hair gathers its grain's cost, so a strip
 * of the other person's hair stays along the chosen head (a ragged dark fringe beside blonde
 * hair). Above the shoulders, kept cells within BAND face widths of the cells given to others,
 * reached from them through cells whose colour is nearer the others' colours there than the
 * chosen person's (each side's palette taken beside the split: the others' cells within the band,
 * the chosen person's from one to two band widths in), go to the others (keep = 0); the chosen
 * face's core stays. Below the shoulders, shaded skin beside someone's dark hair mixes both and is
 * left to the split.
 */
function reclaimBand(
  m: PersonMask,
  g: FaceGeometry,
  keep: Float32Array,
  other: Float32Array,
  seeds: Int8Array,
  rgb: Float32Array,
): void {
  const { w, h, step, data } = m;
  const rows = Math.min(h, Math.floor((g.pts[152][1] + 0.3 * g.fh) / step));
  const n = w * rows;
  const R = Math.max(2, Math.round(BAND * g.fw / step));
  const theirs = (k: number) => data[k] >= SOLID && keep[k] < 0.5 && other[k] < Infinity;
  const mine = (k: number) => data[k] >= SOLID && keep[k] >= 0.5;
  // Chessboard distance (cells) from the split, on each side, up to 2R.
  const FAR = 0xffff, dist = new Uint16Array(n).fill(FAR);
  const around = (k: number, visit: (nb: number) => void) => {
    const x = k % w, y = (k - x) / w;
    for (let yy = Math.max(0, y - 1); yy <= Math.min(rows - 1, y + 1); yy++) {
      for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) visit(yy * w + xx);
    }
  };
  let queue: number[] = [];
  for (let k = 0; k < n; k++) {
    const side = theirs(k);
    if (!side && !mine(k)) continue;
    around(k, (nb) => {
      if (side ? mine(nb) : theirs(nb)) dist[k] = 1;
    });
    if (dist[k] === 1) queue.push(k);
  }
  if (queue.length === 0) return;
  for (let d = 2; d <= 2 * R && queue.length > 0; d++) {
    const next: number[] = [];
    for (const k of queue) {
      const side = theirs(k);
      around(k, (nb) => {
        if (dist[nb] === FAR && (side ? theirs(nb) : mine(nb))) {
          dist[nb] = d;
          next.push(nb);
        }
      });
    }
    queue = next;
  }
  // The two palettes (bins seen twice) and each bin's distance to them, for the bins asked about.
  const binOf = (k: number) => binOfCell(rgb, k);
  const seenMine = new Uint16Array(PALETTE_SIDE ** 3), seenTheirs = new Uint16Array(PALETTE_SIDE ** 3);
  for (let k = 0; k < n; k++) {
    if (dist[k] === FAR) continue;
    if (theirs(k) && dist[k] <= R) seenTheirs[binOf(k)]++;
    else if (mine(k) && dist[k] > R) seenMine[binOf(k)]++;
  }
  const [toMine, toTheirs] = [seenMine, seenTheirs].map((seen) => {
    const pal = paletteOfCounts(seen.entries());
    const known = new Float32Array(seen.length).fill(-1);
    return (b: number): number => known[b] >= 0 ? known[b] : (known[b] = paletteDistance(pal, b));
  });
  const goes = (k: number) => {
    if (!mine(k) || dist[k] > R || seeds[k] === 1) return false;
    const b = binOf(k);
    return toTheirs(b) + BAND_MARGIN < toMine(b);
  };
  // Flood from the split through band cells nearer the others' colours.
  const stack: number[] = [];
  for (let k = 0; k < n; k++) {
    if (dist[k] === 1 && goes(k)) {
      keep[k] = 0;
      stack.push(k);
    }
  }
  while (stack.length > 0) {
    around(stack.pop()!, (nb) => {
      if (goes(nb)) {
        keep[nb] = 0;
        stack.push(nb);
      }
    });
  }
}

/** Colour model bins: sRGB quantised to MODEL_BIN levels per channel. */
const MODEL_BIN = 16, MODEL_SIDE = 256 / MODEL_BIN;
/** Reach (face widths) of reclaimByColourModel from the cells given to others. */
const MODEL_BAND = 0.6;
/** A kept cell goes to the others when their colour model makes its colours this many times likelier. */
const MODEL_ODDS = 4;
/**
 * Half widths (face widths, from the chosen face's centre) that reclaimByColourModel never takes:
 * beside the head down to the shoulders (the person's own hair in shadow, a ponytail behind the
 * neck, is missing from their sure colours), and beside the body below them.
 */
const GUARD_HEAD = 0.8, GUARD_BODY = 1.0;

/**
 * The split leaves a neighbour's hair or clothes with the chosen person where both are joined
 * across a colour edge that the neighbour's own grainy path pays as well (flying strands beside a
 * neck, a neighbour's top beside the chosen person's hair). Each side gets a colour model (a
 * histogram of sRGB bins of MODEL_BIN, smoothed over the neighbouring bins): the others' cells
 * within twice MODEL_BAND of the split, the chosen person's seeds (face core, body axis) and their
 * kept cells beyond MODEL_BAND from it. A kept cell within MODEL_BAND of the split whose 3x3
 * neighbourhood is on average MODEL_ODDS times likelier under the others' model, reached from the
 * split through such cells, goes to the others (keep = 0); the chosen person's seeds and the
 * guarded zone around the face and body (GUARD_HEAD, GUARD_BODY) stay. In place.
 */
function reclaimByColourModel(
  m: PersonMask,
  g: FaceGeometry,
  keep: Float32Array,
  other: Float32Array,
  seeds: Int8Array,
  rgb: Float32Array,
): void {
  const { w, h, step, data } = m;
  const n = w * h;
  const R = Math.max(2, Math.round(MODEL_BAND * g.fw / step));
  // 1 kept (the chosen person's), 2 given to others, 0 neither.
  const owner = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    if (data[k] < SOLID) continue;
    owner[k] = keep[k] >= 0.5 ? 1 : other[k] < Infinity ? 2 : 0;
  }
  // Chessboard distance (cells) from the split, on each side, up to 2R: breadth first, one ring
  // at a time.
  const FAR = 0xffff, dist = new Uint16Array(n).fill(FAR);
  let queue = new Int32Array(n), next = new Int32Array(n), len = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x, o = owner[k];
      if (o === 0) continue;
      const want = 3 - o;
      let split = false;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1) && !split; yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
          if (owner[yy * w + xx] === want) {
            split = true;
            break;
          }
        }
      }
      if (split) {
        dist[k] = 1;
        queue[len++] = k;
      }
    }
  }
  if (len === 0) return;
  for (let d = 2; d <= 2 * R && len > 0; d++) {
    let nextLen = 0;
    for (let q = 0; q < len; q++) {
      const k = queue[q], o = owner[k], x = k % w, y = (k - x) / w;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
          const nb = yy * w + xx;
          if (dist[nb] === FAR && owner[nb] === o) {
            dist[nb] = d;
            next[nextLen++] = nb;
          }
        }
      }
    }
    [queue, next] = [next, queue];
    len = nextLen;
  }
  const side = MODEL_SIDE, bins = side * side * side;
  const binOf = (k: number) => {
    const r = Math.min(side - 1, rgb[k * 3] / MODEL_BIN | 0),
      gg = Math.min(side - 1, rgb[k * 3 + 1] / MODEL_BIN | 0),
      b = Math.min(side - 1, rgb[k * 3 + 2] / MODEL_BIN | 0);
    return (r * side + gg) * side + b;
  };
  const hMine = new Float32Array(bins), hTheirs = new Float32Array(bins);
  let nMine = 0, nTheirs = 0;
  for (let k = 0; k < n; k++) {
    if (owner[k] === 2 && dist[k] !== FAR) {
      hTheirs[binOf(k)]++;
      nTheirs++;
    } else if (seeds[k] === 1 || (owner[k] === 1 && dist[k] !== FAR && dist[k] > R)) {
      hMine[binOf(k)]++;
      nMine++;
    }
  }
  if (nMine < 20 || nTheirs < 20) return;
  // Smoothed over the neighbouring bins (weights 2 along a matching channel, 1 across).
  const smooth = (hist: Float32Array) => {
    const out = new Float32Array(bins);
    for (let b0 = 0; b0 < bins; b0++) {
      const v = hist[b0];
      if (v === 0) continue;
      const r = (b0 / (side * side)) | 0, gg = ((b0 / side) | 0) % side, b = b0 % side;
      for (let dr = -1; dr <= 1; dr++) {
        const rr = r + dr;
        if (rr < 0 || rr >= side) continue;
        for (let dg = -1; dg <= 1; dg++) {
          const g2 = gg + dg;
          if (g2 < 0 || g2 >= side) continue;
          for (let db = -1; db <= 1; db++) {
            const bb = b + db;
            if (bb < 0 || bb >= side) continue;
            out[(rr * side + g2) * side + bb] += v * (dr === 0 ? 2 : 1) * (dg === 0 ? 2 : 1) *
              (db === 0 ? 2 : 1);
          }
        }
      }
    }
    return out;
  };
  const sMine = smooth(hMine), sTheirs = smooth(hTheirs);
  // Judged: kept cells within R of the split (as they were before any goes).
  const judged = new Uint8Array(n), score = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    if (owner[k] !== 1 || dist[k] > R) continue;
    judged[k] = 1;
    const b = binOf(k);
    score[k] = Math.log(((sTheirs[b] + 0.5) / nTheirs) / ((sMine[b] + 0.5) / nMine));
  }
  const shoulderY = g.pts[152][1] + 0.3 * g.fh, odds = Math.log(MODEL_ODDS);
  // 1 goes, 0 stays; judged once per cell.
  const verdict = new Int8Array(n).fill(-1);
  const goes = (k: number): boolean => {
    if (verdict[k] >= 0) return verdict[k] === 1;
    let v = 0;
    const x = k % w, y = (k - x) / w;
    const dx = Math.abs((x + 0.5) * step - g.center[0]);
    if (
      judged[k] && seeds[k] !== 1 && dx >= ((y + 0.5) * step < shoulderY ? GUARD_HEAD : GUARD_BODY) * g.fw
    ) {
      // Averaged over the judged 3x3 neighbourhood (strands mix both people's colours).
      let s = 0, c = 0;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
          const nb = yy * w + xx;
          if (judged[nb]) {
            s += score[nb];
            c++;
          }
        }
      }
      v = s / c > odds ? 1 : 0;
    }
    verdict[k] = v;
    return v === 1;
  };
  // Flood from the split through such cells.
  const stack: number[] = [];
  for (let k = 0; k < n; k++) {
    if (dist[k] === 1 && owner[k] === 1 && goes(k)) {
      keep[k] = 0;
      owner[k] = 0;
      stack.push(k);
    }
  }
  while (stack.length > 0) {
    const k = stack.pop()!, x = k % w, y = (k - x) / w;
    for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
      for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
        const nb = yy * w + xx;
        if (owner[nb] === 1 && goes(nb)) {
          keep[nb] = 0;
          owner[nb] = 0;
          stack.push(nb);
        }
      }
    }
  }
}

/** A cell's palette bin (PALETTE_BIN levels per sRGB channel). */
function binOfCell(rgb: Float32Array, k: number): number {
  const side = PALETTE_SIDE;
  const r = Math.min(side - 1, rgb[k * 3] / PALETTE_BIN | 0),
    gg = Math.min(side - 1, rgb[k * 3 + 1] / PALETTE_BIN | 0),
    b = Math.min(side - 1, rgb[k * 3 + 2] / PALETTE_BIN | 0);
  return (r * side + gg) * side + b;
}

/** The palette of the bins counted at least twice ([bin, count] pairs): each bin's three channel levels. */
function paletteOfCounts(counts: Iterable<[number, number]>): Int32Array {
  const side = PALETTE_SIDE, pal: number[] = [];
  for (const [b, c] of counts) {
    if (c >= 2) pal.push((b / (side * side)) | 0, ((b / side) | 0) % side, b % side);
  }
  return Int32Array.from(pal);
}

/** Distance (sRGB units, between bin centres) from bin `b` to the nearest colour of `palette`. */
function paletteDistance(palette: Int32Array, b: number): number {
  const side = PALETTE_SIDE;
  const r = (b / (side * side)) | 0, gg = ((b / side) | 0) % side, bl = b % side;
  let best = Infinity;
  for (let q = 0; q < palette.length; q += 3) {
    const dr = r - palette[q], dg = gg - palette[q + 1], db = bl - palette[q + 2];
    const d2 = dr * dr + dg * dg + db * db;
    if (d2 < best) best = d2;
  }
  return PALETTE_BIN * Math.sqrt(best);
}

/** Depth (face widths) of the kept side along the split that reclaimLocal judges. */
const LOCAL_BAND = 0.2;
/** Depth (face widths) beyond LOCAL_BAND, and on the others' side, whose colours are each side's local palette. */
const LOCAL_REF = 0.3;
/** Tiles (face widths) the local palettes are gathered in; a cell reads the 5x5 tiles around its own. */
const LOCAL_TILE = 0.12;
/**
 * Colour edges (the geodesic's cost units beyond path length) the chosen person's path to a judged
 * cell must cross for it to be someone else's: 30-140 across a blonde-to-dark hair edge, under 20
 * along shaded skin or hair to the split (sample4@1216, sample6@1081).
 */
const LOCAL_EDGES = 25;
/** A judged cell goes when its colour is this much nearer the others' palette (sRGB units)... */
const LOCAL_MARGIN = 8;
/** ...a colour this far from theirs counting as this far (one the chosen person lacks is theirs too). */
const LOCAL_FOREIGN = 16;
/** Radius (face widths) of the opening that takes thin leftovers across a colour edge (reclaimLocal). */
const LOCAL_THIN = 0.03;

/**
 * The split, the band and the colour model leave ragged fragments of a neighbour along the chosen
 * person's outline where the two touch (a neighbour's hair beside the temple, bits of a patterned
 * top along the shoulder): the split favours the chosen person, the global models mix the
 * person's colours from everywhere (a black top far below the blonde hair explains the
 * neighbour's dark hair), and the guards around the face and body keep the colour model off the
 * outline there. Here the kept cells within LOCAL_BAND of the split (the envelope counted) are
 * judged twice:
 * - where: along the matte (geodesic, colour edges paying), nearer the others' cells than the
 *   chosen person's cells beyond the band, and reached from the latter only across colour edges
 *   (LOCAL_EDGES): a fragment lies across an edge from the person, their own shaded skin or hair
 *   along the split does not;
 * - colour: nearer, by LOCAL_MARGIN, the others' local palette (bins seen twice among their cells
 *   within LOCAL_REF of the split, in the 5x5 tiles around the cell, about 0.3 face widths each
 *   way) than both the chosen person's local palette (their kept cells LOCAL_BAND to LOCAL_BAND +
 *   LOCAL_REF in) and their head's own colours (hair above the brows, skin between the eyes and
 *   the mouth, well inside the kept region: their own hair along the split, a strand thinner than
 *   the band, is there); a colour the chosen person has nowhere counts as theirs (LOCAL_FOREIGN).
 * Cells passing both, reached from the split through such cells, go (keep = 0); so do thin
 * leftovers (an opening of radius LOCAL_THIN) of the cells that pass the first test only, a
 * stripe's edge mixed with the person's colours. The chosen person's seeds (face core, body axis)
 * and the face's oval stay. In place.
 */
function reclaimLocal(
  m: PersonMask,
  g: FaceGeometry,
  keep: Float32Array,
  bound: Float32Array,
  seeds: Int8Array,
  rgb: Float32Array,
  costs: StepCosts,
  rows: [number, number],
): void {
  const { w, h, step, data } = m;
  const n = w * h;
  // The head's own colours, among the kept cells well inside (the hair ellipse reaches a
  // neighbour's hair, and the hair's outline mixes in the wall behind it): the hair above the
  // brows beside the face, the skin between the eyes and the mouth (not the brows, the eyes or the
  // lips: a dark brow explains a neighbour's dark hair).
  const eyeY = g.eyeCenter[1];
  const er = Math.max(1, Math.round(0.08 * g.fw / step));
  const head = [
    Math.max(0, Math.floor((g.center[0] - 0.7 * g.fw) / step) - er),
    Math.max(0, Math.floor((g.center[1] - 0.8 * g.fh) / step) - er),
    Math.min(w, Math.ceil((g.center[0] + 0.7 * g.fw) / step) + er + 1),
    Math.min(h, Math.ceil((eyeY + 0.4 * g.fh) / step) + er + 1),
  ] as const;
  const inner = openBox(w, head, er, (k) => data[k] >= 0.5 && keep[k] * bound[k] >= 0.5, false);
  const sure = new Uint16Array(PALETTE_SIDE ** 3);
  for (let j = head[1]; j < head[3]; j++) {
    const y = (j + 0.5) * step;
    for (let i = head[0]; i < head[2]; i++) {
      const k = j * w + i;
      if (inner[(j - head[1]) * (head[2] - head[0]) + i - head[0]] < 1) continue;
      const x = (i + 0.5) * step;
      const fu = (x - g.center[0]) / (0.38 * g.fw), fv = (y - g.center[1]) / (0.42 * g.fh);
      const hu = (x - g.center[0]) / (0.7 * g.fw), hv = (y - g.center[1]) / (0.8 * g.fh);
      const su = (x - g.center[0]) / (0.3 * g.fw), sv = (y - eyeY - 0.25 * g.fh) / (0.12 * g.fh);
      const hair = y < eyeY - 0.15 * g.fh && hu * hu + hv * hv <= 1 && fu * fu + fv * fv > 1;
      if (hair || su * su + sv * sv <= 1) sure[binOfCell(rgb, k)]++;
    }
  }
  const headPalette = paletteOfCounts(sure.entries());
  if (headPalette.length === 0) return;
  const Rj = Math.max(2, Math.round(LOCAL_BAND * g.fw / step));
  const Rr = Math.max(2, Math.round(LOCAL_REF * g.fw / step));
  // 1 kept, 2 not kept (someone else's, or cut off), 0 not person.
  const owner = new Uint8Array(n);
  for (let k = 0; k < n; k++) if (data[k] >= SOLID) owner[k] = keep[k] * bound[k] >= 0.5 ? 1 : 2;
  // Chessboard distance (cells) from the split on each side, up to Rj + Rr.
  const FAR = 0xffff, dist = new Uint16Array(n).fill(FAR);
  let queue = new Int32Array(n), next = new Int32Array(n), len = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x, o = owner[k];
      if (o === 0) continue;
      let split = false;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1) && !split; yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
          if (owner[yy * w + xx] === 3 - o) {
            split = true;
            break;
          }
        }
      }
      if (split) {
        dist[k] = 1;
        queue[len++] = k;
      }
    }
  }
  if (len === 0) return;
  for (let d = 2; d <= Rj + Rr && len > 0; d++) {
    let nextLen = 0;
    for (let q = 0; q < len; q++) {
      const k = queue[q], o = owner[k], x = k % w, y = (k - x) / w;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
          const nb = yy * w + xx;
          if (dist[nb] === FAR && owner[nb] === o) {
            dist[nb] = d;
            next[nextLen++] = nb;
          }
        }
      }
    }
    [queue, next] = [next, queue];
    len = nextLen;
  }
  const binOf = (k: number) => binOfCell(rgb, k);
  const T = Math.max(4, Math.round(LOCAL_TILE * g.fw / step));
  const tw = Math.ceil(w / T), th = Math.ceil(h / T);
  const tileOf = (k: number) => {
    const x = k % w, y = (k - x) / w;
    return Math.floor(y / T) * tw + Math.floor(x / T);
  };
  // Each tile's reference bins, per side (bin -> count), made for the tiles that have any.
  const refs: Map<number, number>[][] = new Array(tw * th);
  let judged = 0;
  for (let k = 0; k < n; k++) {
    const d = dist[k], o = owner[k];
    if (d === FAR) continue;
    if (o === 1 && d <= Rj) {
      judged++;
      continue;
    }
    if (o === 2 && d > Rr) continue;
    const t = tileOf(k), b = binOf(k);
    const map = (refs[t] ??= [new Map(), new Map()])[o - 1];
    map.set(b, (map.get(b) ?? 0) + 1);
  }
  if (judged === 0) return;
  // Per tile with judged cells: the 5x5 tiles' palettes, and each bin's verdict.
  const palettes = new Map<number, { mine: Int32Array; theirs: Int32Array; known: Map<number, number> }>();
  const paletteOf = (t: number) => {
    let p = palettes.get(t);
    if (p) return p;
    const tx = t % tw, ty = (t - tx) / tw;
    const sums: Map<number, number>[] = [new Map(), new Map()];
    for (let y = Math.max(0, ty - 2); y <= Math.min(th - 1, ty + 2); y++) {
      for (let x = Math.max(0, tx - 2); x <= Math.min(tw - 1, tx + 2); x++) {
        for (let s = 0; s < 2; s++) {
          for (const [b, c] of refs[y * tw + x]?.[s] ?? []) sums[s].set(b, (sums[s].get(b) ?? 0) + c);
        }
      }
    }
    const [mine, theirs] = sums.map((sum) => paletteOfCounts(sum));
    p = { mine, theirs, known: new Map() };
    palettes.set(t, p);
    return p;
  };
  // Which side each band cell is nearer along the matte, paths paying for colour edges, with no
  // favour: from the chosen person's cells beyond the band and from the others' cells. The split
  // favours the chosen person, so a fragment lies across a colour edge from them and is reached
  // from the others without one; the person's own shaded skin or hair along the split is nearer
  // them, whatever its colour.
  const sides = new Int8Array(n);
  for (let k = 0; k < n; k++) {
    if (owner[k] === 2) sides[k] = 2;
    else if (owner[k] === 1 && dist[k] > Rj) sides[k] = 1;
  }
  // Only the box around the band is swept (paths may wander up to LOCAL_REF beyond it).
  let x0 = w, x1 = 0, y0 = h, y1 = 0;
  for (let k = 0; k < n; k++) {
    if (owner[k] === 1 && dist[k] <= Rj) {
      const x = k % w, y = (k - x) / w;
      if (x < x0) x0 = x;
      if (x >= x1) x1 = x + 1;
      if (y < y0) y0 = y;
      if (y >= y1) y1 = y + 1;
    }
  }
  const band: [number, number] = [Math.max(rows[0], y0 - Rr), Math.min(rows[1], y1 + Rr)];
  const cols: [number, number] = [Math.max(0, x0 - Rr), Math.min(w, x1 + Rr)];
  const fromMine = geodesic(m, sides, 1, costs, band, cols);
  const fromTheirs = geodesic(m, sides, 2, costs, band, cols);
  // Across a colour edge from the chosen person and nearer the others: the band cells a fragment
  // may hold (the face's oval and the chosen person's seeds stay).
  const cx = g.center[0], cy = g.center[1];
  const across = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    if (owner[k] !== 1 || dist[k] > Rj || seeds[k] === 1 || fromTheirs[k] >= fromMine[k]) continue;
    if (fromMine[k] - (Rj + 1 - dist[k]) <= LOCAL_EDGES) continue;
    const x = k % w, y = (k - x) / w;
    const u = ((x + 0.5) * step - cx) / (0.55 * g.fw), v = ((y + 0.5) * step - cy) / (0.6 * g.fh);
    if (u * u + v * v > 1) across[k] = 1;
  }
  // Of those, the cells in the others' colours go: nearer their local palette than the chosen
  // person's local and head palettes by LOCAL_MARGIN, a colour the chosen person has nowhere
  // (LOCAL_FOREIGN from both) counting as theirs; judged once per palette bin and tile.
  const theirs = (k: number): boolean => {
    const p = paletteOf(tileOf(k));
    if (p.theirs.length === 0) return false;
    const b = binOf(k);
    let c = p.known.get(b);
    if (c === undefined) {
      const t = Math.min(LOCAL_FOREIGN, paletteDistance(p.theirs, b)) + LOCAL_MARGIN;
      c = t < paletteDistance(headPalette, b) && t < paletteDistance(p.mine, b) ? 1 : 0;
      p.known.set(b, c);
    }
    return c === 1;
  };
  // Reached from the split through such cells.
  const goes = (k: number) => across[k] === 1 && theirs(k);
  const stack: number[] = [];
  for (let k = 0; k < n; k++) {
    if (dist[k] === 1 && goes(k)) {
      across[k] = 2;
      stack.push(k);
    }
  }
  while (stack.length > 0) {
    const k = stack.pop()!, x = k % w, y = (k - x) / w;
    keep[k] = 0;
    for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
      for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
        const nb = yy * w + xx;
        if (goes(nb)) {
          across[nb] = 2;
          stack.push(nb);
        }
      }
    }
  }
  // What is left of a fragment in colours both share (a red stripe's edge mixed with grey, a bit
  // of a top in the person's skin tones) is thin: band cells across a colour edge from the chosen
  // person and reached by the others without one go where an opening of the kept region (radius
  // LOCAL_THIN face widths) takes them.
  const rr = Math.max(1, Math.round(LOCAL_THIN * g.fw / step));
  const box = [cols[0], band[0], cols[1], band[1]] as const;
  const opened = openBox(w, box, rr, (k) => owner[k] === 1 && keep[k] >= 0.5);
  const bw = box[2] - box[0];
  for (let y = box[1]; y < box[3]; y++) {
    for (let x = box[0]; x < box[2]; x++) {
      const k = y * w + x;
      if (across[k] === 1 && keep[k] >= 0.5 && opened[(y - box[1]) * bw + x - box[0]] < 1) keep[k] = 0;
    }
  }
}

/**
 * The cells of `box` ([x0, y0, x1, y1) of a grid `w` wide) for which `on` holds, eroded by `r`
 * (square window; `open`: then dilated back, a morphological opening), as a box-sized plane.
 */
function openBox(
  w: number,
  box: readonly [number, number, number, number],
  r: number,
  on: (k: number) => boolean,
  open = true,
): Float32Array {
  const [x0, y0, x1, y1] = box, bw = Math.max(0, x1 - x0), bh = Math.max(0, y1 - y0);
  const sub = new Float32Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) sub[y * bw + x] = on((y + y0) * w + x + x0) ? 1 : 0;
  }
  if (sub.length === 0) return sub;
  const eroded = slidingExtreme(slidingExtreme(sub, bw, bh, r, true, false), bw, bh, r, false, false);
  return open
    ? slidingExtreme(slidingExtreme(eroded, bw, bh, r, true, true), bw, bh, r, false, true)
    : eroded;
}

/**
 * Marks (seeds = 2) the cells of large regions beside the chosen head, above
 * the shoulder row, that are apart from it once the matte is eroded by
 * ERODE cells, and returns them as heads.
 */
function findDetachedHeads(m: PersonMask, g: FaceGeometry, rows: number, seeds: Int8Array): Head[] {
  const { w, step, data } = m;
  const ERODE = 3;
  // Erosion (square window) of cells >= 0.5, as separable running counts of solid cells.
  const solid = new Uint8Array(w * rows), tmp = new Uint8Array(w * rows);
  for (let k = 0; k < w * rows; k++) solid[k] = data[k] >= 0.5 ? 1 : 0;
  // A cell stays when every cell within ERODE along the axis (dx, dy) is solid.
  const erodeAlong = (src: Uint8Array, dst: Uint8Array, dx: number, dy: number) => {
    for (let y = 0; y < rows; y++) {
      for (let x = 0; x < w; x++) {
        let all = 1;
        for (let d = -ERODE; d <= ERODE && all; d++) {
          const xx = x + d * dx, yy = y + d * dy;
          if (xx < 0 || xx >= w || yy < 0 || yy >= rows || !src[yy * w + xx]) all = 0;
        }
        dst[y * w + x] = all;
      }
    }
  };
  const core = new Uint8Array(w * rows);
  erodeAlong(solid, tmp, 1, 0);
  erodeAlong(tmp, core, 0, 1);
  const label = new Int32Array(w * rows);
  const fx = Math.floor(g.center[0] / step), fy = Math.floor(g.center[1] / step);
  const reach = Math.max(2, Math.round(0.15 * g.fw / step));
  const stack: number[] = [];
  const regions: { cells: number[]; face: boolean; sx: number; minX: number; maxX: number }[] = [];
  for (let k0 = 0; k0 < w * rows; k0++) {
    if (label[k0] !== 0 || !core[k0]) continue;
    const r = { cells: [] as number[], face: false, sx: 0, minX: w, maxX: 0 };
    regions.push(r);
    label[k0] = regions.length;
    stack.push(k0);
    while (stack.length > 0) {
      const k = stack.pop()!;
      const x = k % w, y = (k - x) / w;
      r.cells.push(k);
      r.sx += x;
      if (x < r.minX) r.minX = x;
      if (x > r.maxX) r.maxX = x;
      if (Math.abs(x - fx) <= reach && Math.abs(y - fy) <= reach) r.face = true;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= rows) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const nb = yy * w + xx;
          if (label[nb] === 0 && core[nb]) {
            label[nb] = regions.length;
            stack.push(nb);
          }
        }
      }
    }
  }
  if (!regions.some((r) => r.face)) return [];
  const found: Head[] = [];
  for (const r of regions) {
    if (r.face) continue;
    const cx = (r.sx / r.cells.length + 0.5) * step;
    // Beside the head (not a bun or a hair tip above it) and large enough to be a head or a head of hair.
    if (Math.abs(cx - g.center[0]) < 0.7 * g.fw || r.cells.length * step * step < (0.35 * g.fw) ** 2) {
      continue;
    }
    let sy = 0;
    for (const k of r.cells) {
      seeds[k] = 2;
      sy += Math.floor(k / w);
    }
    found.push({
      cx,
      cy: (sy / r.cells.length + 0.5) * step,
      fw: Math.min(g.fw, (r.maxX - r.minX + 1) * step),
    });
  }
  return found;
}

/** Palette bins: sRGB quantised to PALETTE_BIN levels per channel. */
const PALETTE_BIN = 8, PALETTE_SIDE = 256 / PALETTE_BIN;
/** A kept cell this far (sRGB units) from every colour of the person's palette is foreign. */
const FOREIGN = 60;
/**
 * Half width (face widths) of the body's axis sampled for the palette below the chin: wide
 * enough to take an open jacket's front panels as well as the shirt between them.
 */
const AXIS_HALF = 0.6;

/**
 * The chosen person's palette, sampled where the person surely is: the face's skin without the
 * mouth, the hair above the eyes, the body's axis below the chin. Returns the distance (sRGB
 * units, between bin centres) from a cell's colour to it, or undefined when too few cells were
 * sampled.
 */
function personPalette(
  m: PersonMask,
  g: FaceGeometry,
  rgb: Float32Array,
): ((k: number) => number) | undefined {
  const { w, h, step, data } = m;
  const binOf = (k: number) => binOfCell(rgb, k);
  // The palette: bins seen at least twice in the sampled cells.
  const seen = new Uint16Array(PALETTE_SIDE ** 3);
  const mouth = g.pts[13] && g.pts[14]
    ? [(g.pts[13][0] + g.pts[14][0]) / 2, (g.pts[13][1] + g.pts[14][1]) / 2]
    : [g.center[0], g.center[1] + 0.25 * g.fh];
  const chinY = g.pts[152][1], eyeY = g.eyeCenter[1];
  let sampled = 0;
  // Only cells within the head's box or the axis's columns can be sampled.
  const i0 = Math.max(0, Math.floor((g.center[0] - Math.max(0.7, AXIS_HALF) * g.fw) / step)),
    i1 = Math.min(w - 1, Math.ceil((g.center[0] + Math.max(0.7, AXIS_HALF) * g.fw) / step));
  const j0 = Math.max(0, Math.floor((g.center[1] - 0.8 * g.fh) / step));
  for (let j = j0; j < h; j++) {
    const cy = (j + 0.5) * step;
    for (let i = i0; i <= i1; i++) {
      const k = j * w + i;
      if (data[k] < 0.5) continue;
      const cx = (i + 0.5) * step;
      const fu = (cx - g.center[0]) / (0.38 * g.fw), fv = (cy - g.center[1]) / (0.42 * g.fh);
      const mu = (cx - mouth[0]) / (0.25 * g.fw), mv = (cy - mouth[1]) / (0.12 * g.fh);
      const hu = (cx - g.center[0]) / (0.7 * g.fw), hv = (cy - g.center[1]) / (0.8 * g.fh);
      const skin = fu * fu + fv * fv <= 1 && mu * mu + mv * mv > 1;
      const hair = cy < eyeY && hu * hu + hv * hv <= 1 && fu * fu + fv * fv > 1;
      const axis = cy > chinY + 0.15 * g.fh && Math.abs(cx - g.center[0]) < AXIS_HALF * g.fw;
      if (!skin && !hair && !axis) continue;
      seen[binOf(k)]++;
      sampled++;
    }
  }
  if (sampled < 20) return undefined;
  const palette = paletteOfCounts(seen.entries());
  // Computed for the bins asked about only.
  const known = new Float32Array(seen.length).fill(-1);
  return (k: number): number => {
    const b = binOf(k);
    return known[b] >= 0 ? known[b] : (known[b] = paletteDistance(palette, b));
  };
}

/**
 * Drops old background that the selfie model kept at full confidence joined to the body (a red
 * sofa beside the arms): the person's palette is sampled where the person surely is (the face's
 * skin without the mouth, the hair above the eyes, the body's axis below the chin); a patch of
 * kept cells whose colours are all far from that palette (FOREIGN), below the chin or beside
 * the head below the eyes, as large as a hand and touching the region's outline or the frame's
 * edge, is not the person. In place.
 * Clothes and skin share the axis's or the face's colours; a patch the palette cannot tell from
 * the person (a dark sofa behind black clothes) stays.
 */
export function dropForeignPatches(m: PersonMask, g: FaceGeometry, rgb: Float32Array): void {
  const { w, h, step, data } = m;
  const n = w * h;
  const distOf = personPalette(m, g, rgb);
  if (!distOf) return;
  const chinY = g.pts[152][1], eyeY = g.eyeCenter[1];
  // Foreign cells below the chin, or below the eyes beside the head (a raised arm above the eyes,
  // lit by a lamp, is not judged), grouped 8-connected.
  const foreign = new Uint8Array(n);
  const judged = (i: number, j: number) => {
    const cy = (j + 0.5) * step;
    if (cy > chinY) return true;
    if (cy <= eyeY) return false;
    const u = ((i + 0.5) * step - g.center[0]) / (0.8 * g.fw), v = (cy - g.center[1]) / (0.9 * g.fh);
    return u * u + v * v > 1;
  };
  for (let j = Math.max(0, Math.floor(eyeY / step)); j < h; j++) {
    for (let i = 0, k = j * w; i < w; i++, k++) {
      if (data[k] >= 0.5 && judged(i, j) && distOf(k) >= FOREIGN) foreign[k] = 1;
    }
  }
  const minCells = Math.max(4, (0.1 * g.fw / step) ** 2);
  const stack: number[] = [], patch: number[] = [];
  for (let k0 = 0; k0 < n; k0++) {
    if (foreign[k0] !== 1) continue;
    foreign[k0] = 2;
    stack.push(k0);
    patch.length = 0;
    let outline = false;
    while (stack.length > 0) {
      const k = stack.pop()!;
      patch.push(k);
      const x = k % w, y = (k - x) / w;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) outline = true;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const nb = yy * w + xx;
          if (data[nb] < SOLID) outline = true;
          else if (foreign[nb] === 1) {
            foreign[nb] = 2;
            stack.push(nb);
          }
        }
      }
    }
    if (!outline || patch.length < minCells) continue;
    // The patch and its rim: cells next to it that mix its colour with the person's (half as far
    // from the palette), grown outward below the chin.
    for (const k of patch) {
      data[k] = 0;
      stack.push(k);
    }
    while (stack.length > 0) {
      const k = stack.pop()!;
      const x = k % w, y = (k - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h || !judged(xx, yy)) continue;
          const nb = yy * w + xx;
          if (data[nb] > 0 && distOf(nb) >= FOREIGN / 2) {
            data[nb] = 0;
            stack.push(nb);
          }
        }
      }
    }
  }
}

/** Extra cost of a step per unit of sRGB distance between the two cells' colours, above grain (EDGE_GRAIN). */
const EDGE_COST = 0.5, EDGE_GRAIN = 4;

/**
 * The cost of one step from each cell to its neighbour on the left, above,
 * above-left and above-right (the same cost both ways): the chamfer length (1 or
 * sqrt 2) plus EDGE_COST per unit of sRGB distance between the two cells'
 * colours beyond grain. Computed once for both geodesic searches and their sweeps.
 */
interface StepCosts {
  left: Float64Array;
  up: Float64Array;
  upLeft: Float64Array;
  upRight: Float64Array;
}

function stepCosts(m: PersonMask, colours: Float32Array, rows: [number, number]): StepCosts {
  const { w, h, data } = m;
  const n = w * h;
  const c: StepCosts = {
    left: new Float64Array(n),
    up: new Float64Array(n),
    upLeft: new Float64Array(n),
    upRight: new Float64Array(n),
  };
  const cost = (k: number, nb: number, len: number) => {
    const a = k * 3, b = nb * 3;
    const dr = colours[a] - colours[b],
      dg = colours[a + 1] - colours[b + 1],
      db = colours[a + 2] - colours[b + 2];
    return len * (1 + EDGE_COST * Math.max(0, Math.sqrt(dr * dr + dg * dg + db * db) - EDGE_GRAIN));
  };
  const D = Math.SQRT2;
  for (let y = rows[0]; y < rows[1]; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      if (data[k] < SOLID) continue;
      if (x > 0 && data[k - 1] >= SOLID) c.left[k] = cost(k, k - 1, 1);
      if (y > 0) {
        if (data[k - w] >= SOLID) c.up[k] = cost(k, k - w, 1);
        if (x > 0 && data[k - w - 1] >= SOLID) c.upLeft[k] = cost(k, k - w - 1, D);
        if (x < w - 1 && data[k - w + 1] >= SOLID) c.upRight[k] = cost(k, k - w + 1, D);
      }
    }
  }
  return c;
}

/**
 * Unmarks (0) the cells marked `mark` that have an unmarked cell within `r` cells (square window;
 * the frame's edge is not a boundary: a neighbour cut by it is as thick as they are inside).
 */
function erode(m: PersonMask, marks: Int8Array, mark: number, r: number): void {
  const { w, h } = m;
  const on = new Float32Array(w * h);
  for (let k = 0; k < on.length; k++) on[k] = marks[k] === mark ? 1 : 0;
  const kept = slidingExtreme(slidingExtreme(on, w, h, r, true, false), w, h, r, false, false);
  for (let k = 0; k < on.length; k++) if (on[k] && kept[k] < 1) marks[k] = 0;
}

/** The first row with a cell >= SOLID and the row after the last one. */
function solidRows(m: PersonMask): [number, number] {
  const { w, h, data } = m;
  let top = h, bottom = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[y * w + x] >= SOLID) {
        if (y < top) top = y;
        bottom = y + 1;
        break;
      }
    }
  }
  return top < bottom ? [top, bottom] : [0, 0];
}

/**
 * Geodesic distances (in cells, plus EDGE_COST per unit of colour change beyond grain) from
 * the cells with seeds === `from`, through cells >= SOLID only: forward and backward raster
 * sweeps (chamfer 1 / sqrt 2), repeated until paths may turn a few times; only the rows holding
 * such cells are swept (and only `cols` of them: paths leave that box only through its seeds).
 */
function geodesic(
  m: PersonMask,
  seeds: Int8Array,
  from: number,
  costs: StepCosts,
  rows: [number, number],
  cols: [number, number] = [0, m.w],
): Float32Array {
  const { w, h, data } = m;
  const n = w * h;
  const a = new Float32Array(n).fill(Infinity);
  for (let k = 0; k < n; k++) if (seeds[k] === from) a[k] = 0;
  const { left, up, upLeft, upRight } = costs;
  const [y0, y1] = rows, [x0, x1] = cols;
  // Each cell takes its best path through an already swept neighbour (a neighbour below SOLID
  // stays at Infinity: its step never wins).
  for (let pass = 0; pass < 3; pass++) {
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const k = y * w + x;
        if (data[k] < SOLID) continue;
        let ba: number = a[k];
        if (x > 0 && a[k - 1] + left[k] < ba) ba = a[k - 1] + left[k];
        if (y > 0) {
          if (a[k - w] + up[k] < ba) ba = a[k - w] + up[k];
          if (x > 0 && a[k - w - 1] + upLeft[k] < ba) ba = a[k - w - 1] + upLeft[k];
          if (x < w - 1 && a[k - w + 1] + upRight[k] < ba) ba = a[k - w + 1] + upRight[k];
        }
        a[k] = ba;
      }
    }
    for (let y = y1 - 1; y >= y0; y--) {
      for (let x = x1 - 1; x >= x0; x--) {
        const k = y * w + x;
        if (data[k] < SOLID) continue;
        let ba: number = a[k];
        if (x < w - 1 && a[k + 1] + left[k + 1] < ba) ba = a[k + 1] + left[k + 1];
        if (y < h - 1) {
          if (a[k + w] + up[k + w] < ba) ba = a[k + w] + up[k + w];
          if (x < w - 1 && a[k + w + 1] + upLeft[k + w + 1] < ba) ba = a[k + w + 1] + upLeft[k + w + 1];
          if (x > 0 && a[k + w - 1] + upRight[k + w - 1] < ba) ba = a[k + w - 1] + upRight[k + w - 1];
        }
        a[k] = ba;
      }
    }
  }
  return a;
}

/** Bilinear sample of the person mask at canvas pixel (x, y). */
export function personAt(m: PersonMask, x: number, y: number): number {
  const gx = Math.min(m.w - 1.001, Math.max(0, (x + 0.5) / m.step - 0.5));
  const gy = Math.min(m.h - 1.001, Math.max(0, (y + 0.5) / m.step - 0.5));
  const x0 = gx | 0, y0 = gy | 0, fx = gx - x0, fy = gy - y0;
  const i = y0 * m.w + x0;
  const d = m.data;
  return (d[i] * (1 - fx) + d[i + 1] * fx) * (1 - fy) +
    (d[i + m.w] * (1 - fx) + d[i + m.w + 1] * fx) * fy;
}

/** Where a canvas lies over its photo: canvas = photo * scale + offset. */
export interface CanvasPlace {
  width: number;
  height: number;
  scale: number;
  offsetX: number;
  offsetY: number;
}

/**
 * Whether `to` frames the photo as `from` does, at another size: the live preview's 540x960 beside the
 * result's 1080x1920, whose framings differ by rounding only (up to 0.1 % in scale and a pixel of offset on
 * the 16 demo faces).
 */
export function sameFramingScaled(from: CanvasPlace, to: CanvasPlace): boolean {
  const k = to.width / from.width;
  return Math.abs(to.height / from.height / k - 1) < SCALED_SLACK &&
    Math.abs(to.scale / from.scale / k - 1) < SCALED_SLACK &&
    Math.abs(from.offsetX * k - to.offsetX) <= 1.5 && Math.abs(from.offsetY * k - to.offsetY) <= 1.5;
}

/** How far apart two framings' aspect and scale may be and still count as one framing (see sameFramingScaled). */
const SCALED_SLACK = 0.005;

/**
 * `m`, made for canvas `from`, on canvas `to`: each of `to`'s cells takes the mask where its centre lies on
 * the photo. With the same framing at another size the cells are the same stretch of the photo (see
 * personMask's step), so nothing is lost; the preview then needs no segmentation of its own and shows the
 * result's person, neighbours and islands left out alike.
 */
export function resampledMask(m: PersonMask, from: CanvasPlace, to: CanvasPlace): PersonMask {
  const step = atCanvasScale(4, to.width);
  const w = Math.ceil(to.width / step), h = Math.ceil(to.height / step);
  const data = new Float32Array(w * h);
  const k = from.scale / to.scale;
  // A `to` pixel x lies at photo pixel (x + 0.5 - offsetX) / scale - 0.5, and that at `from` pixel
  // (u + 0.5) * scale + offsetX - 0.5 (pixel centres, as personAt samples).
  const fx = (x: number) => (x + 0.5 - to.offsetX) * k + from.offsetX - 0.5;
  const fy = (y: number) => (y + 0.5 - to.offsetY) * k + from.offsetY - 0.5;
  // The passes' doubts go with their cells (the nearest cell's), so the preview judges them as the result did.
  const doubted = m.doubted && new Uint8Array(w * h);
  const cell = (v: number, n: number) => Math.min(n - 1, Math.max(0, Math.round((v + 0.5) / m.step - 0.5)));
  for (let j = 0; j < h; j++) {
    const y = fy((j + 0.5) * step - 0.5);
    for (let i = 0; i < w; i++) {
      const x = fx((i + 0.5) * step - 0.5);
      data[j * w + i] = personAt(m, x, y);
      if (doubted) doubted[j * w + i] = m.doubted![cell(y, m.h) * m.w + cell(x, m.w)];
    }
  }
  return doubted ? { w, h, step, data, doubted } : { w, h, step, data };
}
