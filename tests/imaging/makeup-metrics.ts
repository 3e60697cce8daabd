/**
 * Measures of makeup realism on a rendered portrait, shared by the makeup
 * tests and bench/makeup-quality.bench.ts. Every measure compares a styled
 * canvas with the unstyled render of the same photo (same framing), over
 * regions drawn from the renderer's own landmarks (found on the photo and
 * mapped through the framing, as render() does).
 */
import { deltaE, type Lab } from "../../server/imaging/local/color.ts";
import type { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { type FaceGeometry, faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { mapPoints } from "../../server/imaging/local/framing.ts";
import {
  CREASE_L,
  CREASE_R,
  EYE_L,
  EYE_R,
  FACE_OVAL,
  LASH_L,
  LASH_R,
} from "../../server/imaging/local/landmarks.ts";
import {
  bandPolygon,
  createMask,
  feather,
  fillEllipse,
  fillPolygon,
  type Point,
} from "../../server/imaging/local/masks.ts";
import {
  chooseFace,
  decodePhoto,
  detectFaces,
  framingFor,
  render,
} from "../../server/imaging/local/render.ts";
import { defaultOptions } from "../../server/styling/catalog.ts";
import type { Intensity, SelectedOptions } from "../../server/styling/option-keys.ts";
import { cropFace, decode, type Decoded, job, labOf, polygonPixels } from "./fixtures.ts";

/** An unstyled render and the landmarks the renderer paints from. */
export interface FramedFace {
  photo: Uint8Array;
  plain: Decoded;
  g: FaceGeometry;
}

export async function framedFace(
  engine: FaceEngine,
  face: [number, number, number, number],
): Promise<FramedFace> {
  const photo = await cropFace(face);
  const plain = await decode((await render(engine, job(photo))).image);
  const decoded = await decodePhoto(photo);
  const chosen = chooseFace(await detectFaces(engine, decoded), decoded.width, decoded.height);
  const framing = framingFor(decoded, chosen, plain.width, plain.height);
  return { photo, plain, g: faceGeometry(mapPoints(chosen.mesh, framing)) };
}

/** Every makeup intensity at `v`. */
export const intensityAll = (v: number): Intensity => ({
  lookStyle: v,
  eyeshadow: v,
  lips: v,
  baseMakeup: v,
  cheeks: v,
  extras: v,
});

/** The makeup studio's defaults with `changes` on top. */
export const makeupLook = (changes: Partial<SelectedOptions>): SelectedOptions => ({
  ...defaultOptions("makeup"),
  ...changes,
});

export const copyOf = (img: Decoded): Decoded => ({ ...img, data: new Uint8Array(img.data) });

const poly = (g: FaceGeometry, idx: number[]): Point[] => idx.map((i) => g.pts[i]);

/** Pixels of `region` (or the face's bounding box) whose colour moved by ΔE > `min`. */
export function changed(a: Decoded, b: Decoded, region: number[], min = 1.5): number[] {
  return region.filter((p) => deltaE(labOf(a, p), labOf(b, p)) > min);
}

/** Every pixel of the face's neighbourhood (1.6 face widths square around its centre). */
export function faceBox(img: Decoded, g: FaceGeometry): number[] {
  const r = 0.8 * g.fw, [cx, cy] = g.center;
  const out: number[] = [];
  for (let y = Math.max(0, Math.round(cy - r)); y < Math.min(img.height, cy + r); y++) {
    for (let x = Math.max(0, Math.round(cx - r)); x < Math.min(img.width, cx + r); x++) {
      out.push(y * img.width + x);
    }
  }
  return out;
}

/** Pixels inside the face outline (the mesh's silhouette). */
export const faceOval = (img: Decoded, g: FaceGeometry): Set<number> =>
  new Set(polygonPixels(img, poly(g, FACE_OVAL), 0, 0.01));

/** Pixels inside each eye opening (the mesh's eye outline). */
export const eyeOpenings = (img: Decoded, g: FaceGeometry): number[] => [
  ...polygonPixels(img, poly(g, EYE_R), 0, 0.5),
  ...polygonPixels(img, poly(g, EYE_L), 0, 0.5),
];

/**
 * The visible lids: between the upper lash line and the crease, outside the
 * eye opening and inside the face outline (on a turned head the far lid's
 * outer end lies past the silhouette, hidden); [right, left].
 */
export function lids(img: Decoded, g: FaceGeometry): [number[], number[]] {
  const face = faceOval(img, g);
  const lid = (lash: number[], crease: number[], eye: number[]) => {
    const open = new Set(polygonPixels(img, poly(g, eye), 0, 0.01));
    return polygonPixels(img, [...poly(g, lash), ...poly(g, crease).reverse()], 0, 0.9)
      .filter((p) => !open.has(p) && face.has(p));
  };
  return [lid(LASH_R, CREASE_R, EYE_R), lid(LASH_L, CREASE_L, EYE_L)];
}

/** Mean ΔE between two images over `pixels`. */
export function meanDeltaE(a: Decoded, b: Decoded, pixels: number[]): number {
  let s = 0;
  for (const p of pixels) s += deltaE(labOf(a, p), labOf(b, p));
  return s / Math.max(1, pixels.length);
}

/** The largest L* increase over `pixels` (its 99.5th percentile: single JPEG-noise pixels aside). */
export function maxLift(a: Decoded, b: Decoded, pixels: number[]): number {
  const lifts = pixels.map((p) => labOf(b, p)[0] - labOf(a, p)[0]).sort((x, y) => x - y);
  return lifts.length ? lifts[Math.floor(lifts.length * 0.995)] : 0;
}

/**
 * Elongation of a changed area: the ratio of its principal axes (standard
 * deviations, weighted by ΔE). A disc gives 1.
 */
export function elongation(a: Decoded, b: Decoded, pixels: number[]): number {
  let sw = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (const p of pixels) {
    const w = deltaE(labOf(a, p), labOf(b, p));
    const x = p % a.width, y = Math.floor(p / a.width);
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    syy += w * y * y;
    sxy += w * x * y;
  }
  if (sw === 0) return 1;
  const mx = sx / sw, my = sy / sw;
  const cxx = sxx / sw - mx * mx, cyy = syy / sw - my * my, cxy = sxy / sw - mx * my;
  const tr = cxx + cyy, det = cxx * cyy - cxy * cxy;
  const disc = Math.sqrt(Math.max(0, tr * tr / 4 - det));
  return Math.sqrt((tr / 2 + disc) / Math.max(1e-9, tr / 2 - disc));
}

/** A square patch of skin `side` face widths wide, centred on a landmark. */
export function patch(img: Decoded, g: FaceGeometry, idx: number, side = 0.09): number[] {
  const [cx, cy] = g.pts[idx], r = side * g.fw / 2;
  const out: number[] = [];
  for (let y = Math.round(cy - r); y < cy + r; y++) {
    for (let x = Math.round(cx - r); x < cx + r; x++) out.push(y * img.width + x);
  }
  return out;
}

/**
 * Fine texture kept: the standard deviation of L* minus its 3x3 mean (pores,
 * fine lines, grain) over `pixels`, styled against unstyled. 1 = all kept.
 */
export function textureRatio(a: Decoded, b: Decoded, pixels: number[]): number {
  const hf = (img: Decoded) => {
    const vals = pixels.map((p) => {
      let s = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) s += labOf(img, p + dy * img.width + dx)[0];
      }
      return labOf(img, p)[0] - s / 9;
    });
    const m = vals.reduce((x, y) => x + y, 0) / vals.length;
    return Math.sqrt(vals.reduce((x, y) => x + (y - m) ** 2, 0) / vals.length);
  };
  return hf(b) / Math.max(1e-6, hf(a));
}

/** Mean chroma over `pixels`. */
export function meanChroma(img: Decoded, pixels: number[]): number {
  let s = 0;
  for (const p of pixels) {
    const l: Lab = labOf(img, p);
    s += Math.hypot(l[1], l[2]);
  }
  return s / Math.max(1, pixels.length);
}

/**
 * Where a highlighter belongs, drawn independently of the renderer: the
 * cheekbone tops (between the ring of landmarks under the eye's lower lid
 * area and the cheek's apple, out to the face's side), the nose bridge and
 * the cupid's bow, widened by 0.03 face widths for the product's soft edge.
 */
export function highlighterRegions(img: Decoded, g: FaceGeometry): Set<number> {
  const m = createMask({ x: 0, y: 0, w: img.width, h: img.height });
  for (
    const idx of [
      [116, 143, 111, 117, 118, 119, 100, 101, 50, 123],
      [345, 372, 340, 346, 347, 348, 329, 330, 280, 352],
    ]
  ) fillPolygon(m, poly(g, idx));
  fillPolygon(m, bandPolygon(poly(g, [168, 6, 197, 195, 5]), () => 0.03 * g.fw));
  const bow = g.pts[0];
  fillEllipse(m, bow[0], bow[1], 0.05 * g.fw, 0.04 * g.fw);
  feather(m, 0.015 * g.fw);
  const out = new Set<number>();
  for (let i = 0; i < m.data.length; i++) if (m.data[i] > 0.02) out.add(i);
  return out;
}

/** Highlighter: share of changed pixels outside its regions, 99.5th-percentile L* lift, texture kept. */
export function highlighterSpill(
  plain: Decoded,
  out: Decoded,
  g: FaceGeometry,
): { spill: number; lift: number; texture: number } {
  const moved = changed(plain, out, faceBox(plain, g));
  const allowed = highlighterRegions(plain, g);
  const outside = moved.filter((p) => !allowed.has(p)).length;
  return {
    spill: outside / Math.max(1, moved.length),
    lift: maxLift(plain, out, moved),
    texture: textureRatio(plain, out, changed(plain, out, moved, 3)),
  };
}

/** Blush: changed pixels outside the face outline, and the lesser elongation of the two cheeks' patches. */
export function blushOutsideFace(
  plain: Decoded,
  out: Decoded,
  g: FaceGeometry,
): { outside: number; elongation: number } {
  const moved = changed(plain, out, faceBox(plain, g), 1);
  const oval = faceOval(plain, g);
  const cx = g.pts[6][0];
  const right = moved.filter((p) => p % plain.width < cx), left = moved.filter((p) => p % plain.width >= cx);
  return {
    outside: moved.filter((p) => !oval.has(p)).length,
    elongation: Math.min(elongation(plain, out, right), elongation(plain, out, left)),
  };
}

/**
 * Blush over hair: dark brown strands (0.012 face widths wide, 0.035 apart)
 * painted diagonally across the subject's left cheek of `f`, then `paint`
 * applied. Counts, inside the band the blush covers on the bare photo, the
 * strand pixels it moved by ΔE > 2 (of `hair`) and the skin pixels clear of
 * the strands it moved by ΔE > 3 (of `skin`).
 */
export function blushOnStrands(
  f: FramedFace,
  paint: (img: Decoded, g: FaceGeometry) => void,
): { onHair: number; hair: number; flushed: number; skin: number } {
  const g = f.g, fw = g.fw;
  const withHair = copyOf(f.plain);
  const strands = createMask({ x: 0, y: 0, w: withHair.width, h: withHair.height });
  const apple = g.pts[330], temple = g.pts[345];
  for (let k = -3; k <= 3; k++) {
    const along = k * 0.035 * fw;
    const a: Point = [apple[0] + along - 0.12 * fw, apple[1] - 0.15 * fw];
    const b: Point = [temple[0] + along + 0.05 * fw, temple[1] + 0.2 * fw];
    fillPolygon(strands, bandPolygon([a, b], () => 0.006 * fw));
  }
  const hair = [58, 40, 30];
  const cores: number[] = [], clear: number[] = [];
  for (let i = 0; i < strands.data.length; i++) {
    const v = strands.data[i];
    for (let c = 0; c < 3; c++) {
      withHair.data[i * 3 + c] = Math.round(hair[c] * v + withHair.data[i * 3 + c] * (1 - v));
    }
    if (v >= 0.999) cores.push(i);
  }
  // Skin clear of the strands by a few pixels (their soft edges aside).
  const near = feather({ ...strands, data: strands.data.slice() }, 0.004 * fw);
  for (let i = 0; i < near.data.length; i++) if (near.data[i] < 0.02) clear.push(i);
  const bare = copyOf(f.plain);
  paint(bare, g);
  const inBand = new Set(changed(f.plain, bare, [...cores, ...clear], 3));
  const out = copyOf(withHair);
  paint(out, g);
  const hairIn = cores.filter((p) => inBand.has(p)), skinIn = clear.filter((p) => inBand.has(p));
  return {
    onHair: changed(withHair, out, hairIn, 2).length,
    hair: hairIn.length,
    flushed: changed(withHair, out, skinIn, 3).length,
    skin: skinIn.length,
  };
}

/** Eyeliner: pixels inside the eye openings moved by ΔE > 2. */
export const linerInEyes = (plain: Decoded, out: Decoded, g: FaceGeometry): number =>
  changed(plain, out, eyeOpenings(plain, g), 2).length;

/** Eyeshadow: mean ΔE on each lid. */
export function lidContrast(plain: Decoded, out: Decoded, g: FaceGeometry): { right: number; left: number } {
  const [r, l] = lids(plain, g);
  return { right: meanDeltaE(plain, out, r), left: meanDeltaE(plain, out, l) };
}

/** Skin: the least fine texture kept over cheek (both sides) and chin patches. */
export function skinTexture(plain: Decoded, out: Decoded, g: FaceGeometry): number {
  return Math.min(...[50, 280, 199].map((i) => textureRatio(plain, out, patch(plain, g, i))));
}
