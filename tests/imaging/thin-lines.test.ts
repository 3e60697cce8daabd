/**
 * Thin dark lines over skin below the chin (server/imaging/local/hair-thin-lines.ts), on a synthetic chest with a
 * known layout: a straight black strap and a pair of them are taken out of the dye with the skin along and
 * between them; a black strand that curves, a short straight one and a wide black lock are hair and keep it.
 */
import assert from "node:assert/strict";
import { srgbToLab } from "../../server/imaging/local/color.ts";
import { axisStats } from "../../server/imaging/local/hair-colour-samples.ts";
import { ColourModel } from "../../server/imaging/local/hair-colour-model.ts";
import { clearThinLines } from "../../server/imaging/local/hair-thin-lines.ts";

const W = 1080, H = 900, FW = 440;
const SKIN = [226, 178, 150], BLACK = [18, 16, 20];

/** A chest of skin with dark shapes painted where `dark(x, y)` holds, a little noise on both. */
function chest(dark: (x: number, y: number) => boolean) {
  const data = new Uint8Array(W * H * 3);
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 6;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const c = dark(x, y) ? BLACK : SKIN, n = noise();
      for (let q = 0; q < 3; q++) {
        data[(y * W + x) * 3 + q] = Math.max(0, Math.min(255, Math.round(c[q] + n)));
      }
    }
  }
  return { data, width: W, height: H };
}

/** The colour model of dark hair over this skin (no clothes sampled). */
function model(): ColourModel {
  const around = (c: number[], spread: number) =>
    Array.from(
      { length: 40 },
      (_, i) => srgbToLab(c[0] + (i % 5) * spread, c[1] + (i % 7) * spread, c[2] + (i % 3) * spread),
    );
  return new ColourModel([axisStats(around([30, 26, 28], 3))], [axisStats(around(SKIN, 2))], []);
}

/** The share of pixels in the box [x0, x1) x [y0, y1) left dyed in `plane`. */
function dyed(plane: Float32Array, x0: number, x1: number, y0: number, y1: number): number {
  let on = 0, all = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) all++, on += plane[y * W + x] > 0 ? 1 : 0;
  return on / all;
}

Deno.test("a straight black strap over skin leaves the dye, the skin along it too; a curving strand, a short one and a lock keep it", () => {
  // A strap 18 px wide slanting down the whole chest (x 200 -> 260); a strand 10 px wide curving 60 px to each
  // side (x 500 about); a straight strand only 0.2 face widths long (x 700, y 300-388); a lock 120 px wide
  // (x 860-980).
  const strapX = (y: number) => 200 + 60 * y / H;
  const strandX = (y: number) => 500 + 60 * Math.sin(y / 70);
  const img = chest((x, y) =>
    Math.abs(x - strapX(y)) < 9 || Math.abs(x - strandX(y)) < 5 ||
    (Math.abs(x - 700) < 5 && y >= 300 && y < 388) ||
    (x >= 860 && x < 980)
  );
  const plane = new Float32Array(W * H).fill(1);
  const cleared = clearThinLines(img, plane, 0, 0, W, H, 0, FW, model());
  assert.ok(cleared > 0, "something was cleared");
  // Along the strap's middle rows (its ends may meet the box's edge).
  let strap = 0, rows = 0;
  for (let y = 100; y < 800; y += 10) {
    const x = Math.round(strapX(y));
    rows++, strap += dyed(plane, x - 8, x + 9, y, y + 1);
  }
  assert.ok(strap / rows < 0.05, `strap left dyed: ${(100 * strap / rows).toFixed(1)} %`);
  assert.ok(dyed(plane, 270, 300, 400, 500) < 0.05, "the skin beside the strap left dyed");
  let strand = 0;
  for (let y = 100; y < 800; y += 10) {
    strand += dyed(plane, Math.round(strandX(y)) - 4, Math.round(strandX(y)) + 5, y, y + 1);
  }
  assert.ok(strand / rows > 0.95, `curving strand kept: ${(100 * strand / rows).toFixed(1)} %`);
  assert.ok(dyed(plane, 696, 705, 300, 388) > 0.95, "short straight strand kept");
  assert.ok(dyed(plane, 870, 970, 100, 800) > 0.99, "wide lock kept");
  assert.ok(dyed(plane, 600, 640, 100, 800) > 0.99, "skin away from any line untouched");
});

Deno.test("two straps side by side leave the dye with the skin between them; a brown lock beside them keeps it; nothing above fromY is touched", () => {
  // Straps at x 300 and 340; a second pair at x 600 and 680 with a brown lock (x 630-650) lying between them.
  const BROWN = [92, 62, 44];
  const img = chest((x) =>
    Math.abs(x - 300) < 8 || Math.abs(x - 340) < 10 || Math.abs(x - 600) < 8 || Math.abs(x - 680) < 8
  );
  for (let y = 0; y < H; y++) for (let x = 630; x < 650; x++) img.data.set(BROWN, (y * W + x) * 3);
  const plane = new Float32Array(W * H).fill(1);
  clearThinLines(img, plane, 0, 0, W, H, 200, FW, model());
  assert.ok(dyed(plane, 292, 351, 300, 800) < 0.05, "the straps and the skin between them left dyed");
  assert.ok(dyed(plane, 592, 630, 300, 800) < 0.05, "the second pair's left strap and the skin beside it");
  assert.ok(dyed(plane, 632, 648, 300, 800) > 0.99, "the brown lock between straps keeps its dye");
  assert.equal(dyed(plane, 0, W, 0, 200), 1, "rows above fromY untouched");
});

Deno.test("dye that only a strap joined to the hair goes with the strap; a lock's own dye and a piece no cut touches stay", () => {
  // A strap (x 300, 18 px wide) down the skin to a black top from y 600; below its end, on the top, a dyed strip
  // of its hem (x 250-450, y 600-640) that the dye reached along the strap. A lock (x 800-920) from the chin's
  // row down, with a dyed strip of the hem beside it (x 700-800, y 600-640); a dyed patch on the top that no
  // line touches (x 500-560, y 700-760). Only the strap, the skin along it and the strip below it are dyed
  // nowhere else, so once the strap is cleared, the strip below it is apart from the hair.
  const img = chest((x, y) => y >= 600 || Math.abs(x - 300) < 9 || (x >= 800 && x < 920));
  const plane = new Float32Array(W * H);
  const dye = (x0: number, x1: number, y0: number, y1: number) => {
    for (let y = y0; y < y1; y++) plane.fill(1, y * W + x0, y * W + x1);
  };
  dye(291, 309, 0, 600);
  dye(250, 450, 600, 640);
  dye(800, 920, 0, H);
  dye(700, 800, 600, 640);
  dye(500, 560, 700, 760);
  clearThinLines(img, plane, 0, 0, W, H, 0, FW, model());
  assert.ok(dyed(plane, 291, 309, 100, 550) < 0.05, "the strap left dyed");
  assert.equal(dyed(plane, 250, 450, 600, 640), 0, "the hem below the strap left dyed");
  assert.equal(dyed(plane, 800, 920, 0, H), 1, "the lock lost dye");
  assert.equal(dyed(plane, 700, 800, 600, 640), 1, "the hem beside the lock lost dye");
  assert.equal(dyed(plane, 500, 560, 700, 760), 1, "the patch no line touches lost dye");
});
