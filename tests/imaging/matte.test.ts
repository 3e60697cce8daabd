/**
 * Matting on synthetic images with a known person region: no halo of the old
 * background around the person, only the person whose face is chosen, no
 * detached islands, the person's own pixels untouched.
 */
import assert from "node:assert/strict";
import type { Canvas } from "../../server/imaging/local/blend.ts";
import { deltaE, type Lab, srgbToLab } from "../../server/imaging/local/color.ts";
import {
  composeRefined,
  dropAlphaIslands,
  planMatte,
  refineMatte,
} from "../../server/imaging/local/matte-refine.ts";
import {
  cellColours,
  dropForeignPatches,
  type Head,
  isolatePerson,
  type PersonMask,
} from "../../server/imaging/local/person-mask.ts";
import type { FaceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { personBalance, relightGains } from "../../server/imaging/local/scene.ts";
import type { Point } from "../../server/imaging/local/masks.ts";

const W = 540, H = 960;

/**
 * Inside the person: a head (ellipse) on a torso reaching the bottom edge, with a wavy hair
 * outline; centred on column `cx`.
 */
function insidePerson(x: number, y: number, cx = 270): boolean {
  const hx = (x - cx) / 120, hy = (y - 330) / (155 + 8 * Math.sin(x / 6));
  if (hx * hx + hy * hy <= 1) return true;
  if (Math.abs(x - cx) < 62 && y > 330 && y < 600) return true; // the neck
  const shoulder = 560 + 40 * Math.abs((x - cx) / 200) ** 2;
  return y >= shoulder && Math.abs(x - cx) <= 210 + 20 * Math.sin(y / 30);
}

/** Signed distance proxy: the known truth, 4x supersampled for antialiased edges. */
function truthAlpha(): Float32Array {
  const a = new Float32Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let n = 0;
      for (let s = 0; s < 4; s++) if (insidePerson(x + (s & 1) * 0.5, y + (s >> 1) * 0.5)) n++;
      a[y * W + x] = n / 4;
    }
  }
  return a;
}

let seed = 7;
const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5);

/** The old background's colour at (x, y): a saturated blue wall unless `wall` says otherwise. */
type Wall = (x: number, y: number) => [number, number, number];

/** The photo: a brown-haired, skin-toned person in front of a saturated blue wall, with grain. */
function photo(truth: Float32Array, island?: [number, number, number], wall?: Wall): Canvas {
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = y * W + x, a = truth[k];
      const hair = y < 300 || (y < 480 && Math.abs(x - 270) > 95);
      const fg = y >= 560 ? [60, 60, 70] : hair ? [70, 45, 30] : [205, 160, 135];
      let bg = wall?.(x, y) ?? [40, 95, 205];
      if (island && (x - island[0]) ** 2 + (y - island[1]) ** 2 < island[2] ** 2) bg = [210, 170, 150];
      for (let c = 0; c < 3; c++) {
        data[k * 3 + c] = Math.max(0, Math.min(255, Math.round(fg[c] * a + bg[c] * (1 - a) + noise() * 10)));
      }
    }
  }
  return { data, width: W, height: H };
}

/**
 * What the selfie model gives: the truth seen at low resolution (blurred,
 * a few pixels too wide), on a grid of 4 px; plus optional false islands.
 */
function coarseMatte(truth: Float32Array, islands: [number, number, number][] = [], step = 4): PersonMask {
  const w = Math.ceil(W / step), h = Math.ceil(H / step);
  const data = new Float32Array(w * h);
  const R = 6;
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const cx = i * step + 2, cy = j * step + 2;
      let s = 0, n = 0;
      for (let dy = -R; dy <= R; dy += 2) {
        for (let dx = -R; dx <= R; dx += 2) {
          const x = Math.min(W - 1, Math.max(0, cx + dx)), y = Math.min(H - 1, Math.max(0, cy + dy));
          s += truth[y * W + x];
          n++;
        }
      }
      // Too wide by ~3 px, like the real model around hair.
      let v = Math.min(1, (s / n) * 1.35);
      for (const [ix, iy, ir] of islands) if ((cx - ix) ** 2 + (cy - iy) ** 2 < ir * ir) v = 0.95;
      data[j * w + i] = v;
    }
  }
  return { w, h, step, data };
}

function solid(rgb: [number, number, number]): Uint8Array {
  const out = new Uint8Array(W * H * 3);
  for (let k = 0; k < W * H; k++) out.set(rgb, k * 3);
  return out;
}

function meanLab(img: Canvas, pick: (x: number, y: number) => boolean): { lab: Lab; n: number } {
  let r = 0, g = 0, b = 0, n = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (!pick(x, y)) continue;
      const i = (y * W + x) * 3;
      r += img.data[i];
      g += img.data[i + 1];
      b += img.data[i + 2];
      n++;
    }
  }
  return { lab: srgbToLab(Math.round(r / n), Math.round(g / n), Math.round(b / n)), n };
}

/** Distance (in px, up to `max`) from (x, y) to the nearest person pixel of the truth. */
function distToPerson(truth: Float32Array, x: number, y: number, max: number): number {
  let best = Infinity;
  for (let dy = -max; dy <= max; dy++) {
    for (let dx = -max; dx <= max; dx++) {
      const xx = x + dx, yy = y + dy;
      if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
      if (truth[yy * W + xx] >= 0.5) best = Math.min(best, Math.hypot(dx, dy));
    }
  }
  return best;
}

const FACE: [number, number] = [270, 360];
const NEW_BG: [number, number, number][] = [[20, 60, 30], [15, 15, 20], [230, 120, 40]];

Deno.test("matte: the 6-px band outside the person matches the new backdrop (no halo), on dark and coloured backdrops", () => {
  const truth = truthAlpha();
  const band: boolean[] = new Array(W * H).fill(false);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (truth[y * W + x] > 0) continue;
      const dd = distToPerson(truth, x, y, 7);
      band[y * W + x] = dd >= 1 && dd <= 6;
    }
  }
  for (const rgb of NEW_BG) {
    const img = photo(truth);
    const before = { data: img.data.slice(), width: W, height: H };
    const matte = refineMatte(img, coarseMatte(truth), FACE);
    composeRefined(img, matte, solid(rgb));
    const target = srgbToLab(...rgb);
    const bandLab = meanLab(img, (x, y) => band[y * W + x]);
    assert.ok(bandLab.n > 2000, `band of ${bandLab.n} px`);
    const halo = deltaE(bandLab.lab, target);
    console.log(`backdrop ${rgb}: 6-px band ΔE ${halo.toFixed(2)} (${bandLab.n} px)`);
    assert.ok(halo <= 6, `halo ΔE ${halo.toFixed(2)} against ${rgb}`);
    // The person's own pixels (2 px in from the edge) are kept.
    let moved = 0, inside = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const k = y * W + x;
        if (truth[k] < 1 || distToBackground(truth, x, y) < 3) continue;
        inside++;
        const i = k * 3;
        const d = deltaE(
          srgbToLab(img.data[i], img.data[i + 1], img.data[i + 2]),
          srgbToLab(before.data[i], before.data[i + 1], before.data[i + 2]),
        );
        if (d > 3) moved++;
      }
    }
    assert.ok(moved / inside < 0.01, `person pixels changed: ${(100 * moved / inside).toFixed(2)}%`);
  }
});

/**
 * Horizontal blinds: teal slats with bright gaps (16 px), the old background's local mean a
 * colour no pixel has.
 */
const blinds: Wall = (_x, y) => (y % 16 < 10 ? [40, 150, 160] : [230, 232, 235]);

/** Distance in (a*, b*) of `c` from the segment between `p` and `q` (a blend of the two has no other hue). */
function offSegment(c: Lab, p: Lab, q: Lab): number {
  const ux = q[1] - p[1], uy = q[2] - p[2], l2 = ux * ux + uy * uy;
  const t = Math.min(1, Math.max(0, l2 > 0 ? ((c[1] - p[1]) * ux + (c[2] - p[2]) * uy) / l2 : 0));
  return Math.hypot(c[1] - p[1] - t * ux, c[2] - p[2] - t * uy);
}

Deno.test("matte: no fringe of a patterned old background along the hair edge, the band outside matches the backdrop", () => {
  const truth = truthAlpha();
  const hairLab = srgbToLab(70, 45, 30);
  // The hair's outline: 3 px either side of the true edge, above the neck.
  const edge: boolean[] = new Array(W * H).fill(false), band: boolean[] = new Array(W * H).fill(false);
  for (let y = 0; y < 470; y++) {
    for (let x = 0; x < W; x++) {
      const k = y * W + x;
      if (truth[k] > 0) edge[k] = distToBackground(truth, x, y) <= 3;
      else {
        const dd = distToPerson(truth, x, y, 7);
        edge[k] = dd <= 3;
        band[k] = dd >= 1 && dd <= 6;
      }
    }
  }
  for (const rgb of [[235, 140, 60], [20, 25, 60]] as [number, number, number][]) {
    const img = photo(truth, undefined, blinds);
    const person = coarseMatte(truth);
    const balance = personBalance(img, person);
    const matte = refineMatte(img, person, FACE);
    const bg = solid(rgb);
    composeRefined(img, matte, bg, relightGains(balance, bg, img));
    const target = srgbToLab(...rgb);
    let n = 0, off = 0;
    for (let k = 0; k < W * H; k++) {
      if (!edge[k]) continue;
      const c = srgbToLab(img.data[k * 3], img.data[k * 3 + 1], img.data[k * 3 + 2]);
      n++;
      if (offSegment(c, hairLab, target) > 10) off++;
    }
    const halo = deltaE(meanLab(img, (x, y) => band[y * W + x]).lab, target);
    console.log(
      `blinds -> ${rgb}: ${
        (100 * off / n).toFixed(2)
      }% of ${n} hair-edge px off the hair-backdrop blend by ΔE(a*b*) > 10, 6-px band ΔE ${halo.toFixed(2)}`,
    );
    assert.ok(off / n <= 0.01, `fringe on ${(100 * off / n).toFixed(2)}% of the hair edge against ${rgb}`);
    assert.ok(halo <= 6, `halo ΔE ${halo.toFixed(2)} against ${rgb}`);
  }
});

function distToBackground(truth: Float32Array, x: number, y: number): number {
  for (let r = 1; r <= 3; r++) {
    for (let dy = -r; dy <= r; dy++) {
      for (let dx = -r; dx <= r; dx++) {
        const xx = x + dx, yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
        if (truth[yy * W + xx] < 1) return r;
      }
    }
  }
  return 4;
}

/** The person's pixels 3 px or more inside its edge (`person`), and how many of them `alpha` keeps above 0.9. */
function personKept(truth: Float32Array, alpha: Float32Array): { kept: number; person: number } {
  let kept = 0, person = 0;
  for (let k = 0; k < W * H; k++) {
    if (truth[k] < 1 || distToBackground(truth, k % W, Math.floor(k / W)) < 3) continue;
    person++;
    if (alpha[k] > 0.9) kept++;
  }
  return { kept, person };
}

Deno.test("matte: a detached island and a neighbour at the frame edge are dropped; only the chosen person stays", () => {
  const truth = truthAlpha();
  // A skin-coloured fragment in the old background that the coarse matte took for person,
  // and a neighbour's shoulder at the left edge.
  const island: [number, number, number] = [470, 150, 30];
  const neighbour: [number, number, number] = [0, 700, 60];
  const img = photo(truth, island);
  const matte = refineMatte(img, coarseMatte(truth, [island, neighbour]), FACE);
  composeRefined(img, matte, solid([20, 60, 30]));
  const target = srgbToLab(20, 60, 30);
  for (const [cx, cy, r] of [island, neighbour]) {
    const m = meanLab(img, (x, y) => (x - cx) ** 2 + (y - cy) ** 2 < (r - 4) ** 2);
    const d = deltaE(m.lab, target);
    assert.ok(d < 3, `island at ${cx},${cy} still shows: ΔE ${d.toFixed(2)}`);
  }
  let kept = 0, person = 0;
  for (let k = 0; k < W * H; k++) {
    if (truth[k] < 1) continue;
    person++;
    if (matte.alpha[k] > 0.9) kept++;
  }
  assert.ok(kept / person > 0.98, `person kept ${(100 * kept / person).toFixed(1)}%`);
});

Deno.test("matte: specks apart from the refined outline are dropped with their faint rim; strands joined to it stay", () => {
  const truth = truthAlpha();
  const plan = planMatte({ width: W, height: H }, coarseMatte(truth), FACE);
  const alpha = truth.slice();
  const disc = (cx: number, cy: number, r: number, v: number) => {
    for (let y = cy - r; y <= cy + r; y++) {
      for (let x = cx - r; x <= cx + r; x++) if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) alpha[y * W + x] = v;
    }
  };
  // Beside the head (its outline at x 390 on row 330): a speck joined to the outline only by a faint bridge,
  // a faint smudge on the other side joined to nothing, and a strand of alpha 0.6 grown out of the outline.
  for (let x = 388; x <= 396; x++) alpha[330 * W + x] = 0.3;
  disc(400, 330, 4, 1);
  disc(141, 300, 3, 0.2);
  for (let x = 360; x <= 400; x++) alpha[250 * W + x] = Math.max(alpha[250 * W + x], 0.6);
  const before = alpha.slice();
  dropAlphaIslands(alpha, plan);
  const max = (cx: number, cy: number, r: number) => {
    let m = 0;
    for (let y = cy - r; y <= cy + r; y++) {
      for (let x = cx - r; x <= cx + r; x++) m = Math.max(m, alpha[y * W + x]);
    }
    return m;
  };
  assert.equal(max(400, 330, 4), 0, "the speck stays");
  assert.equal(max(141, 300, 3), 0, "the smudge stays");
  // The bridge's end within ISLAND_RIM (2 px) of the speck goes; the part nearer the outline is the outline's.
  assert.deepEqual([alpha[330 * W + 394], alpha[330 * W + 395]], [0, 0], "the speck's faint rim stays");
  for (let x = 360; x <= 400; x++) {
    assert.equal(alpha[250 * W + x], before[250 * W + x], `the strand changed at ${x}`);
  }
  // Nothing else changed: every changed pixel is the speck's, its rim's or the smudge's.
  for (let k = 0; k < W * H; k++) {
    if (alpha[k] === before[k]) continue;
    const x = k % W, y = (k - x) / W;
    const near = Math.hypot(x - 400, y - 330) <= 7 || Math.hypot(x - 141, y - 300) <= 3;
    assert.ok(near, `changed at ${x},${y}: ${before[k]} -> ${alpha[k]}`);
  }
});

Deno.test("matte: a block the refinement split off the person is dropped with its soft rim, however the grid matte took it; a large piece apart stays", () => {
  // The grid matte joins two blocks of old background to the head through unsure bridges (as the frame
  // beside sample6@1081's hair at the wide crop): A (48 x 48 px, beside the head's right edge) and B
  // (120 x 120 px, at its left). The refinement split both off (nothing on the bridges); A has a 3-px soft
  // rim. A is larger than the specks dropPieces drops, so it stayed before (6,104 px of wood on the real
  // crop); now it goes, being under 2 % of the person; B, over it (a hand beyond a gap), stays.
  const truth = truthAlpha();
  const coarse = coarseMatte(truth);
  const paint = (x0: number, x1: number, y0: number, y1: number, v: number) => {
    for (let y = y0; y < y1; y += coarse.step) {
      for (let x = x0; x < x1; x += coarse.step) {
        const k = Math.floor(y / coarse.step) * coarse.w + Math.floor(x / coarse.step);
        coarse.data[k] = Math.max(coarse.data[k], v);
      }
    }
  };
  paint(440, 488, 300, 348, 1);
  paint(380, 440, 320, 328, 0.5);
  paint(20, 140, 280, 400, 1);
  paint(140, 156, 330, 338, 0.5);
  const plan = planMatte({ width: W, height: H }, coarse, FACE);
  const alpha = truth.slice();
  for (let y = 297; y < 351; y++) {
    for (let x = 437; x < 491; x++) {
      const out = Math.max(440 - x, x - 487, 300 - y, y - 347, 0);
      alpha[y * W + x] = out === 0 ? 1 : [1, 0.4, 0.25, 0.1][out];
    }
  }
  for (let y = 280; y < 400; y++) alpha.fill(1, y * W + 20, y * W + 140);
  const before = alpha.slice();
  let person = 0;
  for (let k = 0; k < W * H; k++) if (truth[k] >= 0.5) person++;
  assert.ok(48 * 48 < 0.02 * person && 120 * 120 > 0.02 * person, `the person ${person} px`);
  dropAlphaIslands(alpha, plan, FACE);
  for (let k = 0; k < W * H; k++) {
    const x = k % W, y = (k - x) / W, inA = x >= 437 && x < 491 && y >= 297 && y < 351;
    assert.equal(alpha[k], inA ? 0 : before[k], `${x},${y}: ${before[k]} -> ${alpha[k]}`);
  }
});

// --- Two people: only the chosen one stays -------------------------------------------------

/** A second person at the right edge: head centred at (hx, 300), body from y 520 at x >= 430. */
function insideNeighbour(x: number, y: number, hx: number): boolean {
  const u = (x - hx) / 105, v = (y - 300) / 135;
  return u * u + v * v <= 1 || (y >= 520 && x >= 430) || (Math.abs(x - hx) < 45 && y > 300 && y < 540);
}

/**
 * Main person in front of the neighbour, both antialiased; `owner` 1 main, 2 neighbour, 0 wall.
 * `grain`: the people's hair and skin vary by up to +-`grain` levels (clothes and the wall by
 * +-5), as strands and skin do in photos.
 */
function twoPeople(
  hx: number,
  grain = 5,
  hair: { main: number[]; other: number[] } = { main: [70, 45, 30], other: [200, 160, 95] },
): { img: Canvas; owner: Uint8Array; union: Float32Array } {
  const owner = new Uint8Array(W * H), union = new Float32Array(W * H);
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = y * W + x;
      const main = insidePerson(x, y), other = insideNeighbour(x, y, hx);
      owner[k] = main ? 1 : other ? 2 : 0;
      union[k] = main || other ? 1 : 0;
      const hairB = (x - hx) ** 2 / 105 ** 2 + (y - 300) ** 2 / 135 ** 2 > 0.55 && y < 420;
      const hairA = y < 300 || (y < 480 && Math.abs(x - 270) > 95);
      const c = owner[k] === 1
        ? (y >= 560 ? [60, 60, 70] : hairA ? hair.main : [205, 160, 135])
        : owner[k] === 2
        ? (y >= 520 ? [40, 125, 60] : hairB ? hair.other : [225, 180, 150])
        : [40, 95, 205];
      const clothes = (owner[k] === 1 && y >= 560) || (owner[k] === 2 && y >= 520);
      const amp = owner[k] === 0 || clothes ? 10 : 2 * grain;
      for (let ch = 0; ch < 3; ch++) {
        data[k * 3 + ch] = Math.max(0, Math.min(255, Math.round(c[ch] + noise() * amp)));
      }
    }
  }
  return { img: { data, width: W, height: H }, owner, union };
}

/** Face geometry of the main person (only what the isolation reads: chin, centre, sizes). */
function mainFace(cx = 270): FaceGeometry {
  const pts: Point[] = Array.from({ length: 478 }, (): Point => [cx, 360]);
  pts[152] = [cx, 470];
  return { pts, fw: 200, fh: 240, up: [0, -1], eyeCenter: [cx, 320], center: [cx, 360] };
}

function isolateAndCompose(hx: number, neighbours: Head[]) {
  const { img, owner, union } = twoPeople(hx);
  const grid = coarseMatte(union);
  isolatePerson(grid, mainFace(), neighbours, () => cellColours(img, grid));
  const matte = refineMatte(img, grid, FACE);
  let leak = 0, theirs = 0, kept = 0, mine = 0;
  const own = Float32Array.from(owner, (o) => (o === 1 ? 1 : 0));
  for (let k = 0; k < W * H; k++) {
    if (owner[k] === 2) {
      theirs++;
      if (matte.alpha[k] > 0.5) leak++;
    } else if (owner[k] === 1 && distToBackground(own, k % W, Math.floor(k / W)) >= 3) {
      mine++;
      if (matte.alpha[k] > 0.9) kept++;
    }
  }
  return { leak: leak / theirs, kept: kept / mine };
}

Deno.test("matte: a detected neighbour touching the person (face, hair, clothes) is removed, the person kept", () => {
  // The neighbour's face is cut by the frame's right edge; the detector's box gives its centre.
  const r = isolateAndCompose(500, [{ cx: 500, cy: 300, fw: 190 }]);
  console.log(
    `detected neighbour: ${(100 * r.leak).toFixed(2)}% of their pixels kept, ${
      (100 * r.kept).toFixed(2)
    }% of the person`,
  );
  assert.ok(r.leak <= 0.03, `neighbour kept: ${(100 * r.leak).toFixed(2)}%`);
  assert.ok(r.kept >= 0.97, `person kept: ${(100 * r.kept).toFixed(2)}%`);
});

Deno.test("matte: a neighbour whose face is not detected, joined to the person only below the shoulders, is removed", () => {
  // Head apart from the chosen head (a gap of wall), bodies merged: the hair seen beside the head.
  const r = isolateAndCompose(520, []);
  console.log(
    `undetected neighbour: ${(100 * r.leak).toFixed(2)}% of their pixels kept, ${
      (100 * r.kept).toFixed(2)
    }% of the person`,
  );
  assert.ok(r.leak <= 0.05, `neighbour kept: ${(100 * r.leak).toFixed(2)}%`);
  assert.ok(r.kept >= 0.97, `person kept: ${(100 * r.kept).toFixed(2)}%`);
});

Deno.test("person mask: a neighbour whose head overlaps the person's and whose face is cut by the frame (not detected) is dropped", () => {
  // Blonde hair and a face at the right edge, behind the chosen person's brown hair: one region
  // with it at every erosion; only the colour edge between the two heads tells them apart. The
  // grid has 2-px cells: the face is then as many cells wide as a framed portrait's (~100), and
  // the grain gives a step between cells the cost measured in the test portraits' hair and skin
  // (0.5-2.6 beyond length).
  const { img, owner, union } = twoPeople(470, 12);
  const grid = coarseMatte(union, [], 2);
  isolatePerson(grid, mainFace(), [], () => cellColours(img, grid));
  let theirs = 0, leak = 0, mine = 0, kept = 0;
  const own = Float32Array.from(owner, (o) => (o === 1 ? 1 : 0));
  for (let j = 0; j < grid.h; j++) {
    for (let i = 0; i < grid.w; i++) {
      const x = i * 2 + 1, y = j * 2 + 1, o = owner[y * W + x];
      if (o === 2 && distToPerson(own, x, y, 6) > 6) {
        theirs++;
        if (grid.data[j * grid.w + i] >= 0.5) leak++;
      } else if (o === 1 && distToBackground(own, x, y) >= 3) {
        mine++;
        if (grid.data[j * grid.w + i] >= 0.5) kept++;
      }
    }
  }
  console.log(
    `overlapping undetected neighbour: ${(100 * leak / theirs).toFixed(2)}% of their cells kept, ${
      (100 * kept / mine).toFixed(2)
    }% of the person's`,
  );
  assert.ok(leak / theirs <= 0.05, `neighbour kept: ${(100 * leak / theirs).toFixed(2)}%`);
  // ~2.8% go: the strip of the body's edge in front of the neighbour's body, nearer their axis.
  assert.ok(kept / mine >= 0.96, `person kept: ${(100 * kept / mine).toFixed(2)}%`);
});

Deno.test("person mask: a detected neighbour's dark hair along the chosen person's blonde head leaves no fringe", () => {
  // The split favours the chosen person and a path through the neighbour's grainy dark hair
  // gathers cost: before, the strip of that hair next to the blonde head was kept (a ragged dark
  // fringe along the hair in the renders).
  const { img, owner, union } = twoPeople(470, 12, { main: [200, 160, 95], other: [45, 32, 28] });
  const grid = coarseMatte(union);
  isolatePerson(grid, mainFace(), [{ cx: 470, cy: 300, fw: 190 }], () => cellColours(img, grid));
  let fringe = 0, fringeKept = 0, mine = 0, kept = 0;
  for (let j = 0; j < grid.h; j++) {
    for (let i = 0; i < grid.w; i++) {
      const x = i * 4 + 2, y = j * 4 + 2, o = owner[y * W + x], on = grid.data[j * grid.w + i] >= 0.5;
      if (o === 2 && y < 560 && (insidePerson(x - 20, y) || insidePerson(x - 40, y))) {
        fringe++; // the neighbour's cells within 40 px of the chosen head
        if (on) fringeKept++;
      } else if (o === 1) {
        mine++;
        if (on) kept++;
      }
    }
  }
  console.log(
    `neighbour's dark hair beside the blonde head: ${(100 * fringeKept / fringe).toFixed(1)}% of ${fringe} ` +
      `cells kept; the person's cells kept ${(100 * kept / mine).toFixed(2)}%`,
  );
  assert.ok(fringeKept / fringe <= 0.05, `fringe kept: ${(100 * fringeKept / fringe).toFixed(1)}%`);
  assert.ok(kept / mine >= 0.99, `person kept: ${(100 * kept / mine).toFixed(2)}%`);
});

Deno.test("person mask: an undetected neighbour's curls beside the body below the shoulders are dropped, a raised arm beside the head kept", () => {
  // The chosen person right of the middle, a raised bare arm beside the head (its elbow beyond
  // the body's envelope); at the left edge, below the shoulders, a neighbour's curls (dark and
  // brown strands, in the person's colours' reach) joined to the torso; their face is out of
  // frame. 2-px grid: the face ~100 cells wide, as in a framed portrait.
  const cx = 340;
  const segment = (x: number, y: number, ax: number, ay: number, bx: number, by: number) => {
    const vx = bx - ax, vy = by - ay;
    const t = Math.max(0, Math.min(1, ((x - ax) * vx + (y - ay) * vy) / (vx * vx + vy * vy)));
    return Math.hypot(x - ax - t * vx, y - ay - t * vy);
  };
  const inArm = (x: number, y: number) =>
    segment(x, y, 230, 600, 70, 330) < 34 || segment(x, y, 70, 330, 250, 190) < 30;
  const inCurls = (x: number, y: number) => ((x + 30) / 150) ** 2 + ((y - 800) / 230) ** 2 <= 1;
  const owner = new Uint8Array(W * H), union = new Float32Array(W * H), data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = y * W + x, arm = inArm(x, y), main = arm || insidePerson(x, y, cx);
      owner[k] = main ? 1 : inCurls(x, y) ? 2 : 0;
      union[k] = owner[k] ? 1 : 0;
      const hair = y < 300 || (y < 480 && Math.abs(x - cx) > 95);
      const c = owner[k] === 1
        ? (arm ? [205, 160, 135] : y >= 560 ? [60, 60, 70] : hair ? [70, 45, 30] : [205, 160, 135])
        : owner[k] === 2
        ? (Math.sin((x + 2 * y) / 5) > 0 ? [105, 72, 45] : [55, 38, 28])
        : [40, 95, 205];
      const amp = owner[k] === 0 || (owner[k] === 1 && y >= 560 && !arm) ? 10 : 12;
      for (let ch = 0; ch < 3; ch++) {
        data[k * 3 + ch] = Math.max(0, Math.min(255, Math.round(c[ch] + noise() * amp)));
      }
    }
  }
  const img = { data, width: W, height: H };
  const grid = coarseMatte(union, [], 2);
  isolatePerson(grid, mainFace(cx), [], () => cellColours(img, grid));
  let theirs = 0, leak = 0, mine = 0, kept = 0, arm = 0, armKept = 0;
  for (let j = 0; j < grid.h; j++) {
    for (let i = 0; i < grid.w; i++) {
      const x = i * 2 + 1, y = j * 2 + 1, o = owner[y * W + x], on = grid.data[j * grid.w + i] >= 0.5;
      if (o === 2) {
        theirs++;
        if (on) leak++;
      } else if (o === 1) {
        mine++;
        if (on) kept++;
        if (inArm(x, y)) {
          arm++;
          if (on) armKept++;
        }
      }
    }
  }
  console.log(
    `curls below the shoulders: ${(100 * leak / theirs).toFixed(2)}% of their cells kept; the person's ` +
      `${(100 * kept / mine).toFixed(2)}%, the raised arm's ${(100 * armKept / arm).toFixed(2)}%`,
  );
  assert.ok(leak / theirs <= 0.05, `curls kept: ${(100 * leak / theirs).toFixed(2)}%`);
  assert.ok(kept / mine >= 0.99, `person kept: ${(100 * kept / mine).toFixed(2)}%`);
  // A neighbour found only below the shoulders does not bound the rest by the body's envelope
  // (that cut the elbow: 95.6% kept).
  assert.ok(armKept / arm >= 0.99, `arm kept: ${(100 * armKept / arm).toFixed(2)}%`);
});

Deno.test("matte: old background the model kept joined to the body beside the arm (a red sofa) is dropped, the person kept", () => {
  const truth = truthAlpha();
  // A red cushion beside the torso's left side, which the coarse matte scores as person and joins to the body.
  const cushion: [number, number, number] = [40, 800, 90];
  const inCushion = (x: number, y: number) => (x - cushion[0]) ** 2 + (y - cushion[1]) ** 2 < cushion[2] ** 2;
  const img = photo(truth, undefined, (x, y) => (inCushion(x, y) ? [200, 40, 70] : [40, 95, 205]));
  const grid = coarseMatte(truth, [cushion]);
  dropForeignPatches(grid, mainFace(), cellColours(img, grid));
  const matte = refineMatte(img, grid, FACE);
  composeRefined(img, matte, solid([20, 60, 30]));
  const shown = meanLab(
    img,
    (x, y) => inCushion(x, y) && truth[y * W + x] === 0 && distToPerson(truth, x, y, 4) > 4,
  );
  const d = deltaE(shown.lab, srgbToLab(20, 60, 30));
  const { kept, person } = personKept(truth, matte.alpha);
  console.log(
    `sofa beside the arm: ΔE ${d.toFixed(2)} from the new backdrop over ${shown.n} px; person kept ${
      (100 * kept / person).toFixed(2)
    }%`,
  );
  assert.ok(d < 3, `the cushion still shows: ΔE ${d.toFixed(2)}`);
  assert.ok(kept / person > 0.98, `person kept ${(100 * kept / person).toFixed(2)}%`);
});

Deno.test("matte: clothes whose colour shows only at the body's sides (an open red jacket) are kept", () => {
  const truth = truthAlpha();
  // The torso's dark shirt shows in the middle only; the jacket's red panels run from the
  // shoulders to the frame's bottom edge along both sides of the body.
  const jacket = (x: number, y: number) => y >= 560 && Math.abs(x - 270) > 75;
  const data = photo(truth).data;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = y * W + x;
      if (!jacket(x, y) || truth[k] === 0) continue;
      const a = truth[k], c = [180, 30, 40], bg = [40, 95, 205];
      for (let ch = 0; ch < 3; ch++) data[k * 3 + ch] = Math.round(c[ch] * a + bg[ch] * (1 - a));
    }
  }
  const img = { data, width: W, height: H };
  const grid = coarseMatte(truth);
  dropForeignPatches(grid, mainFace(), cellColours(img, grid));
  const matte = refineMatte(img, grid, FACE);
  let kept = 0, n = 0;
  for (let k = 0; k < W * H; k++) {
    const x = k % W, y = Math.floor(k / W);
    if (!jacket(x, y) || truth[k] < 1 || distToBackground(truth, x, y) < 3) continue;
    n++;
    if (matte.alpha[k] > 0.9) kept++;
  }
  console.log(`open jacket: ${(100 * kept / n).toFixed(2)}% of ${n} px kept`);
  assert.ok(kept / n > 0.98, `jacket kept ${(100 * kept / n).toFixed(2)}%`);
});

Deno.test("matte: inside the torso alpha is 1 (no backdrop through the body, no patch of old background)", () => {
  const truth = truthAlpha();
  const img = photo(truth);
  const grid = coarseMatte(truth);
  // The model unsure on the shirt (0.6-0.75) with a hole where it resembles the wall.
  for (let j = 0; j < grid.h; j++) {
    for (let i = 0; i < grid.w; i++) {
      const x = i * 4 + 2, y = j * 4 + 2;
      if (y < 640 || Math.abs(x - 270) > 150) continue;
      grid.data[j * grid.w + i] = (x - 270) ** 2 + (y - 760) ** 2 < 30 ** 2
        ? 0.1
        : 0.6 + 0.15 * Math.sin(x / 9);
    }
  }
  const matte = refineMatte(img, grid, FACE);
  let core = 0, solid = 0;
  for (let y = 600; y < H; y++) {
    for (let x = 100; x < 440; x++) {
      if (distToBackground(truth, x, y) < 4 || truth[y * W + x] < 1 || Math.abs(x - 270) > 170) continue;
      core++;
      if (matte.alpha[y * W + x] >= 0.999) solid++;
    }
  }
  console.log(`torso core: ${(100 * solid / core).toFixed(2)}% of ${core} px at alpha 1`);
  assert.ok(solid / core >= 0.995, `torso alpha 1 on ${(100 * solid / core).toFixed(2)}%`);
});

Deno.test("matte: the old background seen through a loop of arm and head shows the new backdrop (a hole of the shirt's colour stays filled: see the torso test)", () => {
  // A raised arm from the shoulder to the side of the head: the wall between them is enclosed by the
  // person. The selfie model marks it background, but a hole under 2 % of the region was filled as a
  // doubt on a shirt, and the old wall showed through the loop over the new backdrop.
  const arm = (x: number, y: number) => {
    // The arm's centre line: up from the shoulder at (396, 590) to (396, 470), then in to the head at (346, 452).
    const d1 = y >= 470 && y <= 590 ? Math.abs(x - 396) : Infinity;
    const t = Math.max(0, Math.min(1, ((x - 396) * -50 + (y - 470) * -18) / (50 * 50 + 18 * 18)));
    const d2 = Math.hypot(x - (396 - 50 * t), y - (470 - 18 * t));
    return Math.min(d1, d2) <= 14;
  };
  const truth = new Float32Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let n = 0;
      for (let s = 0; s < 4; s++) {
        const xx = x + (s & 1) * 0.5, yy = y + (s >> 1) * 0.5;
        if (insidePerson(xx, yy) || arm(xx, yy)) n++;
      }
      truth[y * W + x] = n / 4;
    }
  }
  // The loop: background pixels enclosed by the person (not reachable from the frame's border).
  const outside = new Uint8Array(W * H), stack = [0];
  outside[0] = 1;
  while (stack.length) {
    const k = stack.pop()!, x = k % W;
    for (const nb of [k - W, k + W, x > 0 ? k - 1 : -1, x < W - 1 ? k + 1 : -1]) {
      if (nb >= 0 && nb < W * H && !outside[nb] && truth[nb] === 0) outside[nb] = 1, stack.push(nb);
    }
  }
  const inLoop = (x: number, y: number) =>
    truth[y * W + x] === 0 && !outside[y * W + x] && distToPerson(truth, x, y, 6) > 6;
  const img = photo(truth);
  const grid = coarseMatte(truth);
  const matte = refineMatte(img, grid, FACE);
  const back: [number, number, number] = [230, 120, 40];
  composeRefined(img, matte, solid(back));
  const shown = meanLab(img, inLoop);
  const d = deltaE(shown.lab, srgbToLab(...back));
  const { kept, person } = personKept(truth, matte.alpha);
  console.log(
    `loop of arm and head: ${shown.n} px, ΔE ${d.toFixed(2)} from the new backdrop; person kept ${
      (100 * kept / person).toFixed(2)
    }%`,
  );
  assert.ok(shown.n > 1000, `the loop is ${shown.n} px`);
  assert.ok(d < 3, `the old wall shows through the loop: ΔE ${d.toFixed(2)}`);
  assert.ok(kept / person > 0.98, `person kept ${(100 * kept / person).toFixed(2)}%`);
});

Deno.test("matte: a pocket the model doubts where the body runs off the frame is kept when it has the body's colour, and stays open when it shows the wall", () => {
  // The selfie model's values fall to 0.3 over a stretch of the shirt at the frame's bottom edge (sample4@1216:
  // her blonde hair at the right edge, a 12 x 80 px notch of the new backdrop cut into it), and the person's
  // isolation zeroes a few of those cells along the edge. The pocket is open to the frame's edge only, so it was
  // not a hole: the backdrop showed through the body. The same pocket over a slot of the wall stays open.
  const pocket = (x: number, y: number) => Math.abs(x - 330) < 24 && y >= 880;
  const slot = (x: number, y: number) => Math.abs(x - 330) < 16 && y >= 892;
  for (const wall of [false, true]) {
    const truth = truthAlpha();
    if (wall) { for (let k = 0; k < W * H; k++) if (slot(k % W, Math.floor(k / W))) truth[k] = 0; }
    const img = photo(truth);
    const grid = coarseMatte(truth);
    for (let j = 0; j < grid.h; j++) {
      for (let i = 0; i < grid.w; i++) {
        const x = i * 4 + 2, y = j * 4 + 2;
        if (!pocket(x, y)) continue;
        grid.data[j * grid.w + i] = j === grid.h - 1 && x < 330 ? 0 : 0.3;
      }
    }
    const matte = refineMatte(img, grid, FACE);
    let n = 0, kept = 0, sum = 0;
    for (let y = 880; y < H; y++) {
      for (let x = 300; x < 360; x++) {
        const k = y * W + x;
        if (wall ? !slot(x, y) || distToPerson(truth, x, y, 4) <= 4 : !pocket(x, y)) continue;
        n++;
        sum += matte.alpha[k];
        if (matte.alpha[k] > 0.9) kept++;
      }
    }
    console.log(
      `${wall ? "wall in the pocket" : "shirt in the pocket"}: ${n} px, ${
        (100 * kept / n).toFixed(1)
      }% at alpha > 0.9, mean alpha ${(sum / n).toFixed(3)}`,
    );
    if (wall) assert.ok(sum / n < 0.05, `the wall's slot kept: mean alpha ${(sum / n).toFixed(3)}`);
    else assert.ok(kept / n > 0.98, `the shirt's pocket cut out: ${(100 * kept / n).toFixed(1)}% kept`);
  }
});

Deno.test("relight: skin moves toward the scene's light (warmer at sunset, cooler at night) and stays skin", () => {
  const truth = truthAlpha();
  const skin = (x: number, y: number) => y > 330 && y < 460 && Math.abs(x - 270) < 70;
  const scenes: [string, [number, number, number], number][] = [["sunset", [235, 140, 60], 1], [
    "city night",
    [30, 45, 110],
    -1,
  ]];
  for (const [name, rgb, sign] of scenes) {
    const img = photo(truth);
    const before = meanLab(img, skin).lab;
    const bg = solid(rgb);
    const person = coarseMatte(truth);
    const balance = personBalance(img, person);
    const matte = refineMatte(img, person, FACE);
    composeRefined(img, matte, bg, relightGains(balance, bg, img));
    const after = meanLab(img, skin).lab;
    // Toward the light's chroma: its direction in (a*, b*) from the skin's.
    const light = srgbToLab(...rgb);
    const dir = [light[1] - before[1], light[2] - before[2]];
    const len = Math.hypot(dir[0], dir[1]);
    const shift = ((after[1] - before[1]) * dir[0] + (after[2] - before[2]) * dir[1]) / len;
    const hue = (Math.atan2(after[2], after[1]) * 180) / Math.PI;
    const moved = deltaE(after, before);
    console.log(
      `${name}: skin chroma shift toward the light ${shift.toFixed(2)}, ΔE ${moved.toFixed(2)}, hue ${
        hue.toFixed(1)
      }°, Δb* ${(after[2] - before[2]).toFixed(2)}`,
    );
    assert.ok(shift >= 1.5, `${name}: skin moved ${shift.toFixed(2)} toward the light`);
    assert.ok(moved <= 8, `${name}: skin changed ΔE ${moved.toFixed(2)}`);
    assert.ok(sign * (after[2] - before[2]) > 0, `${name}: b* moved the wrong way`);
    assert.ok(hue > 15 && hue < 85, `${name}: skin hue ${hue.toFixed(1)}° is not skin`);
  }
});
