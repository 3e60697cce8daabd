/**
 * Detail restoration for an enlarged photo: an unsharp mask on lightness only
 * (libvips sharpens the L* channel of Lab, so colours do not fringe), with a
 * threshold so flat skin and JPEG noise are left alone, and with the
 * brightening and darkening capped at a few L* so a strong edge gains
 * acutance without a halo. A super-resolution network (ESRGAN) was measured
 * and not adopted: see docs/decisions/020-framing-and-resolution.md.
 */
import type { Sharp } from "sharp";

/** Enlargements below this are left as the resize made them. */
const MIN_SCALE = 1.15;

export interface DetailSharpen {
  /** Gaussian sigma of the mask, in output pixels. */
  sigma: number;
  /** Slope below the threshold (flat areas): 0 leaves them alone. */
  m1: number;
  /** Slope above the threshold (edges and texture). */
  m2: number;
  /** Threshold between flat and textured, in L*. */
  x1: number;
  /** Most brightening and darkening, in L* (bounds the overshoot at an edge). */
  y2: number;
  y3: number;
}

/**
 * The sharpening for an enlargement by `scale`, or undefined when none is
 * needed: the mask widens with the enlargement (a source pixel spans `scale`
 * output pixels) and the gain grows with it. Tuned on a soft
 * step edge and on the test portraits reduced and enlarged again (see
 * bench/framing-quality.bench.ts): a wider mask or a larger cap adds a halo.
 */
export function detailSharpen(scale: number): DetailSharpen | undefined {
  if (scale < MIN_SCALE) return undefined;
  const k = Math.min(4, scale);
  return { sigma: 0.5 * k, m1: 0, m2: 3 * k, x1: 1.5, y2: 2, y3: 2 };
}

/** `p` (a pipeline that enlarges by `scale`) with the detail sharpening appended. */
export function restoreDetail(p: Sharp, scale: number): Sharp {
  const s = detailSharpen(scale);
  return s ? p.sharpen(s) : p;
}
