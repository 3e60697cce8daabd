/** The face below the brows as a soft mask: where hair is ruled out, or allowed only where the colour model is sure. */
import type { Canvas } from "./blend.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { BROW_L, BROW_R, EYE_L, EYE_R, FACE_OVAL } from "./landmarks.ts";
import { boost, createMask, feather, fillPolygon, type Mask, type Point } from "./masks.ts";

/** Runs `fill` on the part of `m` inside the frame (the rest stays 0). */
function clipToFrame(m: Mask, width: number, height: number, fill: (m: Mask) => void): void {
  const cw = Math.min(m.x + m.w, width) - m.x, ch = Math.min(m.y + m.h, height) - m.y;
  if (cw <= 0 || ch <= 0) return;
  if (cw === m.w && ch === m.h) return fill(m);
  const part = createMask({ x: m.x, y: m.y, w: cw, h: ch });
  fill(part);
  for (let r = 0; r < ch; r++) m.data.set(part.data.subarray(r * cw, (r + 1) * cw), r * m.w);
}

/** lowerFace's grid: 1/FACE_STEP of the canvas resolution (a soft mask, sampled bilinearly; the hair grid's step). */
export const FACE_STEP = 4;

/**
 * Hair falling over the temples and cheeks lies inside the face oval: only its
 * inner part (this share of the oval's half-width, with the brows and eyes) is
 * ruled out. In the outer band, a pixel is hair only where the colour model
 * is sure (shaded skin at the face's edge is nearly as dark as hair).
 */
export const FACE_CORE_WIDTH = 0.8;

/**
 * The face below the brows (never hair, or hair only where sure: see
 * FACE_CORE_WIDTH), on a 1/FACE_STEP grid. `width` scales the oval about the
 * face centre; the core also covers the brows and eyes.
 */
export function lowerFace(img: Canvas, g: FaceGeometry, width: number): Mask {
  const q = FACE_STEP;
  const cx = g.center[0];
  const oval = pick(g, FACE_OVAL).map(([x, y]): Point => [cx + (x - cx) * width, y]);
  // Cut the oval at the brow line: points above the brows are lifted down to it.
  const browY = Math.min(g.pts[105][1], g.pts[334][1]) - 0.02 * g.fh;
  // Rasterise and feather only a band around the face (not the whole frame).
  const pad = 0.08 * g.fw;
  const xs = oval.map((p) => p[0]), ys = oval.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor((Math.min(...xs) - pad) / q));
  const y0 = Math.max(0, Math.floor((browY - pad) / q));
  const sub = createMask({
    x: x0,
    y: y0,
    w: Math.ceil((Math.max(...xs) + pad) / q) - x0,
    h: Math.ceil((Math.max(...ys) + pad) / q) - y0,
  });
  // The frame clips the band (cells past the frame edge stay 0).
  clipToFrame(
    sub,
    Math.ceil(img.width / q),
    Math.ceil(img.height / q),
    (m) => {
      fillPolygon(m, oval.map(([x, y]) => [x / q, Math.max(y, browY) / q]));
      // Brows, and the eyes grown by half (lashes reach past the opening).
      if (width < 1) {
        for (const [idx, grow] of [[BROW_R, 1], [BROW_L, 1], [EYE_R, 1.5], [EYE_L, 1.5]] as const) {
          const pts = pick(g, idx);
          const ex = pts.reduce((a, p) => a + p[0], 0) / pts.length;
          const ey = pts.reduce((a, p) => a + p[1], 0) / pts.length;
          fillPolygon(
            m,
            pts.map(([x, y]): Point => [(ex + (x - ex) * grow) / q, (ey + (y - ey) * grow) / q]),
          );
        }
      }
    },
  );
  feather(sub, 0.015 * g.fw / q);
  return boost(sub, 1.8);
}
