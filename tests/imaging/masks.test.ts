import assert from "node:assert/strict";
import {
  boxOver,
  coverage,
  createMask,
  fillPolygon,
  type Mask,
  maxNear,
  type Point,
} from "../../server/imaging/local/masks.ts";
import { maskRow } from "../../server/imaging/local/blend.ts";

/**
 * The share of a pixel's four sub-scanlines on which its centre lies inside `pts` by the even-odd rule,
 * counted crossing by crossing (no sorting): what fillPolygon must give every pixel. NaN where a crossing
 * falls on the centre itself (either answer is right there).
 */
function evenOdd(pts: Point[], x: number, y: number): number {
  let inside = 0;
  for (let s = 0; s < 4; s++) {
    const sy = y + (s + 0.5) / 4;
    let left = 0;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const [xi, yi] = pts[i], [xj, yj] = pts[j];
      if ((yi > sy) === (yj > sy)) continue;
      const cross = xi + ((sy - yi) / (yj - yi)) * (xj - xi);
      if (Math.abs(cross - (x + 0.5)) < 1e-9) return NaN;
      if (cross < x + 0.5) left++;
    }
    inside += left % 2;
  }
  return inside / 4;
}

/** A comb: `teeth` spikes down from a bar, so every scanline through them crosses the outline 2 x teeth times. */
function comb(teeth: number, x0: number, y0: number): Point[] {
  const pts: Point[] = [[x0, y0], [x0 + 8.3 * teeth, y0 + 0.6]];
  for (let k = teeth - 1; k >= 0; k--) {
    pts.push([x0 + 8.3 * k + 6.1, y0 + 30.7 - (k % 3) * 4.2], [
      x0 + 8.3 * k + 2.2,
      y0 + 31.4 - (k % 2) * 5.5,
    ]);
  }
  return pts;
}

Deno.test("fillPolygon covers exactly the even-odd inside of a polygon with many crossings per scanline", () => {
  // Whole and fractional vertices mixed (arrays of points then differ in V8's element kind), a self-crossing
  // bow tie, and a comb whose crossings come in no order along the outline.
  const shapes: [string, Point[]][] = [
    ["comb", comb(9, 4.4, 3.2)],
    ["whole-number comb", comb(6, 10, 5).map(([x, y]) => [Math.round(x), Math.round(y)] as Point)],
    ["bow tie", [[5.5, 5.25], [60.75, 40.5], [60.25, 5.75], [5.25, 40.25]]],
  ];
  for (const [name, pts] of shapes) {
    const m = createMask({ x: 0, y: 0, w: 90, h: 50 });
    fillPolygon(m, pts);
    let wrong = 0, covered = 0, onEdge = 0;
    for (let r = 0; r < m.h; r++) {
      for (let c = 0; c < m.w; c++) {
        const want = evenOdd(pts, c, r);
        if (Number.isNaN(want)) {
          onEdge++;
          continue;
        }
        covered += want;
        if (Math.abs(m.data[r * m.w + c] - want) > 1e-6) wrong++;
      }
    }
    assert.ok(covered > 200, `${name}: the shape covers ${covered} px`);
    assert.equal(wrong, 0, `${name}: ${wrong} pixels differ from the even-odd rule`);
    assert.ok(onEdge < 20, `${name}: ${onEdge} pixels with a crossing on their centre`);
    if (!onEdge) {
      assert.ok(
        Math.abs(coverage(m) - covered) < 1e-3,
        `${name}: coverage ${coverage(m)} against ${covered}`,
      );
    }
  }
});

Deno.test("fillPolygon in clear mode removes what the polygon covers and keeps the rest", () => {
  const m = createMask({ x: 10, y: 10, w: 40, h: 40 });
  m.data.fill(1);
  // Pixel centres 20.5-29.5 across, rows 20-29 whole: 100 pixels.
  const square: Point[] = [[20.2, 20], [30.2, 20], [30.2, 30], [20.2, 30]];
  fillPolygon(m, square, 1, "clear");
  assert.equal(coverage(m), 40 * 40 - 10 * 10);
  assert.equal(m.data[(25 - 10) * 40 + (25 - 10)], 0);
  assert.equal(m.data[0], 1);
});

Deno.test("maxNear: a box's nodes get the max over their (2r+1)^2 square, as a plain scan of the grid gives", () => {
  // A grid of random values with a few zeros, boxes in the middle, at the edges and one node wide.
  let seed = 7;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const w = 53, h = 41;
  const data = new Float32Array(w * h).map(() => (rand() < 0.2 ? 0 : rand()));
  const boxes = [
    { x0: 10, y0: 8, x1: 30, y1: 20 },
    { x0: 0, y0: 0, x1: 4, y1: 40 },
    { x0: 50, y0: 35, x1: 52, y1: 40 },
    { x0: 25, y0: 25, x1: 25, y1: 25 },
  ];
  for (const r of [1, 3, 6]) {
    for (const box of boxes) {
      const { near, wx0, wy0, ww } = maxNear(data, w, h, r, box);
      for (let y = box.y0; y <= box.y1; y++) {
        for (let x = box.x0; x <= box.x1; x++) {
          let want = 0;
          for (let v = Math.max(0, y - r); v <= Math.min(h - 1, y + r); v++) {
            for (let u = Math.max(0, x - r); u <= Math.min(w - 1, x + r); u++) {
              want = Math.max(want, data[v * w + u]);
            }
          }
          assert.equal(near[(y - wy0) * ww + x - wx0], want, `r ${r}, node ${x},${y}`);
        }
      }
    }
  }
  // The box of the nodes over a value; none, none.
  const v = new Float32Array(w * h);
  assert.equal(boxOver(v, w, h, 0.05), undefined);
  v[3 * w + 7] = 0.5, v[9 * w + 2] = 0.06, v[20 * w + 40] = 0.04;
  assert.deepEqual(boxOver(v, w, h, 0.05), { x0: 2, y0: 3, x1: 7, y1: 9 });
});

/** maskRow's bilinear sample of a grid mask at canvas pixel (x, y), written out from its definition. */
function bilinearAt(m: Mask, step: number, x: number, y: number): number {
  const at = (i: number, j: number) => (i >= 0 && i < m.w && j >= 0 && j < m.h ? m.data[j * m.w + i] : 0);
  const gx = (x + 0.5) / step - 0.5 - m.x, gy = (y + 0.5) / step - 0.5 - m.y;
  const i = Math.floor(gx), j = Math.floor(gy), fx = gx - i, fy = gy - j;
  // A row above or below the grid takes the nearest row's weight away (0 outside), as maskRow does.
  const top = j >= 0 ? 1 - fy : 0, bottom = j + 1 < m.h ? fy : 0;
  const row = (ii: number) => at(ii, Math.max(0, j)) * top + at(ii, Math.min(m.h - 1, j + 1)) * bottom;
  return row(i) * (1 - fx) + row(i + 1) * fx;
}

Deno.test("maskRow samples each of several masks read row by row in turn as its own (column tables kept per mask)", () => {
  // Three masks at the base makeup's 1/4 scale and one at 1/3, on different columns, read in turn row by row:
  // maskRow keeps the last two column tables, so a third mask evicts one and every row must still be right.
  const masks: [Mask, number][] = [
    [createMask({ x: 10, y: 5, w: 30, h: 20 }), 4],
    [createMask({ x: 14, y: 7, w: 22, h: 16 }), 4],
    [createMask({ x: 3, y: 2, w: 40, h: 30 }), 4],
    [createMask({ x: 20, y: 9, w: 25, h: 25 }), 3],
  ];
  let seed = 7;
  for (const [m] of masks) {
    for (let k = 0; k < m.data.length; k++) {
      m.data[k] = (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    }
  }
  const x0 = 30, x1 = 190, row = new Float32Array(x1 - x0);
  let rows = 0;
  for (let y = 0; y < 140; y++) {
    for (const [m, step] of masks) {
      if (!maskRow(m, step, y, x0, x1, row)) continue;
      rows++;
      for (let x = x0; x < x1; x++) {
        const want = bilinearAt(m, step, x, y);
        assert.ok(
          Math.abs(row[x - x0] - want) < 1e-6,
          `mask at ${m.x},${m.y} step ${step}: (${x}, ${y}) ${row[x - x0]} != ${want}`,
        );
      }
    }
  }
  assert.ok(rows > 300, `${rows} rows sampled`);
});
