/**
 * The neighbour measure shared by tests/imaging/neighbours.test.ts and bench/matte-quality.bench.ts: a
 * box around each other face detected on the whole demo photo (1.6 face sizes wide, from 0.95 above to
 * 0.6 below its centre), the part nearer that face than the chosen one and outside the chosen person's
 * own boxes (face +-0.75 face widths up to the chin, torso +-0.9 below it); shares of the cells the
 * selfie model marks person (`all`, every person kept) that the person mask keeps or drops.
 */
import type { DetectedFace } from "../../server/imaging/local/face-engine.ts";
import type { FaceGeometry } from "../../server/imaging/local/face-geometry.ts";
import type { PersonMask } from "../../server/imaging/local/person-mask.ts";

/**
 * Counts for one crop: `nb` cells in the others' boxes and `nbKept` of them kept; `own` cells in the
 * chosen person's boxes and `ownLost` of them dropped. `face` is the chosen face in the whole photo
 * ([sample, x, y, size]), `rect` the crop's rectangle in it, `fr` the crop's framing.
 */
export function neighbourCounts(
  all: PersonMask,
  mask: PersonMask,
  g: FaceGeometry,
  whole: readonly DetectedFace[],
  face: readonly [number, number, number, number],
  rect: { left: number; top: number },
  fr: { scale: number; offsetX: number; offsetY: number },
): { nb: number; nbKept: number; own: number; ownLost: number } {
  const [, fx, fy, fs] = face;
  const chinY = g.pts[152][1];
  const others = whole.filter((o) =>
    Math.hypot(o.box[0] + o.box[2] / 2 - fx - fs / 2, o.box[1] + o.box[3] / 2 - fy - fs / 2) > fs / 2
  ).map((o) => ({
    cx: (o.box[0] + o.box[2] / 2 - rect.left) * fr.scale + fr.offsetX,
    cy: (o.box[1] + o.box[3] / 2 - rect.top) * fr.scale + fr.offsetY,
    sz: Math.max(o.box[2], o.box[3]) * fr.scale,
  }));
  let nb = 0, nbKept = 0, own = 0, ownLost = 0;
  for (let j = 0; j < all.h; j++) {
    for (let i = 0; i < all.w; i++) {
      const k = j * all.w + i, x = (i + 0.5) * all.step, y = (j + 0.5) * all.step;
      if (all.data[k] < 0.5) continue;
      const dx = Math.abs(x - g.center[0]);
      const mine = (dx < 0.75 * g.fw && y > g.center[1] - g.fh && y < chinY) ||
        (dx < 0.9 * g.fw && y > chinY + 0.2 * g.fh && y < chinY + 2.5 * g.fh);
      const theirs = !mine &&
        others.some((o) =>
          Math.abs(x - o.cx) < 0.8 * o.sz && y > o.cy - 0.95 * o.sz && y < o.cy + 0.6 * o.sz &&
          Math.hypot(x - o.cx, y - o.cy) / o.sz < Math.hypot(x - g.center[0], y - g.center[1]) / g.fw
        );
      if (mine) {
        own++;
        if (mask.data[k] < 0.5) ownLost++;
      } else if (theirs) {
        nb++;
        if (mask.data[k] >= 0.5) nbKept++;
      }
    }
  }
  return { nb, nbKept, own, ownLost };
}

/**
 * Steps in the outline the person mask cuts inside what the selfie model marks person (`all` at 0.5 or
 * more): cells decided against 6 or more of their 8 neighbours. A dropped cell among kept ones is a notch cut
 * into the chosen person; a kept cell among dropped ones is a spur left in the others'. On the result either
 * is a square step where the person meets the new backdrop (sample6@1081's shoulder, 2026-12-06). Both the
 * split between people and the old-background patches dropped by colour after it cut there; cells the selfie
 * model itself left out are not counted (their steps are its outline).
 */
export function outlineSteps(all: PersonMask, mask: PersonMask): number {
  const { w, h } = all;
  const person = (k: number) => all.data[k] >= 0.5;
  const kept = (k: number) => mask.data[k] >= 0.5 * all.data[k];
  let steps = 0;
  for (let j = 1; j < h - 1; j++) {
    for (let i = 1; i < w - 1; i++) {
      const k = j * w + i;
      if (!person(k)) continue;
      const mine = kept(k);
      let against = 0, around = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const q = k + dy * w + dx;
          if (q === k || !person(q)) continue;
          around++;
          if (kept(q) !== mine) against++;
        }
      }
      if (around === 8 && against >= 6) steps++;
    }
  }
  return steps;
}
