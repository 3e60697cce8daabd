/**
 * Glam Studio layers: base, contour/bronzer, blush, highlighter, eyeshadow,
 * brows, eyeliner, lashes, lipstick and freckles. Each layer rasterises a
 * polygon from the face mesh over the face's region only, feathers it with a
 * Gaussian scaled to the face width, and blends a texture-preserving effect.
 */
import type {
  BaseMakeupEntry,
  CatalogEntry,
  ExtraLayer,
  ExtrasEntry,
  LipEntry,
  LookStyleEntry,
} from "../../styling/catalog.ts";
import { CATALOG } from "../../styling/catalog.ts";
import type { Intensity, SelectedOptions } from "../../styling/option-keys.ts";
import { blendLayer, type Canvas, fromGamma, meanLuminance, softLight, toGamma } from "./blend.ts";
import { hexToRgb, linearToLab, rgbToLinear, SRGB_TO_LINEAR } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import {
  BROW_L,
  BROW_LOW_L,
  BROW_LOW_R,
  BROW_R,
  CHEEK_L,
  CHEEK_R,
  CREASE_L,
  CREASE_R,
  EYE_L,
  EYE_R,
  FACE_OVAL,
  LASH_L,
  LASH_R,
  LIPS_INNER,
  LIPS_OUTER,
  SKIN_SAMPLES,
} from "./landmarks.ts";
import {
  bandPolygon,
  blurPlane,
  boost,
  boundsOf,
  createMask,
  feather,
  fillEllipse,
  fillPolygon,
  type Mask,
  mid,
  type Point,
  subtract,
} from "./masks.ts";

export interface MakeupPlan {
  base?: { entry: BaseMakeupEntry; t: number };
  cheeks?: { entry: CatalogEntry; t: number };
  eyeshadow?: { entry: CatalogEntry; t: number };
  lips?: { entry: LipEntry; t: number };
  extras: { layer: ExtraLayer; t: number }[];
}

const byId = <T extends CatalogEntry>(list: readonly T[], id: string | undefined) =>
  id ? list.find((e) => e.id === id) : undefined;

/** Resolves the look preset and the explicit choices into layers (explicit choices win). */
export function planMakeup(
  options: SelectedOptions,
  intensity: Intensity,
): MakeupPlan {
  const m = CATALOG.makeup;
  const look = byId<LookStyleEntry>(m.lookStyles, options.lookStyle);
  const preset = look?.preset ?? {};
  const lookT = clamp01(intensity.lookStyle / 100);
  const choose = <T extends CatalogEntry>(
    list: readonly T[],
    key: "eyeshadow" | "lips" | "baseMakeup" | "cheeks" | "extras",
  ): { entry: T; t: number } | undefined => {
    const explicit = options[key];
    if (explicit && explicit !== list[0].id) {
      const entry = byId(list, explicit);
      if (entry) return { entry, t: clamp01(intensity[key] / 100) };
    }
    const fromPreset = byId(list, preset[key]);
    return fromPreset ? { entry: fromPreset, t: lookT } : undefined;
  };
  const extras = choose<ExtrasEntry>(m.extras, "extras");
  return {
    base: choose<BaseMakeupEntry>(m.baseMakeup, "baseMakeup"),
    cheeks: choose(m.cheeks, "cheeks"),
    eyeshadow: choose(m.eyeshadow, "eyeshadow"),
    lips: choose<LipEntry>(m.lips, "lips"),
    extras: (extras?.entry.layers ?? []).map((layer) => ({
      layer,
      t: extras!.t,
    })),
  };
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

function linearHex(hex: string): [number, number, number] {
  return rgbToLinear(hexToRgb(hex));
}

/** Applies every planned layer to the canvas, in painting order. */
export function applyMakeup(img: Canvas, g: FaceGeometry, plan: MakeupPlan): void {
  const has = (l: ExtraLayer) => plan.extras.find((e) => e.layer === l);
  if (plan.base && plan.base.t > 0) baseLayer(img, g, plan.base.entry, plan.base.t);
  const contour = has("contour");
  if (contour) contourLayer(img, g, contour.t);
  const bronzer = has("bronzer");
  if (bronzer) bronzerLayer(img, g, bronzer.t);
  if (plan.cheeks?.entry.hex) blushLayer(img, g, plan.cheeks.entry.hex, plan.cheeks.t);
  const freckles = has("freckles");
  if (freckles) frecklesLayer(img, g, freckles.t);
  const hl = has("highlighter");
  if (hl) highlighterLayer(img, g, hl.t);
  if (plan.eyeshadow?.entry.hex) {
    eyeshadowLayer(img, g, plan.eyeshadow.entry.hex, plan.eyeshadow.t);
  }
  const brows = has("brows");
  if (brows) browLayer(img, g, brows.t);
  const wing = has("winged-eyeliner");
  const liner = has("eyeliner");
  if (wing || liner) linerLayer(img, g, (wing ?? liner)!.t, !!wing);
  const lashes = has("lashes");
  if (lashes) lashLayer(img, g, lashes.t);
  if (plan.lips && plan.lips.t > 0) lipsLayer(img, g, plan.lips.entry, plan.lips.t);
}

// ---------------------------------------------------------------- lips

/** The lip mask (outer lip minus the mouth opening), feathered. */
export function lipMask(img: Canvas, g: FaceGeometry): Mask {
  const outer = pick(g, LIPS_OUTER), inner = pick(g, LIPS_INNER);
  const sigma = Math.max(0.8, 0.006 * g.fw);
  const rect = boundsOf(outer, sigma * 4, img.width, img.height);
  const m = createMask(rect);
  fillPolygon(m, outer);
  feather(m, sigma);
  const hole = createMask(rect);
  fillPolygon(hole, inner);
  feather(hole, sigma * 0.5);
  boost(hole, 2.2);
  return subtract(m, hole);
}

export function lipsLayer(img: Canvas, g: FaceGeometry, entry: LipEntry, t: number): void {
  const m = lipMask(img, g);
  const ym = Math.max(0.005, meanLuminance(img, m, 0.5));
  const finish = entry.finish ?? "satin";
  const texture = finish === "matte" ? 0.75 : 1;
  const gloss = finish === "gloss" ? 1.4 : finish === "satin" ? 0.45 : 0;
  const d = img.data;
  if (!entry.hex) {
    // Clear gloss: keep the colour, add shine on the highlights.
    blendLayer(img, m, t, (px) => {
      const y = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
      const s = 1.6 * Math.max(0, y - 1.15 * ym) + 0.04 * y / ym * ym;
      px[0] = px[0] * 1.04 + s;
      px[1] = px[1] * 1.04 + s;
      px[2] = px[2] * 1.04 + s;
    });
    return;
  }
  const c = linearHex(entry.hex);
  // Normalise the texture term so the mean lip lands on the swatch.
  let norm = 1;
  if (texture !== 1) {
    let sum = 0, n = 0;
    for (let r = 0; r < m.h; r++) {
      for (let col = 0; col < m.w; col++) {
        const w = m.data[r * m.w + col];
        if (w < 0.5) continue;
        const i = ((m.y + r) * img.width + m.x + col) * 3;
        const lum = 0.2126 * SRGB_TO_LINEAR[d[i]] + 0.7152 * SRGB_TO_LINEAR[d[i + 1]] +
          0.0722 * SRGB_TO_LINEAR[d[i + 2]];
        sum += w * (lum / ym) ** texture;
        n += w;
      }
    }
    if (n > 0 && sum > 0) norm = n / sum;
  }
  // Teeth guard: bright, low-chroma pixels near the mouth opening stay.
  blendLayer(img, m, t, (px, x, y) => {
    const lum = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
    const i = (y * img.width + x) * 3;
    const mx = Math.max(d[i], d[i + 1], d[i + 2]), mn = Math.min(d[i], d[i + 1], d[i + 2]);
    const chroma = (mx - mn) / (mx + 1);
    const ratio = lum / ym;
    let k = texture === 1 ? ratio : norm * ratio ** texture;
    if (k > 2.2) k = 2.2;
    const spec = gloss * Math.max(0, lum - 1.3 * ym);
    let er = c[0] * k + spec, eg = c[1] * k + spec, eb = c[2] * k + spec;
    if (ratio > 2 && chroma < 0.18) {
      // Likely a tooth showing through the feathered edge: keep it.
      er = px[0];
      eg = px[1];
      eb = px[2];
    }
    px[0] = er;
    px[1] = eg;
    px[2] = eb;
  });
}

// ---------------------------------------------------------------- eyes

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

/** Polyline y at column x (linear interpolation; clamps at the ends). */
function lineYAt(line: Point[], x: number): number {
  const pts = [...line].sort((a, b) => a[0] - b[0]);
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
  const c = linearHex(hex);
  const cy = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  const light = cy > 0.3;
  const sigma = 0.02 * g.fw;
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
    for (let r = 0; r < m.h; r++) {
      const y = m.y + r + 0.5;
      for (let col = 0; col < m.w; col++) {
        const x = m.x + col + 0.5;
        const ly = lineYAt(lash, x), by = lineYAt(brow, x);
        const span = Math.max(1, ly - by);
        const u = clamp01((ly - y) / span);
        m.data[r * m.w + col] *= 1 - 0.8 * u;
      }
    }
    subtract(m, eyeOpenings(g, rect));
    if (light) {
      const cs = [toGamma(c[0]), toGamma(c[1]), toGamma(c[2])];
      blendLayer(img, m, 0.85 * t, (px) => {
        for (let k = 0; k < 3; k++) {
          px[k] = fromGamma(softLight(toGamma(px[k]), cs[k])) * 1.03;
        }
      });
    } else {
      blendLayer(img, m, 0.7 * t, (px) => {
        px[0] *= c[0] * 2.2 > 1 ? 1 : c[0] * 2.2 + 0.15;
        px[1] *= c[1] * 2.2 > 1 ? 1 : c[1] * 2.2 + 0.15;
        px[2] *= c[2] * 2.2 > 1 ? 1 : c[2] * 2.2 + 0.15;
      });
    }
  }
}

function linerLayer(img: Canvas, g: FaceGeometry, t: number, wing: boolean): void {
  const ink = linearHex("#161012");
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
    blendLayer(img, m, 0.9 * t, (px) => {
      px[0] = ink[0];
      px[1] = ink[1];
      px[2] = ink[2];
    });
  }
}

function lashLayer(img: Canvas, g: FaceGeometry, t: number): void {
  for (const lashIdx of [LASH_R, LASH_L]) {
    const lash = pick(g, lashIdx);
    const w = 0.006 * g.fw;
    const band = bandPolygon(lash, (u) => w * (0.5 + 1.0 * (1 - u)));
    const rect = boundsOf(lash, w * 8, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, band);
    feather(m, Math.max(0.6, 0.003 * g.fw));
    subtract(m, eyeOpenings(g, rect));
    blendLayer(img, m, 0.8 * t, (px) => {
      px[0] *= 0.25;
      px[1] *= 0.23;
      px[2] *= 0.23;
    });
  }
}

function browLayer(img: Canvas, g: FaceGeometry, t: number): void {
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

// ---------------------------------------------------------------- cheeks

function blushLayer(img: Canvas, g: FaceGeometry, hex: string, t: number): void {
  const c = hexToRgb(hex).map((v) => v / 255);
  const sigma = 0.05 * g.fw;
  for (const idx of [CHEEK_R, CHEEK_L]) {
    const poly = pick(g, idx);
    const rect = boundsOf(poly, sigma * 3, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, poly);
    feather(m, sigma);
    boost(m, 1.3);
    blendLayer(img, m, 0.7 * t, (px) => {
      for (let k = 0; k < 3; k++) {
        px[k] = fromGamma(softLight(toGamma(px[k]), c[k]));
      }
    });
  }
}

function highlighterLayer(img: Canvas, g: FaceGeometry, t: number): void {
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
  const rect = boundsOf(spots.map((s) => s[0]), 0.2 * fw, img.width, img.height);
  const m = createMask(rect);
  for (const [c, rx, ry, ang] of spots) fillEllipse(m, c[0], c[1], rx, ry, ang);
  feather(m, 0.018 * fw);
  const glow = linearHex("#FFF0DC");
  blendLayer(img, m, 0.45 * t, (px) => {
    for (let k = 0; k < 3; k++) px[k] = 1 - (1 - px[k]) * (1 - glow[k] * 0.45);
  });
}

function contourLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const rect = boundsOf(pick(g, FACE_OVAL), 0.05 * fw, img.width, img.height);
  const m = createMask(rect);
  for (const [ear, mouth] of [[234, 61], [454, 291]]) {
    const a: Point = [p[ear][0] - g.up[0] * 0.06 * fw, p[ear][1] - g.up[1] * 0.06 * fw];
    const b = mid(a, p[mouth], 0.45);
    fillPolygon(m, bandPolygon([a, mid(a, b), b], (u) => 0.035 * fw * (1 - 0.6 * u)));
  }
  // Sides of the nose.
  for (const [top, bottom] of [[193, 129], [417, 358]]) {
    if (p[top] && p[bottom]) {
      fillPolygon(m, bandPolygon([p[top], p[bottom]], () => 0.008 * fw));
    }
  }
  feather(m, 0.03 * fw);
  blendLayer(img, m, 0.55 * t, (px) => {
    px[0] *= 0.72;
    px[1] *= 0.66;
    px[2] *= 0.64;
  });
}

function bronzerLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const rect = boundsOf(pick(g, FACE_OVAL), 0.05 * fw, img.width, img.height);
  const m = createMask(rect);
  for (const i of [54, 284]) fillEllipse(m, p[i][0], p[i][1], 0.1 * fw, 0.07 * fw);
  for (const i of [123, 352]) fillEllipse(m, p[i][0], p[i][1], 0.09 * fw, 0.06 * fw);
  fillEllipse(m, p[4][0], p[4][1], 0.05 * fw, 0.04 * fw);
  feather(m, 0.05 * fw);
  blendLayer(img, m, 0.5 * t, (px) => {
    px[0] *= 0.9;
    px[1] *= 0.76;
    px[2] *= 0.6;
  });
}

function frecklesLayer(img: Canvas, g: FaceGeometry, t: number): void {
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
  blendLayer(img, m, 0.55 * t, (px) => {
    px[0] *= 0.68;
    px[1] *= 0.52;
    px[2] *= 0.42;
  });
}

// ---------------------------------------------------------------- base

/** Mean skin colour (linear) sampled at mesh points on plain skin. */
export function skinMeanLinear(img: Canvas, g: FaceGeometry): [number, number, number] {
  const s = [0, 0, 0];
  let n = 0;
  const d = img.data;
  for (const idx of SKIN_SAMPLES) {
    const [px, py] = g.pts[idx];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const x = Math.round(px) + dx, y = Math.round(py) + dy;
        if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
        const i = (y * img.width + x) * 3;
        s[0] += SRGB_TO_LINEAR[d[i]];
        s[1] += SRGB_TO_LINEAR[d[i + 1]];
        s[2] += SRGB_TO_LINEAR[d[i + 2]];
        n++;
      }
    }
  }
  return n ? [s[0] / n, s[1] / n, s[2] / n] : [0.4, 0.3, 0.25];
}

/** The skin area the base layer may touch: face oval minus eyes, brows and lips. */
export function baseMask(img: Canvas, g: FaceGeometry): Mask {
  const oval = pick(g, FACE_OVAL);
  const rect = boundsOf(oval, 0.02 * g.fw, img.width, img.height);
  const m = createMask(rect);
  fillPolygon(m, oval);
  feather(m, 0.02 * g.fw);
  // Pull the edge inward: only the inner part is fully covered.
  for (let i = 0; i < m.data.length; i++) m.data[i] = clamp01((m.data[i] - 0.3) / 0.6);
  const holes = createMask(rect);
  fillPolygon(holes, pick(g, EYE_R));
  fillPolygon(holes, pick(g, EYE_L));
  fillPolygon(holes, pick(g, BROW_R));
  fillPolygon(holes, pick(g, BROW_L));
  fillPolygon(holes, pick(g, LIPS_OUTER));
  feather(holes, 0.012 * g.fw);
  boost(holes, 2.5);
  return subtract(m, holes);
}

export function baseLayer(img: Canvas, g: FaceGeometry, entry: BaseMakeupEntry, t: number): void {
  const m = baseMask(img, g);
  const skin = skinMeanLinear(img, g);
  const skinLab = linearToLab(skin[0], skin[1], skin[2]);
  const ys = 0.2126 * skin[0] + 0.7152 * skin[1] + 0.0722 * skin[2];
  const { w, h } = m;
  const n = w * h;
  const d = img.data;
  // Planes: linear RGB and a skin-likelihood weight (hair strands, glasses and
  // shadows far from the skin colour are left alone).
  const R = new Float32Array(n), G = new Float32Array(n), B = new Float32Array(n);
  const W = new Float32Array(n);
  for (let r = 0; r < h; r++) {
    const y = m.y + r;
    for (let c = 0; c < w; c++) {
      const x = m.x + c;
      const i = (y * img.width + x) * 3, k = r * w + c;
      const lr = SRGB_TO_LINEAR[d[i]], lg = SRGB_TO_LINEAR[d[i + 1]], lb = SRGB_TO_LINEAR[d[i + 2]];
      R[k] = lr;
      G[k] = lg;
      B[k] = lb;
      if (m.data[k] > 0.001) {
        const lab = linearToLab(lr, lg, lb);
        const de = Math.hypot((lab[0] - skinLab[0]) * 0.6, lab[1] - skinLab[1], lab[2] - skinLab[2]);
        const sk = clamp01(1 - (de - 14) / 16);
        W[k] = sk;
        m.data[k] *= sk;
      }
    }
  }
  const smoothing = entry.smoothing ?? 0.4, evening = entry.evening ?? 0.4;
  const fine = 0.008 * g.fw, broad = 0.045 * g.fw;
  const weighted = (plane: Float32Array, sigma: number) => {
    const out = new Float32Array(n);
    for (let k = 0; k < n; k++) out[k] = plane[k] * W[k];
    blurPlane(out, w, h, sigma);
    return out;
  };
  const Wf = Float32Array.from(W);
  blurPlane(Wf, w, h, fine);
  const Wb = Float32Array.from(W);
  blurPlane(Wb, w, h, broad);
  const fr = weighted(R, fine), fg = weighted(G, fine), fb = weighted(B, fine);
  const br = weighted(R, broad), bg = weighted(G, broad), bb = weighted(B, broad);
  const tint = entry.hex ? linearHex(entry.hex) : undefined;
  let tr = 1, tg = 1, tb = 1;
  if (tint) {
    const yt = 0.2126 * tint[0] + 0.7152 * tint[1] + 0.0722 * tint[2];
    tr = 1 + 0.25 * ((tint[0] / yt) / (skin[0] / ys) - 1);
    tg = 1 + 0.25 * ((tint[1] / yt) / (skin[1] / ys) - 1);
    tb = 1 + 0.25 * ((tint[2] / yt) / (skin[2] / ys) - 1);
  }
  const detailKeep = 1 - 0.8 * smoothing;
  const even = 0.7 * evening;
  const surface = entry.surface ?? "natural";
  blendLayer(img, m, t, (px, x, y) => {
    const k = (y - m.y) * w + (x - m.x);
    const wf = Wf[k] > 1e-4 ? 1 / Wf[k] : 0, wb = Wb[k] > 1e-4 ? 1 / Wb[k] : 0;
    if (wf === 0 || wb === 0) return;
    const out = [0, 0, 0];
    const planes = [[fr, br], [fg, bg], [fb, bb]] as const;
    for (let ch = 0; ch < 3; ch++) {
      const smooth = planes[ch][0][k] * wf, low = planes[ch][1][k] * wb;
      const evened = smooth - (smooth - low) * even;
      out[ch] = evened + (px[ch] - smooth) * detailKeep;
    }
    out[0] *= tr;
    out[1] *= tg;
    out[2] *= tb;
    const lum = 0.2126 * out[0] + 0.7152 * out[1] + 0.0722 * out[2];
    if (surface === "matte" && lum > ys * 1.15) {
      const f = (ys * 1.15 + (lum - ys * 1.15) * 0.45) / lum;
      out[0] *= f;
      out[1] *= f;
      out[2] *= f;
    } else if (surface === "dewy") {
      const s = 0.35 * Math.max(0, lum - ys * 1.05);
      out[0] += s;
      out[1] += s;
      out[2] += s * 0.95;
    }
    px[0] = out[0];
    px[1] = out[1];
    px[2] = out[2];
  });
}
