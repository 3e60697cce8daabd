/** Eye makeup: eyeshadow, eyeliner (plain or winged), lashes and brows; the eye openings are never painted. */
import { blendLayer, blendLut, type Canvas, channelLut, fromGamma, softLight, toGamma } from "./blend.ts";
import { hexToLinear } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import {
  BROW_L,
  BROW_LOW_L,
  BROW_LOW_R,
  BROW_R,
  CREASE_L,
  CREASE_R,
  EYE_L,
  EYE_R,
  LASH_L,
  LASH_R,
} from "./landmarks.ts";
import { clamp01, multiplyLut } from "./makeup-layer.ts";
import {
  bandPolygon,
  boost,
  boundsOf,
  createMask,
  feather,
  fillPolygon,
  type Mask,
  mid,
  type Point,
  subtract,
} from "./masks.ts";
import { skinMeanLinear } from "./skin-tone.ts";

/** The eye openings (eyeball + iris), dilated a little: never painted. */
function eyeOpenings(
  g: FaceGeometry,
  rect: { x: number; y: number; w: number; h: number },
): Mask {
  const m = createMask(rect);
  fillPolygon(m, pick(g, EYE_R));
  fillPolygon(m, pick(g, EYE_L));
  feather(m, Math.max(0.7, 0.004 * g.fw));
  return boost(m, 2.5);
}

const sortedByX = (line: Point[]): Point[] => [...line].sort((a, b) => a[0] - b[0]);

/** Polyline y at column x (points sorted by x; linear interpolation; clamps at the ends). */
function lineYAt(pts: Point[], x: number): number {
  if (x <= pts[0][0]) return pts[0][1];
  for (let i = 1; i < pts.length; i++) {
    if (x <= pts[i][0]) {
      const a = pts[i - 1], b = pts[i];
      const t = (x - a[0]) / (b[0] - a[0] || 1);
      return a[1] + (b[1] - a[1]) * t;
    }
  }
  return pts[pts.length - 1][1];
}

export function eyeshadowLayer(img: Canvas, g: FaceGeometry, hex: string, t: number): void {
  const c = hexToLinear(hex);
  const cy = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  const light = cy > 0.3;
  const sigma = 0.02 * g.fw;
  const cs = [toGamma(c[0]), toGamma(c[1]), toGamma(c[2])];
  const lut = light
    ? channelLut((v, k) => fromGamma(softLight(toGamma(v), cs[k])) * 1.03)
    : multiplyLut(...c.map((ck) => ck * 2.2 > 1 ? 1 : ck * 2.2 + 0.15) as [number, number, number]);
  for (
    const [lashIdx, creaseIdx, browIdx] of [
      [LASH_R, CREASE_R, BROW_LOW_R],
      [LASH_L, CREASE_L, BROW_LOW_L],
    ] as const
  ) {
    const lash = pick(g, lashIdx), crease = pick(g, creaseIdx), brow = pick(g, browIdx);
    const outer = lash[0], inner = lash[lash.length - 1];
    const wingOut: Point = [
      outer[0] + (outer[0] - inner[0]) * 0.12 + g.up[0] * 0.03 * g.fw,
      outer[1] + (outer[1] - inner[1]) * 0.12 + g.up[1] * 0.03 * g.fw,
    ];
    const poly: Point[] = [wingOut, ...lash, ...[...crease].reverse()];
    const rect = boundsOf([...poly, ...brow], sigma * 3, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, poly);
    feather(m, sigma * 0.6);
    // Gradient: 1 at the lash line, fading to 0.2 at the brow.
    const lashS = sortedByX(lash), browS = sortedByX(brow);
    const lys = new Float32Array(m.w), spans = new Float32Array(m.w);
    for (let col = 0; col < m.w; col++) {
      const x = m.x + col + 0.5;
      lys[col] = lineYAt(lashS, x);
      spans[col] = Math.max(1, lys[col] - lineYAt(browS, x));
    }
    for (let r = 0; r < m.h; r++) {
      const y = m.y + r + 0.5;
      const o = r * m.w;
      for (let col = 0; col < m.w; col++) {
        const u = clamp01((lys[col] - y) / spans[col]);
        m.data[o + col] *= 1 - 0.8 * u;
      }
    }
    subtract(m, eyeOpenings(g, rect));
    blendLut(img, m, light ? 0.85 * t : 0.7 * t, lut);
  }
}

export function linerLayer(img: Canvas, g: FaceGeometry, t: number, wing: boolean): void {
  const ink = hexToLinear("#161012");
  const inkLut = channelLut((_, k) => ink[k]);
  for (const lashIdx of [LASH_R, LASH_L]) {
    const lash = pick(g, lashIdx);
    const outer = lash[0], inner = lash[lash.length - 1];
    const thick = 0.011 * g.fw;
    // Sit the line on the lid, just above the lash line.
    const lifted = lash.map((p): Point => [
      p[0] + g.up[0] * thick * 0.4,
      p[1] + g.up[1] * thick * 0.4,
    ]);
    const band = bandPolygon(lifted, (u) => thick * (0.35 + 0.65 * (1 - u)));
    const pts: Point[] = [...band];
    const rect = boundsOf([...lash, mid(outer, inner, -0.5)], thick * 8, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, band);
    if (wing) {
      const dx = outer[0] - inner[0], dy = outer[1] - inner[1];
      const len = Math.hypot(dx, dy) || 1;
      const tip: Point = [
        outer[0] + (dx / len) * 0.07 * g.fw + g.up[0] * 0.035 * g.fw,
        outer[1] + (dy / len) * 0.07 * g.fw + g.up[1] * 0.035 * g.fw,
      ];
      const a = lash[1];
      fillPolygon(m, [
        [a[0] + g.up[0] * thick * 1.3, a[1] + g.up[1] * thick * 1.3],
        tip,
        [outer[0] - g.up[0] * thick * 0.1, outer[1] - g.up[1] * thick * 0.1],
      ]);
      pts.push(tip);
    }
    feather(m, Math.max(0.6, 0.0025 * g.fw));
    subtract(m, eyeOpenings(g, rect));
    blendLut(img, m, 0.9 * t, inkLut);
  }
}

export function lashLayer(img: Canvas, g: FaceGeometry, t: number): void {
  for (const lashIdx of [LASH_R, LASH_L]) {
    const lash = pick(g, lashIdx);
    const w = 0.006 * g.fw;
    const band = bandPolygon(lash, (u) => w * (0.5 + 1.0 * (1 - u)));
    const rect = boundsOf(lash, w * 8, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, band);
    feather(m, Math.max(0.6, 0.003 * g.fw));
    subtract(m, eyeOpenings(g, rect));
    blendLut(img, m, 0.8 * t, multiplyLut(0.25, 0.23, 0.23));
  }
}

export function browLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const skin = skinMeanLinear(img, g);
  const ys = 0.2126 * skin[0] + 0.7152 * skin[1] + 0.0722 * skin[2];
  for (const idx of [BROW_R, BROW_L]) {
    const poly = pick(g, idx);
    const rect = boundsOf(poly, 0.03 * g.fw, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, poly);
    feather(m, Math.max(0.8, 0.005 * g.fw));
    blendLayer(img, m, 0.6 * t, (px) => {
      const y = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
      // Darker pixels (brow hair) are deepened more than the skin between them.
      const hairiness = clamp01((ys - y) / (ys * 0.6) + 0.35);
      const f = 1 - 0.5 * hairiness;
      px[0] *= f * 1.0;
      px[1] *= f * 0.93;
      px[2] *= f * 0.88;
    });
  }
}
