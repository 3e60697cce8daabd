/**
 * Soft masks over a rectangular region of the canvas: polygon and ellipse
 * rasterisation, feathering (a three-pass box blur approximating a Gaussian)
 * and the small algebra the layers need. Masks only cover the face's region,
 * never the whole frame (whole-frame masks at 1080x1920 cost far too much).
 */

export type Point = [number, number];

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A mask with values 0..1 over `rect` (in canvas pixels). */
export interface Mask extends Rect {
  data: Float32Array;
}

export function createMask(rect: Rect): Mask {
  const x = Math.floor(rect.x), y = Math.floor(rect.y);
  const w = Math.max(1, Math.ceil(rect.w)), h = Math.max(1, Math.ceil(rect.h));
  return { x, y, w, h, data: new Float32Array(w * h) };
}

/** The bounding rectangle of points, padded, clipped to the canvas. */
export function boundsOf(
  pts: Point[],
  pad: number,
  canvasW: number,
  canvasH: number,
): Rect {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of pts) {
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  const rx = Math.max(0, Math.floor(x0 - pad));
  const ry = Math.max(0, Math.floor(y0 - pad));
  const rx1 = Math.min(canvasW, Math.ceil(x1 + pad));
  const ry1 = Math.min(canvasH, Math.ceil(y1 + pad));
  return { x: rx, y: ry, w: Math.max(1, rx1 - rx), h: Math.max(1, ry1 - ry) };
}

/**
 * Fills a polygon (even-odd, sampled at pixel centres with 4 sub-rows for soft
 * edges). mode "set" writes max(existing, v), "clear" multiplies by 1 - v.
 */
export function fillPolygon(
  m: Mask,
  pts: Point[],
  value = 1,
  mode: "set" | "clear" = "set",
): void {
  const n = pts.length;
  if (n < 3) return;
  const SUB = 4;
  const cover = new Float32Array(m.w);
  // The vertices copied into typed arrays once: the scanlines below read them many times, and arrays of
  // points vary in V8's element kind with their values (whole or fractional numbers), so destructuring them
  // there compiled to polymorphic loads.
  const px = Float64Array.from(pts, (p) => p[0]), py = Float64Array.from(pts, (p) => p[1]);
  let minY = Infinity, maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    if (py[i] < minY) minY = py[i];
    if (py[i] > maxY) maxY = py[i];
  }
  const rowStart = Math.max(0, Math.floor(minY) - m.y);
  const rowEnd = Math.min(m.h - 1, Math.ceil(maxY) - m.y);
  // A scanline's crossings (a few), sorted in place by insertion: `Array.prototype.sort` with a comparator per
  // scanline was a visible share of a full makeup look.
  const xs = new Float64Array(n);
  for (let row = rowStart; row <= rowEnd; row++) {
    cover.fill(0);
    let any = false;
    for (let s = 0; s < SUB; s++) {
      const sy = m.y + row + (s + 0.5) / SUB;
      let count = 0;
      for (let i = 0, j = n - 1; i < n; j = i++) {
        const xi = px[i], yi = py[i], xj = px[j], yj = py[j];
        if ((yi > sy) !== (yj > sy)) {
          const x = xi + ((sy - yi) / (yj - yi)) * (xj - xi);
          let k = count++;
          for (; k > 0 && xs[k - 1] > x; k--) xs[k] = xs[k - 1];
          xs[k] = x;
        }
      }
      if (count < 2) continue;
      for (let k = 0; k + 1 < count; k += 2) {
        const a = xs[k] - m.x - 0.5, b = xs[k + 1] - m.x - 0.5;
        const c0 = Math.max(0, Math.ceil(a)), c1 = Math.min(m.w - 1, Math.floor(b));
        for (let c = c0; c <= c1; c++) cover[c] += 1 / SUB;
        any = true;
      }
    }
    if (!any) continue;
    const off = row * m.w;
    for (let c = 0; c < m.w; c++) {
      const v = cover[c] * value;
      if (v <= 0) continue;
      if (mode === "set") {
        if (v > m.data[off + c]) m.data[off + c] = v;
      } else m.data[off + c] *= 1 - Math.min(1, v);
    }
  }
}

/** Adds a filled ellipse (max-combined), optionally rotated by `angle` radians. */
export function fillEllipse(
  m: Mask,
  cx: number,
  cy: number,
  rx: number,
  ry: number,
  angle = 0,
  value = 1,
): void {
  const r = Math.max(rx, ry);
  const cos = Math.cos(angle), sin = Math.sin(angle);
  const y0 = Math.max(0, Math.floor(cy - r) - m.y);
  const y1 = Math.min(m.h - 1, Math.ceil(cy + r) - m.y);
  const x0 = Math.max(0, Math.floor(cx - r) - m.x);
  const x1 = Math.min(m.w - 1, Math.ceil(cx + r) - m.x);
  for (let row = y0; row <= y1; row++) {
    const dy = m.y + row + 0.5 - cy;
    for (let col = x0; col <= x1; col++) {
      const dx = m.x + col + 0.5 - cx;
      const u = (dx * cos + dy * sin) / rx, v = (-dx * sin + dy * cos) / ry;
      if (u * u + v * v <= 1) {
        const i = row * m.w + col;
        if (value > m.data[i]) m.data[i] = value;
      }
    }
  }
}

/** A band of half-width `width(t)` along a polyline, as a polygon. */
export function bandPolygon(
  line: Point[],
  width: (t: number) => number,
): Point[] {
  const up: Point[] = [], down: Point[] = [];
  const n = line.length;
  for (let i = 0; i < n; i++) {
    const a = line[Math.max(0, i - 1)], b = line[Math.min(n - 1, i + 1)];
    const dx = b[0] - a[0], dy = b[1] - a[1];
    const len = Math.hypot(dx, dy) || 1;
    const nx = -dy / len, ny = dx / len;
    const w = width(n === 1 ? 0 : i / (n - 1));
    up.push([line[i][0] + nx * w, line[i][1] + ny * w]);
    down.push([line[i][0] - nx * w, line[i][1] - ny * w]);
  }
  return [...up, ...down.reverse()];
}

function boxSizes(sigma: number, n: number): number[] {
  const wIdeal = Math.sqrt((12 * sigma * sigma) / n + 1);
  let wl = Math.floor(wIdeal);
  if (wl % 2 === 0) wl--;
  const wu = wl + 2;
  const mIdeal = (12 * sigma * sigma - n * wl * wl - 4 * n * wl - 3 * n) /
    (-4 * wl - 4);
  const mm = Math.round(mIdeal);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(i < mm ? wl : wu);
  return out;
}

function boxBlurH(src: Float32Array, dst: Float32Array, w: number, h: number, r: number) {
  const iarr = 1 / (r + r + 1);
  for (let i = 0; i < h; i++) {
    let ti = i * w, li = ti, ri = ti + r;
    const fv = src[ti], lv = src[ti + w - 1];
    let val = (r + 1) * fv;
    for (let j = 0; j < r; j++) val += src[ti + Math.min(j, w - 1)];
    for (let j = 0; j <= r; j++) {
      val += src[Math.min(ri++, i * w + w - 1)] - fv;
      dst[ti++] = val * iarr;
    }
    for (let j = r + 1; j < w - r; j++) {
      val += src[ri++] - src[li++];
      dst[ti++] = val * iarr;
    }
    for (let j = Math.max(w - r, r + 1); j < w; j++) {
      val += lv - src[li++];
      dst[ti++] = val * iarr;
    }
  }
}

function boxBlurV(src: Float32Array, dst: Float32Array, w: number, h: number, r: number) {
  const iarr = 1 / (r + r + 1);
  for (let i = 0; i < w; i++) {
    let ti = i, li = ti, ri = ti + r * w;
    const fv = src[ti], lv = src[ti + w * (h - 1)];
    let val = (r + 1) * fv;
    for (let j = 0; j < r; j++) val += src[ti + Math.min(j, h - 1) * w];
    for (let j = 0; j <= r; j++) {
      val += src[Math.min(ri, i + (h - 1) * w)] - fv;
      ri += w;
      dst[ti] = val * iarr;
      ti += w;
    }
    for (let j = r + 1; j < h - r; j++) {
      val += src[ri] - src[li];
      ri += w;
      li += w;
      dst[ti] = val * iarr;
      ti += w;
    }
    for (let j = Math.max(h - r, r + 1); j < h; j++) {
      val += lv - src[li];
      li += w;
      dst[ti] = val * iarr;
      ti += w;
    }
  }
}

/** Gaussian-like blur of a w x h float plane, in place. */
export function blurPlane(data: Float32Array, w: number, h: number, sigma: number): void {
  if (sigma < 0.5) return;
  const tmp = new Float32Array(data.length);
  for (const size of boxSizes(sigma, 3)) {
    const r = Math.min((size - 1) >> 1, Math.max(0, Math.min(w, h) - 1) >> 1);
    if (r < 1) continue;
    boxBlurH(data, tmp, w, h, r);
    boxBlurV(tmp, data, w, h, r);
  }
}

/** Feathers a mask in place with a Gaussian of `sigma` pixels. */
export function feather(m: Mask, sigma: number): Mask {
  blurPlane(m.data, m.w, m.h, sigma);
  return m;
}

/** Value of a mask at canvas pixel (x, y); 0 outside. */
export function maskAt(m: Mask, x: number, y: number): number {
  const c = x - m.x, r = y - m.y;
  if (c < 0 || r < 0 || c >= m.w || r >= m.h) return 0;
  return m.data[r * m.w + c];
}

/** Pushes soft values up: v -> min(1, v * gain) (a cheap dilation after feathering). */
export function boost(m: Mask, gain: number): Mask {
  const d = m.data;
  for (let i = 0; i < d.length; i++) d[i] = Math.min(1, d[i] * gain);
  return m;
}

/** a *= (1 - b) where they overlap. */
export function subtract(a: Mask, b: Mask): Mask {
  const x0 = Math.max(a.x, b.x), y0 = Math.max(a.y, b.y);
  const x1 = Math.min(a.x + a.w, b.x + b.w), y1 = Math.min(a.y + a.h, b.y + b.h);
  for (let y = y0; y < y1; y++) {
    const ao = (y - a.y) * a.w - a.x, bo = (y - b.y) * b.w - b.x;
    for (let x = x0; x < x1; x++) a.data[ao + x] *= 1 - b.data[bo + x];
  }
  return a;
}

/** a *= b (0 outside b). */
export function multiply(a: Mask, b: Mask): Mask {
  for (let r = 0; r < a.h; r++) {
    const y = a.y + r;
    for (let c = 0; c < a.w; c++) {
      a.data[r * a.w + c] *= maskAt(b, a.x + c, y);
    }
  }
  return a;
}

/** The mask's summed coverage (a plain loop: `reduce` with a callback took a blush's band search 2-3 ms). */
export function coverage(m: Mask): number {
  let total = 0;
  for (let i = 0; i < m.data.length; i++) total += m.data[i];
  return total;
}

export function scale(m: Mask, k: number): Mask {
  for (let i = 0; i < m.data.length; i++) m.data[i] *= k;
  return m;
}

export function dist(a: Point, b: Point): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

export function mid(a: Point, b: Point, t = 0.5): Point {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}

/**
 * Bilinear sample at canvas pixel (x, y) of a mask stored on a 1/step grid
 * (cell centres at canvas (i + 0.5) * step); 0 outside.
 */
export function sampleGrid(m: Mask, step: number, x: number, y: number): number {
  const gx = (x + 0.5) / step - 0.5 - m.x, gy = (y + 0.5) / step - 0.5 - m.y;
  const i0 = Math.floor(gx), j0 = Math.floor(gy);
  if (i0 < -1 || j0 < -1 || i0 >= m.w || j0 >= m.h) return 0;
  const fx = gx - i0, fy = gy - j0;
  const d = m.data, w = m.w, h = m.h;
  const at = (i: number, j: number) => (i < 0 || j < 0 || i >= w || j >= h ? 0 : d[j * w + i]);
  return (at(i0, j0) * (1 - fx) + at(i0 + 1, j0) * fx) * (1 - fy) +
    (at(i0, j0 + 1) * (1 - fx) + at(i0 + 1, j0 + 1) * fx) * fy;
}

/** A box of grid nodes, its bounds inclusive. */
export interface NodeBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The box of the nodes of a w x h grid where `v` is over `above`; undefined when there are none. */
export function boxOver(v: Float32Array, w: number, h: number, above: number): NodeBox | undefined {
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0, k = 0; y < h; y++) {
    for (let x = 0; x < w; x++, k++) {
      if (!(v[k] > above)) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return x1 < 0 ? undefined : { x0, y0, x1, y1 };
}

/**
 * The max of `data` (w x h, values >= 0) over the (2r+1)^2 square about each node of `box`, indexed on the
 * window it reads: the box grown by r, clipped to the grid (node x, y at (y - wy0) * ww + x - wx0). The same
 * values as the running max over the whole grid, at the cost of the window only: callers that need it on a
 * few nodes (a patch of grey strands above the eyes, the forehead) paid for every node's.
 */
export function maxNear(
  data: Float32Array,
  w: number,
  h: number,
  r: number,
  box: NodeBox,
): { near: Float32Array; wx0: number; wy0: number; ww: number } {
  const wx0 = Math.max(0, box.x0 - r), wy0 = Math.max(0, box.y0 - r);
  const ww = Math.min(w, box.x1 + r + 1) - wx0, wh = Math.min(h, box.y1 + r + 1) - wy0;
  const win = new Float32Array(ww * wh);
  for (let y = 0; y < wh; y++) win.set(data.subarray((wy0 + y) * w + wx0, (wy0 + y) * w + wx0 + ww), y * ww);
  const near = slidingExtreme(slidingExtreme(win, ww, wh, r, true, true), ww, wh, r, false, true);
  return { near, wx0, wy0, ww };
}

/**
 * Running max (or min) over 2r+1 nodes along the rows (or columns) of a w x h
 * grid, in constant time per node (van Herk / Gil-Werman: prefix and suffix
 * extremes within blocks of 2r+1). Outside the grid counts as 0 (max) or 1 (min).
 */
export function slidingExtreme(
  src: Float32Array,
  w: number,
  h: number,
  r: number,
  rows: boolean,
  max: boolean,
): Float32Array {
  const n = rows ? w : h, lines = rows ? h : w, stride = rows ? 1 : w, lineStep = rows ? w : 1;
  const size = 2 * r + 1, len = n + 2 * r;
  const line = new Float32Array(len), pre = new Float32Array(len), suf = new Float32Array(len);
  const out = new Float32Array(src.length);
  // Min as max of the complement (1 - v), so one loop serves both.
  const flip = max ? 0 : 1, sign = max ? 1 : -1;
  for (let l = 0; l < lines; l++) {
    const base = l * lineStep;
    line.fill(0);
    for (let t = 0; t < n; t++) line[t + r] = flip + sign * src[base + t * stride];
    for (let t = 0; t < len; t++) {
      const v = line[t];
      pre[t] = t % size === 0 || v > pre[t - 1] ? v : pre[t - 1];
    }
    for (let t = len - 1; t >= 0; t--) {
      const v = line[t];
      suf[t] = t === len - 1 || (t + 1) % size === 0 || v > suf[t + 1] ? v : suf[t + 1];
    }
    // The window [t, t + 2r] of the padded line is node t's.
    for (let t = 0; t < n; t++) {
      const a = suf[t], b = pre[t + size - 1];
      out[base + t * stride] = flip + sign * (a > b ? a : b);
    }
  }
  return out;
}

/**
 * Labels (1..count) the 8-connected patches of a `w` x `h` grid's cells where `on` is set (non-zero) that
 * hold at least `min` cells; every other cell is 0.
 */
export function labelPatches(
  on: ArrayLike<number>,
  w: number,
  h: number,
  min: number,
): { label: Int32Array; count: number } {
  const label = new Int32Array(w * h);
  const stack: number[] = [], patch: number[] = [];
  let count = 0;
  for (let k0 = 0; k0 < w * h; k0++) {
    if (!on[k0] || label[k0] !== 0) continue;
    label[k0] = -1;
    stack.push(k0);
    patch.length = 0;
    while (stack.length > 0) {
      const k = stack.pop()!;
      patch.push(k);
      const x = k % w, y = (k - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const nb = yy * w + xx;
          if (on[nb] && label[nb] === 0) {
            label[nb] = -1;
            stack.push(nb);
          }
        }
      }
    }
    const v = patch.length >= min ? ++count : 0;
    for (const k of patch) label[k] = v;
  }
  return { label, count };
}

/**
 * Box mean of `src` (w x h) with radius r, clamped at the borders, into `out` (which may be `src`; `tmp` is
 * scratch). Two O(n) passes; the clamping is done only near the borders (the inner loops have no bounds checks).
 */
export function boxMean(
  src: Float32Array,
  w: number,
  h: number,
  r: number,
  out: Float32Array,
  tmp: Float32Array,
): void {
  const cl = (v: number, n: number) => (v < 0 ? 0 : v > n - 1 ? n - 1 : v);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    let s = 0;
    for (let x = -r; x <= r; x++) s += src[o + cl(x, w)];
    let x = 0;
    for (; x < w && (x < r || x > w - r - 2); x++) {
      tmp[o + x] = s;
      s += src[o + cl(x + r + 1, w)] - src[o + cl(x - r, w)];
    }
    for (; x < w - r - 1; x++) {
      tmp[o + x] = s;
      s += src[o + x + r + 1] - src[o + x - r];
    }
    for (; x < w; x++) {
      tmp[o + x] = s;
      s += src[o + cl(x + r + 1, w)] - src[o + cl(x - r, w)];
    }
  }
  const inv = 1 / ((2 * r + 1) * (2 * r + 1));
  // Columns in rows: each pass walks rows, keeping one running sum per column.
  const sum = new Float64Array(w);
  for (let y = -r; y <= r; y++) {
    const o = cl(y, h) * w;
    for (let x = 0; x < w; x++) sum[x] += tmp[o + x];
  }
  for (let y = 0; y < h; y++) {
    const o = y * w, add = cl(y + r + 1, h) * w, sub = cl(y - r, h) * w;
    for (let x = 0; x < w; x++) {
      out[o + x] = sum[x] * inv;
      sum[x] += tmp[add + x] - tmp[sub + x];
    }
  }
}
