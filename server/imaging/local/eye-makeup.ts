/**
 * Eye makeup: eyeshadow, eyeliner (plain or winged), lashes and brows; the eye
 * openings are never painted, nor an eye the mesh put where the photo shows
 * only skin (EyeContour.onEye), nor one under strands of hair (EyeContour.covered).
 */
import {
  blendLayer,
  blendLut,
  type Canvas,
  channelLut,
  fromGamma,
  maskedMeanLinear,
  softLight,
  toGamma,
} from "./blend.ts";
import { deltaE, hexToLinear, linearToLab, luminance } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { eyeContours, paintable, placeMesh } from "./eye-contour.ts";
import { BROW_L, BROW_LOW_L, BROW_LOW_R, BROW_R, CREASE_L, CREASE_R } from "./landmarks.ts";
import { clipToFace, multiplyLut } from "./makeup-layer.ts";
import { clamp01, smoothstep } from "./ramps.ts";
import {
  bandPolygon,
  boost,
  boundsOf,
  createMask,
  dist,
  feather,
  fillPolygon,
  type Mask,
  mid,
  type Point,
  subtract,
} from "./masks.ts";
import { skinMeanLinear } from "./skin-tone.ts";
import { photoExposure } from "./photo-exposure.ts";

/**
 * The eye openings (eyeball + iris) as found in the photo (`eyeContours`:
 * the mesh's outline moved onto the real lid line): 1 on every pixel the
 * outline covers (so no product lands inside it), fading over ~1 px outside.
 */
function eyeOpenings(
  img: Canvas,
  g: FaceGeometry,
  rect: { x: number; y: number; w: number; h: number },
): Mask {
  const eyes = eyeContours(img, g);
  const m = createMask(rect);
  fillPolygon(m, eyes.right.outline);
  fillPolygon(m, eyes.left.outline);
  const hard = m.data.slice();
  feather(m, Math.max(0.7, 0.004 * g.fw));
  for (let i = 0; i < m.data.length; i++) m.data[i] = Math.min(1, Math.max(2.5 * m.data[i], 2 * hard[i]));
  return m;
}

/**
 * A polyline's points sorted by x, held as two typed arrays: the lid's per-pixel loop looks up three of them,
 * and arrays of points vary in V8's element kind with their values (whole or fractional numbers): read from
 * those, `lineYAt` was deoptimised for a wrong map 7-15 times in 150 looks.
 */
interface SortedLine {
  xs: Float64Array;
  ys: Float64Array;
}

function sortedByX(line: Point[]): SortedLine {
  const sorted = [...line].sort((a, b) => a[0] - b[0]);
  return { xs: Float64Array.from(sorted, (p) => p[0]), ys: Float64Array.from(sorted, (p) => p[1]) };
}

/** Polyline y at x (linear interpolation; clamps at the ends). */
function lineYAt({ xs, ys }: SortedLine, x: number): number {
  if (x <= xs[0]) return ys[0];
  for (let i = 1; i < xs.length; i++) {
    if (x <= xs[i]) {
      const t = (x - xs[i - 1]) / (xs[i] - xs[i - 1] || 1);
      return ys[i - 1] + (ys[i] - ys[i - 1]) * t;
    }
  }
  return ys[xs.length - 1];
}

/**
 * How much of the lid an eyeshadow covers at intensity t: pigment builds up
 * quickly (the default 60 gives 0.84 of full), 0 paints nothing.
 */
const shadowCover = (t: number) => t <= 0 ? 0 : 1 - (1 - clamp01(t)) ** 2;

/**
 * The eye shadow `hex` at intensity t on both lids. A light shade is lit at `exposure` (see photoExposure: the
 * renderer measures it on the photo before anything is painted).
 */
export function eyeshadowLayer(
  img: Canvas,
  g: FaceGeometry,
  hex: string,
  t: number,
  exposure = photoExposure(img, g),
): void {
  const c = hexToLinear(hex);
  const cy = luminance(c[0], c[1], c[2]);
  const light = cy > 0.3;
  const sigma = 0.02 * g.fw;
  const cs = [toGamma(c[0]), toGamma(c[1]), toGamma(c[2])];
  // Dark shades tint the lid toward the shade relative to the skin's own colour
  // (a multiply that keeps the lid's shading and texture): plum reads plum on
  // light and deep skin alike, without turning into a flat patch.
  const skin = skinMeanLinear(img, g);
  const tint = c.map((ck, k) => Math.min(1, Math.max(0.12, ck / skin[k])) ** 0.85);
  const opacity = 0.85 * shadowCover(t);
  const lids: Mask[] = [];
  const eyes = eyeContours(img, g);
  for (
    const [eye, creaseIdx, browIdx] of [
      [eyes.right, CREASE_R, BROW_LOW_R],
      [eyes.left, CREASE_L, BROW_LOW_L],
    ] as const
  ) {
    if (!paintable(eye)) continue;
    // An eye moved off the mesh's place onto the eye in the photo takes its crease and brow along.
    const mv = (p: Point): Point => placeMesh(eye.moved, p);
    const lash = eye.upper, crease = pick(g, creaseIdx).map(mv), brow = pick(g, browIdx).map(mv);
    const outer = lash[0], inner = lash[lash.length - 1];
    const wingOut: Point = [
      outer[0] + (outer[0] - inner[0]) * 0.12 + g.up[0] * 0.03 * g.fw,
      outer[1] + (outer[1] - inner[1]) * 0.12 + g.up[1] * 0.03 * g.fw,
    ];
    // Heights are measured along the face's own up direction (a tilted head
    // would otherwise fade one lid out): s across the face, h up the face.
    const [ux, uy] = g.up;
    const toFace = (p: Point): Point => [-uy * p[0] + ux * p[1], ux * p[0] + uy * p[1]];
    const fromFace = (f: Point): Point => [-uy * f[0] + ux * f[1], ux * f[0] + uy * f[1]];
    const lashF = sortedByX(lash.map(toFace)), browF = sortedByX(brow.map(toFace));
    const creaseF = sortedByX(crease.map(toFace));
    // Product covers the mobile lid and blends a little past the crease toward the brow.
    const top = crease.map((p) => {
      const [fs, fh] = toFace(p);
      return fromFace([fs, fh + (lineYAt(browF, fs) - fh) * 0.4]);
    });
    // The lower edge dips below the lash line in its middle (into the eye
    // opening, which is cut out below), so the feather does not thin the
    // product where it meets the lashes; the corners stay on the line.
    // (never past the lower lid, whose points pair with the lash line's: a
    // closed eye has no opening to dip into).
    const lowerLid = eye.lower;
    const at = eye.at;
    const lower = lash.map((p, i): Point => {
      const w = Math.min(1.5 * sigma * Math.sin(Math.PI * at[i]), 0.8 * dist(p, lowerLid[i]));
      return [p[0] - ux * w, p[1] - uy * w];
    });
    const poly: Point[] = [wingOut, ...lower, ...top.reverse()];
    const rect = boundsOf([...poly, ...brow], sigma * 4, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, poly);
    feather(m, SHADOW_FEATHER * sigma);
    boost(m, 2);
    // Gradient: deepest at the lash line, still 0.85 at the middle of the
    // mobile lid, then blended out to nothing at the product's top edge
    // (0.4 of the way from the crease to the brow); blended out at its ends
    // (see SHADOW_FEATHER); and kept to the lash line below, as crisp as
    // before (a cut along the dark lashes does not show; softer, it reached
    // the white of an eye that runs on past the mesh's corners).
    const sInner = toFace(inner)[0], sSpan = toFace(outer)[0] - sInner || 1;
    for (let r = 0; r < m.h; r++) {
      const y = m.y + r + 0.5;
      const o = r * m.w;
      for (let col = 0; col < m.w; col++) {
        if (m.data[o + col] <= 0) continue;
        // toFace, written out: two arrays per pixel kept the young generation's collector busy (the layer
        // took 11.6 ms, now 8.9, under the server's 1 MB semi-space).
        const x = m.x + col + 0.5, fs = -uy * x + ux * y, fh = ux * x + uy * y;
        const lashH = lineYAt(lashF, fs), creaseH = lineYAt(creaseF, fs);
        const topH = creaseH + 0.4 * (lineYAt(browF, fs) - creaseH);
        const v = clamp01((fh - lashH) / Math.max(1, topH - lashH));
        const u = (fs - sInner) / sSpan;
        m.data[o + col] *= (1 - 0.3 * v) * (1 - smoothstep(0.45, 1, v)) *
          (1 - smoothstep(SHADOW_OUTER_FADE[0], SHADOW_OUTER_FADE[1], u)) *
          (1 - smoothstep(0, 0.6 * sigma, lashH - fh));
      }
    }
    clipToFace(img, g, m, 1);
    subtract(m, eyeOpenings(img, g, rect));
    lids.push(m);
  }
  if (light) {
    // A light shade's soft light lifts a dark lid far more than a lit one: on a dim photo the lid is blended
    // as if the photo were exposed well (its value over the photo's exposure) and scaled back.
    const e = exposure;
    const lut = channelLut((v, k) => e * fromGamma(softLight(toGamma(Math.min(1, v / e)), cs[k])) * 1.03);
    for (const m of lids) blendLut(img, m, opacity, lut);
    return;
  }
  // A lid in shadow (the far lid of a turned head, a deep-set eye, a dim
  // photo) shows a multiply far less than a lit one: each lid's tint is
  // deepened until, on that lid's own colour, it stands as far from it as on
  // the better-lit lid (and at least SHADOW_MIN_DELTA_E), so both lids read as
  // made up.
  const means = lids.map((m) => maskedMeanLinear(img, m) ?? [0.2, 0.2, 0.2]);
  const contrast = (lid: number[], e: number) =>
    deltaE(
      linearToLab(lid[0], lid[1], lid[2]),
      linearToLab(lid[0] * tint[0] ** e, lid[1] * tint[1] ** e, lid[2] * tint[2] ** e),
    );
  const target = Math.max(SHADOW_MIN_DELTA_E, ...means.map((lid) => contrast(lid, 1)));
  lids.forEach((m, i) => {
    let e = 1;
    while (e < SHADOW_MAX_DEEPEN && contrast(means[i], e) < target) e += 0.1;
    blendLut(img, m, opacity, multiplyLut(...tint.map((f) => f ** e) as [number, number, number]));
  });
}

/**
 * How eye shadow is blended out at its ends and top edge. The lid's polygon is feathered by SHADOW_FEATHER times
 * the shadow's sigma (0.02 face widths) and boosted back to full inside it; past the outer corner it also fades
 * along the lid over SHADOW_OUTER_FADE (shares of the way from the inner corner, 0, to the outer, 1; the wing's
 * tip is at about 1.12). Feathered by 0.6 sigma and faded only across the lid, the product ended at full
 * strength along the polygon's straight ends: a wedge with a cut outer end that read as drawn on a blurred face
 * (sample4@908 and sample5@727, plum at 100). (A fade in from the inner corner was tried too: it cut off the
 * feather's spread past the corner and left the inner end crisper.)
 */
const SHADOW_FEATHER = 1.2;
const SHADOW_OUTER_FADE = [0.9, 1.35];

/** The full-coverage contrast (ΔE of the lid's mean colour) a dark shade aims for on each lid, and the deepening cap. */
const SHADOW_MIN_DELTA_E = 20;
const SHADOW_MAX_DEEPEN = 1.8;

/**
 * Softens a liner's mask, already feathered by its own `blur.own` px and cut at the eye openings, until its edge
 * against the lid is as soft as the photo's lid edges (EyeContours.softness, at most MAX_LID_SOFTNESS face
 * widths): cut crisp on a photo enlarged 2-3x or out of focus, the line reads as drawn on it (sample5@727's
 * blurred eyes; the demo photos' lids read 1.9-3.8 px soft against the liner's 1). The blur spreads the line:
 * its darkest is raised back (by at most MAX_KEEP_GAIN, the faint tails barely) so the product stays as
 * visible, and it is cut again at the openings, so none spills into the eye (its edge there lies on the dark
 * lash line, where a cut does not show).
 */
function softenLikeLids(img: Canvas, g: FaceGeometry, m: Mask, blur: LidBlur): void {
  if (blur.extra <= 0) return;
  let before = 0, after = 0;
  for (const v of m.data) before = Math.max(before, v);
  feather(m, blur.extra);
  for (const v of m.data) after = Math.max(after, v);
  if (after <= 0) return;
  // Raised by up to `gain` at the line's darkest, barely in its faint tails (which would float on the lid).
  const gain = Math.min(MAX_KEEP_GAIN, before / after);
  for (let i = 0; i < m.data.length; i++) m.data[i] = Math.min(1, m.data[i] * gain ** (m.data[i] / after));
  subtract(m, eyeOpenings(img, g, m));
}

/** A line's own feather (`own`, px), and the blur (`extra`, px) that takes it to the photo's lid softness. */
interface LidBlur {
  own: number;
  extra: number;
}

/** How much more than its own feather `own` a line on this photo's lids is blurred (none on sharp lids). */
function lidBlur(img: Canvas, g: FaceGeometry, own: number): LidBlur {
  const sigma = Math.min(eyeContours(img, g).softness, MAX_LID_SOFTNESS * g.fw);
  return { own, extra: sigma > own ? Math.sqrt(sigma * sigma - own * own) : 0 };
}

/** The softest a liner is made to match the photo's lids, in face widths (about 4 px on a 450 px face). */
const MAX_LID_SOFTNESS = 0.009;
/** The most the softened line is raised back toward its own darkest (see softenLikeLids). */
const MAX_KEEP_GAIN = 3;

export function linerLayer(img: Canvas, g: FaceGeometry, t: number, wing: boolean): void {
  const ink = hexToLinear("#161012");
  const inkLut = channelLut((_, k) => ink[k]);
  const eyes = eyeContours(img, g), blur = lidBlur(img, g, Math.max(0.6, 0.0025 * g.fw));
  for (const eye of [eyes.right, eyes.left]) {
    if (!paintable(eye)) continue;
    const lash = eye.upper;
    const outer = lash[0], inner = lash[lash.length - 1];
    const thick = 0.011 * g.fw;
    // On the lid only: from the lash line up, thickest at the outer corner. The
    // lower edge sits a fraction inside the lash line so no skin gap shows;
    // the eye opening is cut out below.
    const at = eye.at;
    const top = lash.map((p, i): Point => {
      const w = thick * (0.45 + 0.75 * (1 - at[i]));
      return [p[0] + g.up[0] * w, p[1] + g.up[1] * w];
    });
    const base = lash.map((p): Point => [p[0] - g.up[0] * thick * 0.15, p[1] - g.up[1] * thick * 0.15]);
    const band: Point[] = [...base, ...top.reverse()];
    const rect = boundsOf([...lash, mid(outer, inner, -0.5)], thick * 8, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, band);
    if (wing) {
      // The wing flicks outward along the face's own across axis and up, and
      // never droops: where the eye's corners slope down outward (a tilted
      // head, or the mesh's outer corner placed low) it follows the face,
      // not the slope; an upswept eye keeps its lift.
      const [ux, uy] = g.up;
      const dx = outer[0] - inner[0], dy = outer[1] - inner[1];
      const sign = -uy * dx + ux * dy >= 0 ? 1 : -1;
      const rise = Math.max(0, (ux * dx + uy * dy) / (Math.hypot(dx, dy) || 1));
      // (A softened tip's visible end sits about its added blur lower: lifted by that.)
      const out = 0.07 * g.fw, lift = 0.035 * g.fw + rise * out + blur.extra;
      const tip: Point = [
        outer[0] - sign * uy * out + ux * lift,
        outer[1] + sign * ux * out + uy * lift,
      ];
      const a = lash[1];
      fillPolygon(m, [
        [a[0] + g.up[0] * thick * 1.3, a[1] + g.up[1] * thick * 1.3],
        tip,
        [outer[0] - g.up[0] * thick * 0.1, outer[1] - g.up[1] * thick * 0.1],
      ]);
    }
    feather(m, blur.own);
    subtract(m, eyeOpenings(img, g, rect));
    softenLikeLids(img, g, m, blur);
    clipToFace(img, g, m, 1);
    blendLut(img, m, 0.9 * t, inkLut);
  }
}

export function lashLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const eyes = eyeContours(img, g);
  for (const eye of [eyes.right, eyes.left]) {
    if (!paintable(eye)) continue;
    const lash = eye.upper, at = eye.at;
    const w = 0.006 * g.fw;
    // Tapered by each point's place on the mesh's lid, as the liner: points followed past the mesh's
    // corners keep the corner's width.
    const band = bandPolygon(lash, (u) => w * (0.5 + 1.0 * (1 - at[Math.round(u * (lash.length - 1))])));
    const rect = boundsOf(lash, w * 8, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, band);
    feather(m, Math.max(0.6, 0.003 * g.fw));
    subtract(m, eyeOpenings(img, g, rect));
    clipToFace(img, g, m, 1);
    blendLut(img, m, 0.8 * t, multiplyLut(0.25, 0.23, 0.23));
  }
}

export function browLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const skin = skinMeanLinear(img, g);
  const ys = luminance(skin[0], skin[1], skin[2]);
  for (const idx of [BROW_R, BROW_L]) {
    const poly = pick(g, idx);
    const rect = boundsOf(poly, 0.03 * g.fw, img.width, img.height);
    const m = createMask(rect);
    fillPolygon(m, poly);
    feather(m, Math.max(0.8, 0.005 * g.fw));
    clipToFace(img, g, m, 1);
    blendLayer(img, m, 0.6 * t, (px) => {
      const y = luminance(px[0], px[1], px[2]);
      // Darker pixels (brow hair) are deepened more than the skin between them.
      const hairiness = clamp01((ys - y) / (ys * 0.6) + 0.35);
      const f = 1 - 0.5 * hairiness;
      px[0] *= f * 1.0;
      px[1] *= f * 0.93;
      px[2] *= f * 0.88;
    });
  }
}
