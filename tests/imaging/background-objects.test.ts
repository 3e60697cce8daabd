/**
 * Background objects the selfie model half takes for the person (a wooden window frame beside
 * the hair, at 0.35-0.7) are not kept in the cut-out: on a synthetic portrait with a known matte
 * and on the real crop (face-api demo sample6, read from node_modules at test time); nor is the
 * background seen through the loop of a raised arm (sample2).
 */
import assert from "node:assert/strict";
import type { Canvas } from "../../server/imaging/local/blend.ts";
import {
  dropBackgroundObjects,
  dropIslands,
  type MattePlan,
  planMatte,
  refineMatte,
} from "../../server/imaging/local/matte-refine.ts";
import type { PersonMask } from "../../server/imaging/local/person-mask.ts";
import type { Point } from "../../server/imaging/local/masks.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { cellColours } from "../../server/imaging/local/person-mask.ts";
import { cropFace, DARK_HAIR, FRONTAL_FACES } from "./fixtures.ts";
import { framedCrop } from "./framed-crop.ts";

/** One face engine for the file's real-photo tests (a second load in one process finds the model's file handlers registered twice). */
let engineLoad: Promise<FaceEngine> | undefined;
const faceEngine = () => (engineLoad ??= FaceEngine.load());

export const SYN_W = 540, SYN_H = 960;
/** The synthetic face's centre. */
export const SYN_FACE: Point = [270, 360];

/** Hair: an oval around the head and long hair down to the shoulders; face: a smaller oval. */
function inFace(x: number, y: number): boolean {
  return ((x - 270) / 90) ** 2 + ((y - 380) / 120) ** 2 <= 1;
}
function inHair(x: number, y: number): boolean {
  if (inFace(x, y)) return false;
  const wave = 6 * Math.sin(y / 9);
  return ((x - 270) / (145 + wave)) ** 2 + ((y - 330) / 190) ** 2 <= 1 ||
    (y > 330 && y < 600 && Math.abs(x - 270) < 140 + wave);
}
function inBody(x: number, y: number): boolean {
  return y >= 580 && Math.abs(x - 270) <= 200 + 15 * Math.sin(y / 25);
}
const inPerson = (x: number, y: number) => inFace(x, y) || inHair(x, y) || inBody(x, y);

/**
 * A straight-edged object beside the hair on the left: x from 12 up to the hair, y 200-700 (a
 * window frame's upright).
 */
export function inObject(x: number, y: number): boolean {
  return x >= 12 && x < 140 && y >= 200 && y < 700 && !inPerson(x, y);
}

let seed = 11;
const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5);

/**
 * The portrait: dark brown hair, skin, a navy top, a pale grey wall and a golden wooden upright
 * beside the hair (or, with `hairTone`, a lock of the hair's own colour where the model half takes
 * the object, from x 75, and the wall beyond), with grain; the truth (1 on the person and the
 * lock); the selfie model's grid matte:
 * the truth blurred and ~3 px wide, and the object half taken (0.4-0.6) within 70 px of the hair.
 */
export function synthetic(hairTone = false): { img: Canvas; truth: Uint8Array; person: PersonMask } {
  const W = SYN_W, H = SYN_H;
  const data = new Uint8Array(W * H * 3), truth = new Uint8Array(W * H);
  const hair = [62, 44, 34], skin = [205, 160, 135], top = [40, 48, 90], wall = [196, 200, 208];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = y * W + x, obj = inObject(x, y);
      // The wood's grain: vertical streaks.
      const grain = 10 * Math.sin(x / 3.1) + 6 * Math.sin(x / 7.3 + y / 90);
      // The lock: only the part the model half takes (beside the hair); the wall beyond it.
      const lock = hairTone && obj && x >= 75;
      const c = inFace(x, y)
        ? skin
        : inHair(x, y)
        ? hair
        : inBody(x, y)
        ? top
        : lock
        ? hair
        : obj && !hairTone
        ? [160 + grain, 115 + grain, 48 + grain / 2]
        : wall;
      truth[k] = inPerson(x, y) || lock ? 1 : 0;
      for (let q = 0; q < 3; q++) {
        data[k * 3 + q] = Math.max(0, Math.min(255, Math.round(c[q] + noise() * 8)));
      }
    }
  }
  const step = 4, w = W / step, h = H / step, m = new Float32Array(w * h);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const cx = i * step + 2, cy = j * step + 2;
      let s = 0, n = 0;
      for (let dy = -6; dy <= 6; dy += 2) {
        for (let dx = -6; dx <= 6; dx += 2) {
          const x = Math.min(W - 1, Math.max(0, cx + dx)), y = Math.min(H - 1, Math.max(0, cy + dy));
          s += inPerson(x, y) ? 1 : 0;
          n++;
        }
      }
      let v = Math.min(1, (s / n) * 1.35);
      if (inObject(cx, cy)) {
        // Half taken near the hair, less farther out (as the real model does on the window frame).
        let near = Infinity;
        for (let x = cx; x < cx + 90 && x < W; x += 2) {
          if (inHair(x, cy)) {
            near = x - cx;
            break;
          }
        }
        const half = 0.4 + 0.2 * Math.sin(cy / 23) ** 2;
        v = Math.max(v, near <= 70 ? half : near <= 90 ? 0.25 : 0.1);
      }
      m[j * w + i] = v;
    }
  }
  return { img: { data, width: W, height: H }, truth, person: { w, h, step, data: m } };
}

/** The refined alpha as the code before background objects made it: the plan kept as made without pixels. */
export function alphaWithout(img: Canvas, person: PersonMask, seed: Point): Float32Array {
  const plan: MattePlan = planMatte(img, person, seed);
  plan.checked = true;
  return refineMatte(img, person, seed, plan).alpha;
}

/** Share of the pixels `pick` selects with alpha above 0.5 (alpha at the canvas's scale 1). */
export function keptShare(
  alpha: Float32Array,
  W: number,
  H: number,
  pick: (x: number, y: number) => boolean,
): number {
  let kept = 0, n = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (!pick(x, y)) continue;
      n++;
      if (alpha[y * W + x] > 0.5) kept++;
    }
  }
  return kept / Math.max(1, n);
}

Deno.test("matte: a straight-edged object beside the hair that the model half takes is not kept; the hair is", () => {
  const { img, truth, person } = synthetic();
  const W = SYN_W, H = SYN_H;
  const before = alphaWithout(img, person, SYN_FACE);
  const after = refineMatte(img, person, SYN_FACE, planMatte(img, person, SYN_FACE)).alpha;
  // Old code: 48.6% of the object kept; now 0.
  const obj = (x: number, y: number) => inObject(x, y);
  const hairOnly = (x: number, y: number) => inHair(x, y);
  const wasKept = keptShare(before, W, H, obj), nowKept = keptShare(after, W, H, obj);
  assert.ok(wasKept > 0.3, `the old code kept the object (${wasKept})`);
  assert.ok(
    nowKept < 0.02,
    `object kept ${(100 * nowKept).toFixed(1)}% (was ${(100 * wasKept).toFixed(1)}%)`,
  );
  // The hair and the whole person stay (99.9% before).
  const hairKept = keptShare(after, W, H, hairOnly);
  assert.ok(hairKept > 0.995, `hair kept ${(100 * hairKept).toFixed(2)}%`);
  const personKept = keptShare(after, W, H, (x, y) => truth[y * W + x] === 1);
  assert.ok(personKept > 0.995, `person kept ${(100 * personKept).toFixed(2)}%`);
});

Deno.test("matte: a half-taken lock of the hair's own colour beside the head is kept", () => {
  const { img, person } = synthetic(true);
  const W = SYN_W, H = SYN_H;
  const before = alphaWithout(img, person, SYN_FACE);
  const after = refineMatte(img, person, SYN_FACE, planMatte(img, person, SYN_FACE)).alpha;
  // Where the model was half sure (the lock beside the hair): as much kept as before (97.0%; the
  // wall strip beside it, half taken too, is dropped now, and the lock's edge is refined there: 95.8%).
  const lock = (x: number, y: number) => inObject(x, y) && x >= 80;
  const was = keptShare(before, W, H, lock), now = keptShare(after, W, H, lock);
  assert.ok(now >= was - 0.03, `lock kept ${(100 * now).toFixed(1)}%, before ${(100 * was).toFixed(1)}%`);
});

Deno.test("person mask: background objects dropped from the mask itself (for the hair recolour) leave the matte nothing to drop", () => {
  const { img, person } = synthetic();
  const dropped = dropBackgroundObjects(person, cellColours(img, person));
  assert.ok(dropped > 100, `${dropped} cells dropped`);
  const plan = planMatte(img, person, SYN_FACE);
  plan.checked = true;
  const alpha = refineMatte(img, person, SYN_FACE, plan).alpha;
  const kept = keptShare(alpha, SYN_W, SYN_H, (x, y) => inObject(x, y));
  assert.ok(kept < 0.02, `object kept ${(100 * kept).toFixed(1)}%`);
  assert.equal(dropBackgroundObjects(person, cellColours(img, person)), 0);
});

Deno.test("matte: a plan made before the pixels (kept with the photo) is checked once, in place", () => {
  const { img, person } = synthetic();
  const plan = planMatte(img, person, SYN_FACE);
  assert.equal(plan.checked, false);
  const first = refineMatte(img, person, SYN_FACE, plan).alpha;
  assert.equal(plan.checked, true);
  const again = refineMatte(img, person, SYN_FACE, plan).alpha;
  assert.deepEqual(again, first);
  const fresh = refineMatte(img, person, SYN_FACE).alpha;
  assert.deepEqual(fresh, first);
});

/**
 * On the DARK_HAIR crop framed at 1080x1920: the golden wooden window frame left of her hair,
 * hand-traced 20-40 px clear of the hair, and her hair on that side traced ~15 px inside its
 * edge down to the blonde ends; x from the detected face box's left edge, y from its top, in box
 * widths and heights.
 */
export const WOOD: [number, number][] = [
  [-0.101, -0.093],
  [0.062, -0.093],
  [0.027, 0.024],
  [-0.002, 0.141],
  [-0.008, 0.258],
  [-0.002, 0.375],
  [0.01, 0.609],
  [0.01, 0.726],
  [-0.008, 0.842],
  [-0.019, 0.959],
  [-0.101, 0.959],
];
export const HAIR: [number, number][] = [
  [0.115, -0.093],
  [0.238, -0.093],
  [0.238, 0.726],
  [0.191, 0.959],
  [0.027, 0.959],
  [0.045, 0.842],
  [0.057, 0.726],
  [0.057, 0.609],
  [0.039, 0.492],
  [0.033, 0.375],
  [0.039, 0.258],
  [0.051, 0.141],
  [0.08, 0.024],
];

export function inPolygon(x: number, y: number, poly: [number, number][]): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i], [xj, yj] = poly[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * Of a 1080x1920 canvas's pixels (every other row and column) inside `poly` (relative to the face box
 * `box`): how many (n), and how many the matte keeps (alpha > 0.5, k).
 */
function keptIn(
  alpha: (x: number, y: number) => number,
  [bx, by, bw, bh]: readonly number[],
  poly: [number, number][],
): { n: number; k: number } {
  let n = 0, k = 0;
  for (let y = 0; y < 1920; y += 2) {
    for (let x = 0; x < 1080; x += 2) {
      if (!inPolygon((x + 0.5 - bx) / bw, (y + 0.5 - by) / bh, poly)) continue;
      n++;
      if (alpha(x, y) > 0.5) k++;
    }
  }
  return { n, k };
}

/** Alpha per canvas pixel (the refined grid may be half size). */
export function perPixel(
  m: { width: number; scale: number; alpha: Float32Array },
): (x: number, y: number) => number {
  return (x, y) => m.alpha[Math.floor(y / m.scale) * m.width + Math.floor(x / m.scale)];
}

/**
 * The share of the traced frame (WOOD) and of her hair on that side (HAIR) the matte keeps (alpha > 0.5),
 * every other pixel of the 1080x1920 canvas; and the frame's pixel count looked at.
 */
async function frameAndHairKept(aspect?: number, span?: number) {
  const c = (await framedCrop(await faceEngine(), await cropFace(DARK_HAIR, aspect, span)))!;
  const alpha = perPixel(refineMatte(c.framed, c.person, c.g.center));
  const [bx, by, bw, bh] = c.box;
  let wood = 0, woodKept = 0, hair = 0, hairKept = 0;
  for (let y = 0; y < 1920; y += 2) {
    for (let x = 0; x < 1080; x += 2) {
      const u = (x + 0.5 - bx) / bw, v = (y + 0.5 - by) / bh, kept = alpha(x, y) > 0.5;
      if (inPolygon(u, v, WOOD)) {
        wood++;
        if (kept) woodKept++;
      } else if (inPolygon(u, v, HAIR)) {
        hair++;
        if (kept) hairKept++;
      }
    }
  }
  return { wood: woodKept / wood, hair: hairKept / hair, woodPixels: wood, doubted: !!c.person.doubted };
}

Deno.test("matte: the wooden window frame beside sample6's hair is not kept in the cut-out; her hair is", async () => {
  const kept = await frameAndHairKept();
  // Before: 19.4% of the traced frame kept (two blocks beside the hair), the hair 98.8%; after:
  // 2.5% (a strip along the hair's edge) and 98.6%.
  assert.ok(kept.wood < 0.06, `wood kept ${(100 * kept.wood).toFixed(1)}%`);
  assert.ok(kept.hair > 0.98, `hair kept ${(100 * kept.hair).toFixed(2)}%`);
});

Deno.test("matte: the frame beside sample6's hair is not kept at wider framings either; her hair is", async () => {
  // Cropped wider than the test crop (her face then under ~0.7 of the canvas's width), the head tile's pass
  // took the frame for her (1.0) while the whole canvas's pass gave it 0: 46.9 % of the traced frame kept at
  // 2.6 face widths, 89.3 % at 3.2, her hair 95.6 % / 99.5 %. Now those cells are doubted and judged by
  // colour: 9.4 % / 12.9 % kept, hair 95.5 % / 98.5 %.
  for (const [span, hairMin] of [[2.6, 0.95], [3.2, 0.97]]) {
    const kept = await frameAndHairKept(0.75, span);
    console.log(
      `span ${span}: wood kept ${(100 * kept.wood).toFixed(1)} %, hair ${(100 * kept.hair).toFixed(1)} %`,
    );
    assert.ok(kept.doubted, `span ${span}: the passes' disagreement is marked`);
    assert.ok(
      kept.woodPixels > 5000 && kept.wood < 0.2,
      `span ${span}: wood kept ${(100 * kept.wood).toFixed(1)}%`,
    );
    assert.ok(kept.hair > hairMin, `span ${span}: hair kept ${(100 * kept.hair).toFixed(1)}%`);
  }
});

Deno.test("person mask: a sure block the passes disagree on is judged by its colour; undoubted, it is kept", () => {
  // A 60x80 grid (step 4). Outside the person (value 0): white blinds, and a golden frame above and beside the
  // person's left side that runs on into the region. The region (value 1, sure): the frame's part in it,
  // caramel lengths beside it (~46 sRGB from the frame), dark hair, and dark clothes below. Only doubted cells
  // may go, and only where their colour joins them to the background outside and not to the person.
  const w = 60, h = 80, step = 4;
  const WOOD_RGB = [155, 117, 45], LENGTHS = [150, 125, 90], DARK = [40, 45, 38], BLINDS = [200, 205, 195];
  const make = (doubt: (x: number, y: number) => boolean) => {
    const data = new Float32Array(w * h), rgb = new Float32Array(w * h * 3), doubted = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const k = y * w + x, inRegion = y >= 10 && x >= 14 && x < 50;
        const c = x >= 10 && x < 20 && y < 60
          ? WOOD_RGB
          : !inRegion
          ? BLINDS
          : x < 26 && y < 60
          ? LENGTHS
          : DARK;
        // A little grain, as a photo's cells have.
        for (let i = 0; i < 3; i++) rgb[k * 3 + i] = c[i] + ((x * 7 + y * 13 + i * 5) % 7) - 3;
        data[k] = inRegion ? 1 : 0;
        if (inRegion && doubt(x, y)) doubted[k] = 1;
      }
    }
    return { mask: { w, h, step, data, doubted } as PersonMask, rgb };
  };
  // Six cells wide: the person's other colours lie within OBJECT_RADIUS of all of it (a cell with none that
  // near is not judged).
  const frame = (x: number, y: number) => x >= 14 && x < 20 && y < 60;
  // Doubted frame: dropped, and nothing else.
  {
    const { mask, rgb } = make(frame);
    dropBackgroundObjects(mask, rgb);
    for (let y = 10; y < h; y++) {
      for (let x = 14; x < 50; x++) {
        assert.equal(mask.data[y * w + x], frame(x, y) ? 0 : 1, `doubted frame: cell ${x},${y}`);
      }
    }
  }
  // The same frame, not doubted (both passes sure): kept, as before.
  {
    const { mask, rgb } = make(() => false);
    assert.equal(dropBackgroundObjects(mask, rgb), 0);
  }
  // Doubted lengths and dark hair (the head tile alone saw them): unlike the background beside them, kept.
  {
    const { mask, rgb } = make((x) => x >= 20);
    assert.equal(dropBackgroundObjects(mask, rgb), 0);
  }
});

Deno.test("person mask: unsure lengths grown into only from pinholes at the frame's edge are kept; joined to the outside, dropped", () => {
  // A 60x80 grid (step 4). Outside (value 0): white blinds left of x 10 and above y 10. The region
  // (value 1, sure): a dark top, and at the frame's right edge a block of blonde lengths the model was
  // unsure of (0.5; x 54-59, y 40-55: the top lies within OBJECT_RADIUS, so its cells are judged) whose
  // colour is none of the person's sure ones. In it, two cells at the edge
  // the model dropped below the region (0.2): a pinhole, not background. With `joined`, a strip of the
  // lengths' colour runs from the block up to the outside above (a golden frame), as a background
  // object does.
  const w = 60, h = 80, step = 4;
  const BLONDE = [225, 190, 130], DARK = [40, 45, 38], BLINDS = [200, 205, 195];
  const make = (joined: boolean) => {
    const data = new Float32Array(w * h), rgb = new Float32Array(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const k = y * w + x, block = x >= 54 && y >= 40 && y < 56, strip = joined && x >= 56 && y < 40;
        const inRegion = x >= 10 && y >= 10 && !strip;
        const c = block || strip ? BLONDE : inRegion ? DARK : BLINDS;
        for (let i = 0; i < 3; i++) rgb[k * 3 + i] = c[i] + ((x * 7 + y * 13 + i * 5) % 7) - 3;
        data[k] = !inRegion ? 0 : block ? (x === w - 1 && (y === 47 || y === 48) ? 0.2 : 0.5) : 1;
      }
    }
    return { mask: { w, h, step, data } as PersonMask, rgb };
  };
  // Before: the block grew from the pinhole (its colour, and none of the person's sure colours near) and
  // all of it was dropped: 94 cells.
  {
    const { mask, rgb } = make(false);
    assert.equal(dropBackgroundObjects(mask, rgb), 0);
    assert.equal(mask.data[45 * w + 56], 0.5);
  }
  {
    const { mask, rgb } = make(true);
    assert.equal(dropBackgroundObjects(mask, rgb), 94);
    assert.equal(mask.data[45 * w + 56], 0);
    assert.equal(mask.data[45 * w + 30], 1);
  }
});

Deno.test("matte: sample4@1216's blonde lengths at the frame's edge are kept (no hole showing the backdrop)", async () => {
  // Below the head tile the whole canvas's pass was unsure of her lengths at the right edge and left a
  // few pinholes there; grown from those, a hand-wide patch of the lengths was dropped as a background
  // object: 11.6 % of the rectangle kept (the new backdrop showed through her hair), then 92.0 %; the
  // pocket the model doubted at the very edge (a strip ~12 x 80 px) is filled as a hole since (solidify's
  // edgeNotch): 100 %. The rectangle relative to the detected face box (traced on the 1080x1920 framing:
  // x 1030-1075, y 1290-1425, all blonde hair in the photo).
  const c = (await framedCrop(await faceEngine(), await cropFace(FRONTAL_FACES[8])))!;
  const alpha = perPixel(refineMatte(c.framed, c.person, c.g.center));
  const poly: [number, number][] = [[1.194, 1.191], [1.26, 1.191], [1.26, 1.388], [1.194, 1.388]];
  const { n, k } = keptIn(alpha, c.box, poly);
  console.log(`sample4@1216: lengths at the right edge kept ${(100 * k / n).toFixed(1)} % of ${n} px`);
  assert.ok(n > 1000, `${n} px`);
  assert.ok(k / n > 0.98, `lengths kept ${(100 * k / n).toFixed(1)} %`);
});

Deno.test("matte: the sofa seen through the loop of sample2@1370's raised arm is not kept; her arm and hair are", async () => {
  // Her forearm runs up to her head and her upper arm below it: the sofa between them is enclosed by
  // the person. The selfie model marked most of it background, but the hole was under 2 % of the region
  // and was filled as a doubt on a shirt: a lavender and red patch over every backdrop. Polygons relative
  // to the detected face box (traced on the 1080x1920 framing); before: the loop 100 % kept.
  const engine = await faceEngine();
  const c = (await framedCrop(engine, await cropFace(FRONTAL_FACES[3])))!;
  const alpha = perPixel(refineMatte(c.framed, c.person, c.g.center));
  const parts: Record<string, [number, number][]> = {
    loop: [[-0.02, 0.321], [0.014, 0.321], [0.014, 0.56], [-0.177, 0.56]],
    forearm: [[-0.203, 0.221], [-0.127, 0.196], [-0.114, 0.246], [-0.19, 0.296]],
    hair: [[0.062, 0.347], [0.125, 0.347], [0.125, 0.535], [0.062, 0.535]],
    upperArm: [[-0.19, 0.699], [-0.039, 0.699], [-0.039, 0.762], [-0.19, 0.762]],
  };
  const kept: Record<string, number> = {};
  for (const [name, poly] of Object.entries(parts)) {
    const { n, k } = keptIn(alpha, c.box, poly);
    assert.ok(n > 500, `${name}: ${n} px`);
    kept[name] = k / n;
  }
  console.log(
    `sample2@1370, share kept: ${JSON.stringify(kept, (_, v) => typeof v === "number" ? +v.toFixed(3) : v)}`,
  );
  assert.ok(kept.loop < 0.1, `the loop ${(100 * kept.loop).toFixed(1)} % kept`);
  for (const part of ["forearm", "hair", "upperArm"]) {
    assert.ok(kept[part] > 0.98, `${part} ${(100 * kept[part]).toFixed(1)} % kept`);
  }
});

Deno.test("dropIslands: a region detached from the person is dropped; the person and soft cells are not", () => {
  // A 40x60 grid (step 4): the person (a solid block holding the face's centre, with a soft fringe), and
  // a detached solid patch beside it (a neighbour's piece), joined to the person only through cells under
  // the region threshold.
  const w = 40, h = 60, step = 4, data = new Float32Array(w * h);
  const fill = (x0: number, x1: number, y0: number, y1: number, v: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * w + x] = v;
  };
  fill(4, 20, 4, 56, 1);
  fill(20, 22, 4, 56, 0.2);
  fill(22, 24, 20, 26, 0.3);
  fill(24, 32, 18, 28, 0.95);
  const before = data.slice();
  const mask: PersonMask = { w, h, step, data };
  dropIslands(mask, [12 * step, 10 * step]);
  for (let k = 0; k < w * h; k++) {
    const x = k % w, y = Math.floor(k / w);
    const island = x >= 24 && x < 32 && y >= 18 && y < 28;
    assert.equal(data[k], island ? 0 : before[k], `cell ${x},${y}`);
  }
});
