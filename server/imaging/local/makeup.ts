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
import {
  blendLayer,
  blendLut,
  type Canvas,
  channelLut,
  fromGamma,
  maskRow,
  maskSpan,
  meanLuminance,
  softLight,
  toGamma,
} from "./blend.ts";
import { hexToRgb, linearToLab, linearToSrgb, rgbToLinear, SRGB_TO_LINEAR } from "./color.ts";
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

/** Soft layers (large feather sigma) rasterise their masks at 1/SOFT_STEP resolution. */
const SOFT_STEP = 2;

const toGrid = (pts: Point[], step: number): Point[] => pts.map((p): Point => [p[0] / step, p[1] / step]);

/** An empty mask on a 1/step grid around canvas points (padding in canvas pixels). */
function gridMask(img: Canvas, pts: Point[], pad: number, step: number): Mask {
  return createMask(
    boundsOf(toGrid(pts, step), pad / step, Math.ceil(img.width / step), Math.ceil(img.height / step)),
  );
}

const multiplyLut = (r: number, g: number, b: number) => {
  const f = [r, g, b];
  return channelLut((v, k) => v * f[k]);
};

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

/**
 * The lip mask: the mesh's outer lip, feathered, minus the real mouth
 * opening. The mesh's inner outline is only a guide: on a closed mouth it
 * encloses lip (painted), on a smile the teeth reach past it (kept). Each
 * pixel near the mouth is classed by colour against the lip's own mean:
 * teeth are lighter and greyer than lip, the mouth's cavity far darker.
 */
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
  const lip = lipColour(img, m, hole);
  const d = img.data;
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] <= 0) continue;
      const i = ((m.y + r) * img.width + m.x + c) * 3;
      const [L, a, b] = linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
      // Teeth: lighter than the lip and much less red (warm light makes them yellow, not red).
      const teeth = clamp01((L - lip.L - 3) / 5) * clamp01((0.75 * lip.a - a) / (0.15 * lip.a + 1));
      // The cavity (and the tongue's shadow) inside the opening: much darker than lip.
      const cavity = hole.data[k] * clamp01((0.7 * lip.L - L) / (0.15 * lip.L + 1));
      // Inside the mesh's opening, only what does not look like lip is the opening.
      const lipLike = Math.hypot(L - lip.L, a - lip.a, b - lip.b) < 16 ? 1 : 0;
      const open = Math.max(teeth, cavity, hole.data[k] * (1 - lipLike) * 0.6);
      m.data[k] *= 1 - clamp01(open);
    }
  }
  return m;
}

/**
 * The lip's typical Lab: pixels well inside the outer outline and outside the
 * mesh's opening, sorted by lightness, averaged between the 20th and 60th
 * percentile (teeth that reach past the opening and highlights are the
 * lightest, creases the darkest; neither may move the reference).
 */
function lipColour(img: Canvas, m: Mask, hole: Mask): { L: number; a: number; b: number } {
  const labs: [number, number, number][] = [];
  const d = img.data;
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] < 0.9 || hole.data[k] > 0.02) continue;
      const i = ((m.y + r) * img.width + m.x + c) * 3;
      labs.push(linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]));
    }
  }
  if (labs.length < 10) return { L: 50, a: 20, b: 10 };
  labs.sort((p, q) => p[0] - q[0]);
  const from = Math.floor(labs.length * 0.2), to = Math.max(from + 1, Math.floor(labs.length * 0.6));
  const s = [0, 0, 0];
  for (let i = from; i < to; i++) for (let c = 0; c < 3; c++) s[c] += labs[i][c];
  const n = to - from;
  return { L: s[0] / n, a: s[1] / n, b: s[2] / n };
}

/** Linear luminance a well-lit, mid-toned face's skin has; lipstick is lit relative to it. */
const REFERENCE_SKIN_Y = 0.36;

/**
 * How the photo's light scales a colour: the skin's luminance against a
 * well-lit reference (softened, bounded), and a mild share of the skin's
 * colour cast (warm or cool light), so a shade sits in the photo instead of
 * glowing on a dim or tinted one.
 */
export function photoLight(img: Canvas, g: FaceGeometry): [number, number, number] {
  const skin = skinMeanLinear(img, g);
  const y = 0.2126 * skin[0] + 0.7152 * skin[1] + 0.0722 * skin[2];
  const exposure = Math.min(1.15, Math.max(0.6, (y / REFERENCE_SKIN_Y) ** 0.6));
  // Typical skin chromaticity under neutral light (linear r/Y and b/Y); a quarter of the deviation is light.
  const rc = clamp((skin[0] / y / 1.55) ** 0.25, 0.93, 1.07),
    bc = clamp((skin[2] / y / 0.6) ** 0.25, 0.93, 1.07);
  return [exposure * rc, exposure, exposure * bc];
}

const clamp = (v: number, lo: number, hi: number) => v < lo ? lo : v > hi ? hi : v;

/**
 * How strongly a lipstick covers at intensity t: product is opaque, so even
 * the default 60 lays down most of the shade (0.94), 100 all of it, 0 none.
 */
export const lipOpacity = (t: number) => t <= 0 ? 0 : 1 - (1 - clamp01(t)) ** 3;

export function lipsLayer(img: Canvas, g: FaceGeometry, entry: LipEntry, t: number): void {
  const m = lipMask(img, g);
  const ym = Math.max(0.005, meanLuminance(img, m, 0.5));
  const finish = entry.finish ?? "satin";
  const gloss = finish === "gloss" ? 1.4 : finish === "satin" ? 0.45 : 0;
  const opacity = lipOpacity(t);
  if (!entry.hex) {
    // Clear gloss: keep the colour, add shine on the highlights.
    blendLayer(img, m, opacity, (px) => {
      const y = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
      const s = 1.6 * Math.max(0, y - 1.15 * ym) + 0.04 * y / ym * ym;
      px[0] = px[0] * 1.04 + s;
      px[1] = px[1] * 1.04 + s;
      px[2] = px[2] * 1.04 + s;
    });
    return;
  }
  const light = photoLight(img, g);
  const sw = linearHex(entry.hex);
  const c = [sw[0] * light[0], sw[1] * light[1], sw[2] * light[2]];
  const yc = Math.max(0.002, 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]);
  // Every finish keeps the lip's own lines and shading (a flattened texture reads as a
  // sticker; matte differs only by having no shine). Lightness is a cube root of
  // luminance, so a darker shade would shrink the visible texture by (yc/ym)^(1/3):
  // the luminance ratio is raised by the inverse to keep it.
  const texture = Math.min(1.8, Math.max(1, (ym / yc) ** (1 / 3)));
  const d = img.data;
  // Normalise the texture term so the mean lip lands on the shade as lit.
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
  blendLayer(img, m, opacity, (px) => {
    const lum = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
    const ratio = lum / ym;
    let k = texture === 1 ? ratio : norm * ratio ** texture;
    if (k > 2.2) k = 2.2;
    const spec = gloss * Math.max(0, lum - 1.3 * ym);
    px[0] = c[0] * k + spec;
    px[1] = c[1] * k + spec;
    px[2] = c[2] * k + spec;
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
  const c = linearHex(hex);
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

function linerLayer(img: Canvas, g: FaceGeometry, t: number, wing: boolean): void {
  const ink = linearHex("#161012");
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
    blendLut(img, m, 0.8 * t, multiplyLut(0.25, 0.23, 0.23));
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
  const q = SOFT_STEP;
  const m = gridMask(img, spots.map((s) => s[0]), 0.2 * fw, q);
  for (const [c, rx, ry, ang] of spots) fillEllipse(m, c[0] / q, c[1] / q, rx / q, ry / q, ang);
  feather(m, 0.018 * fw / q);
  const glow = linearHex("#FFF0DC");
  const lut = channelLut((v, k) => 1 - (1 - v) * (1 - glow[k] * 0.45));
  blendLut(img, m, 0.45 * t, lut, q);
}

function contourLayer(img: Canvas, g: FaceGeometry, t: number): void {
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

function bronzerLayer(img: Canvas, g: FaceGeometry, t: number): void {
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
  blendLut(img, m, 0.55 * t, multiplyLut(0.68, 0.52, 0.42));
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

/** Base works on a half-resolution grid (masks, fine smoothing) and a quarter one (broad evening). */
const BASE_STEP = 2;

/**
 * The skin area the base layer may touch: face oval minus eyes, brows and
 * lips, on a 1/BASE_STEP grid (sample it with maskRow).
 */
export function baseMask(img: Canvas, g: FaceGeometry): Mask {
  const q = BASE_STEP;
  const oval = pick(g, FACE_OVAL);
  const m = gridMask(img, oval, 0.02 * g.fw, q);
  fillPolygon(m, toGrid(oval, q));
  feather(m, 0.02 * g.fw / q);
  // Pull the edge inward: only the inner part is fully covered.
  for (let i = 0; i < m.data.length; i++) m.data[i] = clamp01((m.data[i] - 0.3) / 0.6);
  const holes = createMask(m);
  for (const idx of [EYE_R, EYE_L, BROW_R, BROW_L, LIPS_OUTER]) fillPolygon(holes, toGrid(pick(g, idx), q));
  feather(holes, 0.012 * g.fw / q);
  boost(holes, 2.5);
  return subtract(m, holes);
}

/**
 * Skin likelihood per colour (hair strands, glasses and shadows far from the
 * skin colour are left alone), cached per 7-bit colour cell: entry 0 = not
 * computed yet, else 1 + round(254 * weight). Reused by every job of a worker.
 */
let skinCache: Uint8Array | undefined;

function skinWeights(skinLab: [number, number, number]): (r: number, g: number, b: number) => number {
  const cache = skinCache ??= new Uint8Array(1 << 21);
  cache.fill(0);
  return (r, g, b) => {
    const key = ((r >> 1) << 14) | ((g >> 1) << 7) | (b >> 1);
    let v = cache[key];
    if (v === 0) {
      const lab = linearToLab(
        SRGB_TO_LINEAR[r | 1],
        SRGB_TO_LINEAR[g | 1],
        SRGB_TO_LINEAR[b | 1],
      );
      const de = Math.hypot((lab[0] - skinLab[0]) * 0.6, lab[1] - skinLab[1], lab[2] - skinLab[2]);
      v = cache[key] = 1 + Math.round(254 * clamp01(1 - (de - 14) / 16));
    }
    return (v - 1) / 254;
  };
}

/** Sums 2x2 cells of the planes (w x h, interleaved `n` channels) into a half-size grid. */
function halve(
  src: Float32Array,
  w: number,
  h: number,
  n: number,
): { data: Float32Array; w: number; h: number } {
  const hw = Math.ceil(w / 2), hh = Math.ceil(h / 2);
  const out = new Float32Array(hw * hh * n);
  for (let y = 0; y < h; y++) {
    const ro = (y >> 1) * hw;
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * n, o = (ro + (x >> 1)) * n;
      for (let c = 0; c < n; c++) out[o + c] += src[s + c];
    }
  }
  return { data: out, w: hw, h: hh };
}

function blurChannels(src: Float32Array, w: number, h: number, n: number, sigma: number): void {
  const plane = new Float32Array(w * h);
  for (let c = 0; c < n; c++) {
    for (let k = 0; k < w * h; k++) plane[k] = src[k * n + c];
    blurPlane(plane, w, h, sigma);
    for (let k = 0; k < w * h; k++) src[k * n + c] = plane[k];
  }
}

export function baseLayer(img: Canvas, g: FaceGeometry, entry: BaseMakeupEntry, t: number): void {
  const q = BASE_STEP;
  const m = baseMask(img, g);
  const skin = skinMeanLinear(img, g);
  const skinLab = linearToLab(skin[0], skin[1], skin[2]);
  const ys = 0.2126 * skin[0] + 0.7152 * skin[1] + 0.0722 * skin[2];
  const weight = skinWeights(skinLab);
  const d = img.data, IW = img.width;
  const [x0, y0, x1, y1] = maskSpan(m, q, IW, img.height);
  const row = new Float32Array(x1 - x0);
  // Skin-weighted linear RGB and the weight, summed on the mask's half-resolution grid.
  const gw = m.w, gh = m.h;
  const S = new Float32Array(gw * gh * 4);
  for (let y = y0; y < y1; y++) {
    const j = (y >> 1) - m.y;
    if (j < 0 || j >= gh || !maskRow(m, q, y, x0, x1, row)) continue;
    let i = (y * IW + x0) * 3;
    for (let x = x0; x < x1; x++, i += 3) {
      const c = (x >> 1) - m.x;
      if (row[x - x0] <= 0.001 || c < 0 || c >= gw) continue;
      const sk = weight(d[i], d[i + 1], d[i + 2]);
      if (sk <= 0) continue;
      const o = (j * gw + c) * 4;
      S[o] += SRGB_TO_LINEAR[d[i]] * sk;
      S[o + 1] += SRGB_TO_LINEAR[d[i + 1]] * sk;
      S[o + 2] += SRGB_TO_LINEAR[d[i + 2]] * sk;
      S[o + 3] += sk;
    }
  }
  const smoothing = entry.smoothing ?? 0.4, evening = entry.evening ?? 0.4;
  const fine = 0.008 * g.fw, broad = 0.045 * g.fw;
  // Broad evening on a quarter grid (sigma ~ 7 cells there), fine smoothing on the half grid.
  const B = halve(S, gw, gh, 4);
  blurChannels(B.data, B.w, B.h, 4, broad / (2 * q));
  blurChannels(S, gw, gh, 4, fine / q);
  const detailKeep = 1 - 0.8 * smoothing;
  const even = 0.7 * evening;
  // Per grid cell: the smooth part of the effect, out = px * detailKeep + O.
  const O = new Float32Array(gw * gh * 3);
  const bd = B.data, bw = B.w, bh = B.h;
  for (let j = 0; j < gh; j++) {
    const gy = Math.min(bh - 1.001, Math.max(0, (j + 0.5) / 2 - 0.5));
    const by0 = gy | 0, fy = gy - by0;
    for (let i = 0; i < gw; i++) {
      const gx = Math.min(bw - 1.001, Math.max(0, (i + 0.5) / 2 - 0.5));
      const bx0 = gx | 0, fx = gx - bx0;
      const p00 = (by0 * bw + bx0) * 4, p01 = p00 + 4, p10 = p00 + bw * 4, p11 = p10 + 4;
      const w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy;
      const k = j * gw + i;
      const sw = S[k * 4 + 3];
      const lw = bd[p00 + 3] * w00 + bd[p01 + 3] * w01 + bd[p10 + 3] * w10 + bd[p11 + 3] * w11;
      for (let ch = 0; ch < 3; ch++) {
        let smooth = skin[ch], low = skin[ch];
        if (sw > 4e-4 && lw > 1.6e-3) {
          smooth = S[k * 4 + ch] / sw;
          low = (bd[p00 + ch] * w00 + bd[p01 + ch] * w01 + bd[p10 + ch] * w10 + bd[p11 + ch] * w11) / lw;
        }
        O[k * 3 + ch] = smooth * (1 - detailKeep) - (smooth - low) * even;
      }
    }
  }
  const tint = entry.hex ? linearHex(entry.hex) : undefined;
  let tr = 1, tg = 1, tb = 1;
  if (tint) {
    const yt = 0.2126 * tint[0] + 0.7152 * tint[1] + 0.0722 * tint[2];
    tr = 1 + 0.25 * ((tint[0] / yt) / (skin[0] / ys) - 1);
    tg = 1 + 0.25 * ((tint[1] / yt) / (skin[1] / ys) - 1);
    tb = 1 + 0.25 * ((tint[2] / yt) / (skin[2] / ys) - 1);
  }
  const surface = entry.surface ?? "natural";
  const matte = surface === "matte", dewy = surface === "dewy";
  for (let y = y0; y < y1; y++) {
    if (!maskRow(m, q, y, x0, x1, row)) continue;
    const gy = Math.min(gh - 1.001, Math.max(0, (y + 0.5) / q - 0.5 - m.y));
    const j0 = gy | 0, fy = gy - j0;
    let i = (y * IW + x0) * 3;
    for (let x = x0; x < x1; x++, i += 3) {
      let a = row[x - x0];
      if (a <= 0.001) continue;
      const r = d[i], gg = d[i + 1], b = d[i + 2];
      a *= weight(r, gg, b) * t;
      if (a < 0.002) continue;
      const gx = Math.min(gw - 1.001, Math.max(0, (x + 0.5) / q - 0.5 - m.x));
      const i0 = gx | 0, fx = gx - i0;
      const p00 = (j0 * gw + i0) * 3, p01 = p00 + 3, p10 = p00 + gw * 3, p11 = p10 + 3;
      const w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy;
      const lr = SRGB_TO_LINEAR[r], lg = SRGB_TO_LINEAR[gg], lb = SRGB_TO_LINEAR[b];
      let er = (lr * detailKeep + O[p00] * w00 + O[p01] * w01 + O[p10] * w10 + O[p11] * w11) * tr;
      let eg = (lg * detailKeep + O[p00 + 1] * w00 + O[p01 + 1] * w01 + O[p10 + 1] * w10 + O[p11 + 1] * w11) *
        tg;
      let eb = (lb * detailKeep + O[p00 + 2] * w00 + O[p01 + 2] * w01 + O[p10 + 2] * w10 + O[p11 + 2] * w11) *
        tb;
      if (matte || dewy) {
        const lum = 0.2126 * er + 0.7152 * eg + 0.0722 * eb;
        if (matte && lum > ys * 1.15) {
          const f = (ys * 1.15 + (lum - ys * 1.15) * 0.45) / lum;
          er *= f;
          eg *= f;
          eb *= f;
        } else if (dewy) {
          const s = 0.35 * Math.max(0, lum - ys * 1.05);
          er += s;
          eg += s;
          eb += s * 0.95;
        }
      }
      const k = a > 1 ? 1 : a;
      d[i] = linearToSrgb(lr + (er - lr) * k);
      d[i + 1] = linearToSrgb(lg + (eg - lg) * k);
      d[i + 2] = linearToSrgb(lb + (eb - lb) * k);
    }
  }
}
