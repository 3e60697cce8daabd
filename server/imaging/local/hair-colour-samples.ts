/**
 * The colour model hair recolouring relies on: Lab samples of skin (mesh
 * points), hair (above the forehead) and clothing (below the chin), reduced to
 * a robust mean and spread, or to a small palette.
 */
import type { Canvas } from "./blend.ts";
import { type Lab, linearToLab, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { NOSE_BRIDGE, NOSE_TIP, SKIN_SAMPLES } from "./landmarks.ts";
import type { Point } from "./masks.ts";
import { personAt, type PersonMask } from "./person-mask.ts";

/**
 * The colour tables' resolution per sRGB channel (32 levels: 8 values per cell): the hair colour model
 * and the body's skin are judged per cell of RGB >> 3, once each.
 */
export const CN = 32;

/** An sRGB colour's cell in the colour tables (see CN): red, green and blue >> 3, red the most significant. */
export const cellOf = (r: number, g: number, b: number): number =>
  ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);

/** The recolour's strength (the rest of the original colour shows through, like dye on real hair). */
export const OPACITY = 0.88;

/** The logistic curve the colour model's likenesses are read through. */
export const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

export interface Stats {
  mean: Lab;
  sd: number;
  n: number;
}

export function labAt(img: Canvas, x: number, y: number): Lab {
  const i = (y * img.width + x) * 3, d = img.data;
  return linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
}

export function stats(samples: Lab[]): Stats {
  const n = samples.length;
  if (!n) return { mean: [0, 0, 0], sd: 100, n };
  // Median per channel, then the RMS distance to it (robust enough here).
  const med: Lab = [0, 1, 2].map((c) => {
    const v = samples.map((s) => s[c]).sort((a, b) => a - b);
    return v[n >> 1];
  }) as Lab;
  const dists = samples.map((s) => Math.hypot(s[0] - med[0], s[1] - med[1], s[2] - med[2])).sort((a, b) =>
    a - b
  );
  // Drop the farthest 25 % (stray background or skin) before the spread.
  const keep = dists.slice(0, Math.max(1, Math.floor(n * 0.75)));
  const sd = Math.sqrt(keep.reduce((a, d) => a + d * d, 0) / keep.length);
  return { mean: med, sd, n };
}

/**
 * The face's skin: 3 x 3 pixels 2 px apart about each of SKIN_SAMPLES. With `coveredEye`, the centre of an eye
 * that hair covers (EyeContour.covered): the hair falling over it lies over that side of the face and the
 * forehead too, and sampled as skin it made the skin class a blend of both (sample2@805: L* 48.5 with a spread
 * of 9.2, against her uncovered cheek's 51-66), so that her lengths read as skin and were left undyed. Only
 * the points past the face's centre line on the other side, below the eyes, are sampled then.
 */
export function skinSamples(img: Canvas, g: FaceGeometry, coveredEye?: Point): Lab[] {
  const out: Lab[] = [];
  // From between the eyes toward the covered one.
  const toCovered = coveredEye ? [coveredEye[0] - g.eyeCenter[0], coveredEye[1] - g.eyeCenter[1]] : [0, 0];
  const span = Math.hypot(toCovered[0], toCovered[1]) || 1;
  for (const idx of SKIN_SAMPLES) {
    const [px, py] = g.pts[idx];
    if (coveredEye) {
      const dx = px - g.eyeCenter[0], dy = py - g.eyeCenter[1];
      const across = (dx * toCovered[0] + dy * toCovered[1]) / span;
      if (across > -COVERED_SIDE * g.fw || dx * g.up[0] + dy * g.up[1] > 0) continue;
    }
    for (let dy = -2; dy <= 2; dy += 2) {
      for (let dx = -2; dx <= 2; dx += 2) {
        const x = Math.round(px) + dx, y = Math.round(py) + dy;
        if (x >= 0 && y >= 0 && x < img.width && y < img.height) out.push(labAt(img, x, y));
      }
    }
  }
  return out;
}

/** How far past the face's centre line, toward the uncovered side, skin is sampled by a covered eye (face widths). */
const COVERED_SIDE = 0.05;

/**
 * Candidate hair pixels (inside the person): above the forehead, up to the
 * crown, and beside the temples outside the face oval. They may include
 * forehead skin (a high hairline) or background (a thin matte): hairModel
 * clusters them and keeps the clusters that are not skin.
 */
export function hairSamples(img: Canvas, g: FaceGeometry, person: PersonMask): Lab[] {
  const out: Lab[] = [];
  const top = g.pts[10];
  const stepPx = Math.max(1, Math.round(g.fw / 120));
  const collect = (x0: number, x1: number, y0: number, y1: number) => {
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(img.height, y1); y += stepPx) {
      for (let x = Math.max(0, Math.round(x0)); x < Math.min(img.width, x1); x += stepPx) {
        if (personAt(person, x, y) > 0.7) out.push(labAt(img, x, y));
      }
    }
  };
  // Above the forehead...
  collect(top[0] - 0.35 * g.fw, top[0] + 0.35 * g.fw, top[1] - 0.4 * g.fh, top[1] - 0.06 * g.fh);
  // ...and beside the temples, outside the face oval.
  const l = g.pts[127], r = g.pts[356];
  collect(l[0] - 0.16 * g.fw, l[0] - 0.04 * g.fw, top[1], l[1]);
  collect(r[0] + 0.04 * g.fw, r[0] + 0.16 * g.fw, top[1], r[1]);
  return out;
}

/**
 * The nose's colours, from between the eyes to the tip, 0.07 face widths either side of its line: skin
 * that no hair lies over (strands across a face, a fringe, a beard all leave it bare).
 */
export function noseSamples(img: Canvas, g: FaceGeometry): Lab[] {
  const out: Lab[] = [];
  const top = g.pts[NOSE_BRIDGE[1]], tip = g.pts[NOSE_TIP];
  const half = 0.07 * g.fw, stepPx = Math.max(1, Math.round(g.fw / 120));
  for (let t = 0; t <= 1; t += 0.05) {
    const px = top[0] + (tip[0] - top[0]) * t, y = Math.round(top[1] + (tip[1] - top[1]) * t);
    for (let dx = -half; dx <= half; dx += stepPx) {
      const x = Math.round(px + dx);
      if (x >= 0 && y >= 0 && x < img.width && y < img.height) out.push(labAt(img, x, y));
    }
  }
  return out;
}

/** The share of `samples` nearer (in Lab) to `means[i]` than to any other of `means`, per mean. */
export function nearestShares(samples: Lab[], means: Lab[]): number[] {
  const n = new Array(means.length).fill(0);
  for (const s of samples) {
    let best = 0, bestD = Infinity;
    for (let i = 0; i < means.length; i++) {
      const m = means[i], d = (s[0] - m[0]) ** 2 + (s[1] - m[1]) ** 2 + (s[2] - m[2]) ** 2;
      if (d < bestD) bestD = d, best = i;
    }
    n[best]++;
  }
  return n.map((v) => v / Math.max(1, samples.length));
}

/** A colour class: its mean and its spread along L*, a*, b* (the farthest 20 % dropped). */
export interface AxisStats {
  mean: Lab;
  sd: Lab;
  n: number;
}

export function axisStats(samples: Lab[]): AxisStats {
  const n = samples.length;
  if (!n) return { mean: [0, 0, 0], sd: [100, 100, 100], n };
  const med = stats(samples).mean;
  const keep = [...samples].sort((a, b) =>
    Math.hypot(a[0] - med[0], a[1] - med[1], a[2] - med[2]) -
    Math.hypot(b[0] - med[0], b[1] - med[1], b[2] - med[2])
  ).slice(0, Math.max(1, Math.ceil(n * 0.8)));
  const mean = [0, 1, 2].map((c) => keep.reduce((a, s) => a + s[c], 0) / keep.length) as Lab;
  const sd = [0, 1, 2].map((c) =>
    Math.sqrt(keep.reduce((a, s) => a + (s[c] - mean[c]) ** 2, 0) / keep.length)
  ) as Lab;
  return { mean, sd, n };
}

/**
 * How far apart two colour classes are: the distance between their means
 * over their spread along the line joining the means (Fisher's criterion).
 * Blonde hair and skin can share their lightness and differ only in hue: the
 * spread that counts is the one along the direction that separates them.
 */
export function separation(a: Lab[], b: Lab[]): number {
  const ma = axisStats(a).mean, mb = axisStats(b).mean;
  const d = [mb[0] - ma[0], mb[1] - ma[1], mb[2] - ma[2]];
  const len = Math.hypot(d[0], d[1], d[2]);
  if (len < 1e-6) return 0;
  const u = d.map((v) => v / len);
  const spread = (s: Lab[], m: Lab) => {
    const proj = s.map((p) => (p[0] - m[0]) * u[0] + (p[1] - m[1]) * u[1] + (p[2] - m[2]) * u[2]);
    proj.sort((x, y) => Math.abs(x) - Math.abs(y));
    const keep = proj.slice(0, Math.max(1, Math.ceil(proj.length * 0.8)));
    return keep.reduce((acc, v) => acc + v * v, 0) / keep.length;
  };
  return len / Math.sqrt(spread(a, ma) + spread(b, mb) + 1);
}

/**
 * Clothing below the chin: samples at the chest centre and lower down the
 * torso (long hair falls beside these, rarely across them). Dark clothing is
 * as hair-coloured as the hair it touches; a clothing colour model keeps it
 * out of the mask.
 */
export function clothSamples(img: Canvas, g: FaceGeometry, person: PersonMask): Lab[] {
  const out: Lab[] = [];
  const chinY = g.pts[152][1], cx = g.center[0];
  const stepPx = Math.max(1, Math.round(g.fw / 50));
  const x0 = Math.max(0, Math.round(cx - 0.3 * g.fw)), x1 = Math.min(img.width, cx + 0.3 * g.fw);
  for (const [from, to] of [[0.55, 0.9], [1.1, 1.5]]) {
    const y1 = Math.min(img.height, chinY + to * g.fh);
    for (let y = Math.max(0, Math.round(chinY + from * g.fh)); y < y1; y += stepPx) {
      for (let x = x0; x < x1; x += stepPx) {
        if (personAt(person, x, y) > 0.7) out.push(labAt(img, x, y));
      }
    }
  }
  return out;
}

/**
 * Up to `k` colour clusters of the samples (k-means in Lab, seeded at
 * lightness quantiles so the result is deterministic): clothing is often
 * two-tone. Clusters holding under 10 % of the samples are dropped.
 */
export function palette(samples: Lab[], k: number): Stats[] {
  return clusters(samples, k).map(stats);
}

/** The k-means groups behind palette (groups under 10 % of the samples dropped). */
export function clusters(samples: Lab[], k: number): Lab[][] {
  if (samples.length < 30) return [];
  const byL = [...samples].sort((a, b) => a[0] - b[0]);
  let centres: Lab[] = Array.from({ length: k }, (_, i) => byL[Math.floor(((i + 0.5) / k) * byL.length)]);
  let groups: Lab[][] = [];
  for (let iter = 0; iter < 6; iter++) {
    groups = centres.map(() => []);
    for (const s of samples) {
      let best = 0, bd = Infinity;
      centres.forEach((c, i) => {
        const d = (s[0] - c[0]) ** 2 + (s[1] - c[1]) ** 2 + (s[2] - c[2]) ** 2;
        if (d < bd) bd = d, best = i;
      });
      groups[best].push(s);
    }
    centres = groups.map((g, i) =>
      g.length ? [0, 1, 2].map((c) => g.reduce((a, s) => a + s[c], 0) / g.length) as Lab : centres[i]
    );
  }
  return groups.filter((g) => g.length >= 0.1 * samples.length);
}
