/** Small tools every makeup layer shares: the soft-layer grid, a multiply LUT, the face clip. */
import { type Canvas, channelLut } from "./blend.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { FACE_OVAL } from "./landmarks.ts";
import { clamp01 } from "./ramps.ts";
import {
  boundsOf,
  createMask,
  feather,
  fillPolygon,
  type Mask,
  maskAt,
  type Point,
  sampleGrid,
} from "./masks.ts";

/** Soft layers (large feather sigma) rasterise their masks at 1/SOFT_STEP resolution. */
export const SOFT_STEP = 2;

export const toGrid = (pts: Point[], step: number): Point[] =>
  pts.map((p): Point => [p[0] / step, p[1] / step]);

/** An empty mask on a 1/step grid around canvas points (padding in canvas pixels). */
export function gridMask(img: Canvas, pts: Point[], pad: number, step: number): Mask {
  return createMask(
    boundsOf(toGrid(pts, step), pad / step, Math.ceil(img.width / step), Math.ceil(img.height / step)),
  );
}

export const multiplyLut = (r: number, g: number, b: number) => {
  const f = [r, g, b];
  return channelLut((v, k) => v * f[k]);
};

/**
 * The face outline filled on a 1/SOFT_STEP grid (its rectangle padded by `pad` face widths), feathered by
 * `sigma` face widths and pulled inward: 0 where the blur is `from` or less (the outline itself is at a half),
 * 1 from `from + span`.
 */
export function outlineRamp(
  img: Canvas,
  g: FaceGeometry,
  { pad, sigma, from, span }: { pad: number; sigma: number; from: number; span: number },
): Mask {
  const q = SOFT_STEP, oval = pick(g, FACE_OVAL);
  const m = gridMask(img, oval, pad * g.fw, q);
  fillPolygon(m, toGrid(oval, q));
  feather(m, sigma * g.fw / q);
  for (let i = 0; i < m.data.length; i++) m.data[i] = clamp01((m.data[i] - from) / span);
  return m;
}

/**
 * The face outline on a 1/SOFT_STEP grid, 1 inside and falling to 0 exactly
 * at the outline (feathered, then pulled inward). One per face.
 */
const ovalClips = new WeakMap<FaceGeometry, Mask>();

function faceClip(img: Canvas, g: FaceGeometry): Mask {
  let m = ovalClips.get(g);
  if (!m) {
    m = outlineRamp(img, g, { pad: 0.01, sigma: 0.012, from: 0.6, span: 0.35 });
    ovalClips.set(g, m);
  }
  return m;
}

/**
 * Multiplies a layer's mask (stored at 1/`step` resolution, step 1 or
 * SOFT_STEP) by the face clip: no product lands on hair, ears or background,
 * whatever the layer's own shape.
 */
export function clipToFace(img: Canvas, g: FaceGeometry, m: Mask, step: 1 | typeof SOFT_STEP): void {
  const clip = faceClip(img, g);
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] <= 0) continue;
      // On the clip's own grid the cells coincide; at full resolution, sample it.
      m.data[k] *= step === SOFT_STEP
        ? maskAt(clip, m.x + c, m.y + r)
        : sampleGrid(clip, SOFT_STEP, m.x + c, m.y + r);
    }
  }
}
