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
