/** Cheek and face layers: blush, highlighter, contour, bronzer and faux freckles. */
import { blendLut, type Canvas, channelLut, fromGamma, softLight, toGamma } from "./blend.ts";
import { hexToLinear, hexToRgb } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { CHEEK_L, CHEEK_R, FACE_OVAL } from "./landmarks.ts";
import { gridMask, multiplyLut, SOFT_STEP, toGrid } from "./makeup-layer.ts";
import {
  bandPolygon,
  boost,
  boundsOf,
  createMask,
  feather,
  fillEllipse,
  fillPolygon,
  mid,
  type Point,
} from "./masks.ts";

export function blushLayer(img: Canvas, g: FaceGeometry, hex: string, t: number): void {
  const c = hexToRgb(hex).map((v) => v / 255);
  const sigma = 0.05 * g.fw;
  const lut = channelLut((v, k) => fromGamma(softLight(toGamma(v), c[k])));
  for (const idx of [CHEEK_R, CHEEK_L]) {
    // A wide, soft mask: rasterised and feathered at half resolution.
    const m = gridMask(img, pick(g, idx), sigma * 3, SOFT_STEP);
    fillPolygon(m, toGrid(pick(g, idx), SOFT_STEP));
    feather(m, sigma / SOFT_STEP);
    boost(m, 1.3);
    blendLut(img, m, 0.7 * t, lut, SOFT_STEP);
  }
}

export function highlighterLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const spots: [Point, number, number, number][] = [];
  for (const [a, b] of [[116, 118], [345, 347]]) {
    const c = mid(p[a], p[b]);
    const ang = Math.atan2(p[b][1] - p[a][1], p[b][0] - p[a][0]);
    spots.push([[c[0] + g.up[0] * 0.02 * fw, c[1] + g.up[1] * 0.02 * fw], 0.075 * fw, 0.025 * fw, ang]);
  }
  const nb = mid(p[168], p[195]);
  spots.push([nb, 0.012 * fw, 0.09 * fw, Math.atan2(g.up[1], g.up[0]) + Math.PI / 2]);
  const bow = p[0];
  spots.push([[bow[0] + g.up[0] * 0.02 * fw, bow[1] + g.up[1] * 0.02 * fw], 0.018 * fw, 0.008 * fw, 0]);
  const q = SOFT_STEP;
  const m = gridMask(img, spots.map((s) => s[0]), 0.2 * fw, q);
  for (const [c, rx, ry, ang] of spots) fillEllipse(m, c[0] / q, c[1] / q, rx / q, ry / q, ang);
  feather(m, 0.018 * fw / q);
  const glow = hexToLinear("#FFF0DC");
  const lut = channelLut((v, k) => 1 - (1 - v) * (1 - glow[k] * 0.45));
  blendLut(img, m, 0.45 * t, lut, q);
}

export function contourLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const q = SOFT_STEP;
  const m = gridMask(img, pick(g, FACE_OVAL), 0.05 * fw, q);
  for (const [ear, mouth] of [[234, 61], [454, 291]]) {
    const a: Point = [p[ear][0] - g.up[0] * 0.06 * fw, p[ear][1] - g.up[1] * 0.06 * fw];
    const b = mid(a, p[mouth], 0.45);
    fillPolygon(m, toGrid(bandPolygon([a, mid(a, b), b], (u) => 0.035 * fw * (1 - 0.6 * u)), q));
  }
  // Sides of the nose.
  for (const [top, bottom] of [[193, 129], [417, 358]]) {
    if (p[top] && p[bottom]) {
      fillPolygon(m, toGrid(bandPolygon([p[top], p[bottom]], () => 0.008 * fw), q));
    }
  }
  feather(m, 0.03 * fw / q);
  // The feather halves a band this narrow: lift its core back toward full.
  boost(m, 1.7);
  blendLut(img, m, 0.7 * t, multiplyLut(0.7, 0.62, 0.58), q);
}

export function bronzerLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const q = SOFT_STEP;
  const m = gridMask(img, pick(g, FACE_OVAL), 0.05 * fw, q);
  for (const i of [54, 284]) fillEllipse(m, p[i][0] / q, p[i][1] / q, 0.1 * fw / q, 0.07 * fw / q);
  for (const i of [123, 352]) fillEllipse(m, p[i][0] / q, p[i][1] / q, 0.09 * fw / q, 0.06 * fw / q);
  fillEllipse(m, p[4][0] / q, p[4][1] / q, 0.05 * fw / q, 0.04 * fw / q);
  feather(m, 0.05 * fw / q);
  boost(m, 1.5);
  blendLut(img, m, 0.65 * t, multiplyLut(0.88, 0.72, 0.55), q);
}

export function frecklesLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const centres = [p[5], p[118], p[347], p[101], p[330], p[50], p[280]];
  const rect = boundsOf(centres, 0.12 * fw, img.width, img.height);
  const m = createMask(rect);
  let seed = 1234567;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let i = 0; i < 90; i++) {
    const c = centres[i % centres.length];
    const r = 0.0025 * fw + rnd() * 0.004 * fw;
    fillEllipse(
      m,
      c[0] + (rnd() - 0.5) * 0.14 * fw,
      c[1] + (rnd() - 0.5) * 0.07 * fw,
      r,
      r * 0.8,
      0,
      0.5 + rnd() * 0.5,
    );
  }
  feather(m, Math.max(0.6, 0.0018 * fw));
  blendLut(img, m, 0.55 * t, multiplyLut(0.68, 0.52, 0.42));
}
