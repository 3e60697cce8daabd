/**
 * Measures of makeup realism on a rendered portrait, shared by the makeup
 * tests and bench/makeup-quality.bench.ts. Every measure compares a styled
 * canvas with the unstyled render of the same photo (same framing), over
 * regions drawn from the renderer's own landmarks (found on the photo and
 * mapped through the framing, as render() does).
 */
import { deltaE, type Lab, srgbToLab } from "../../server/imaging/local/color.ts";
import type { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { type FaceGeometry, faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { type Framing, mapPoints } from "../../server/imaging/local/framing.ts";
import {
  CREASE_L,
  CREASE_R,
  EYE_L,
  EYE_R,
  FACE_OVAL,
  LASH_L,
  LASH_R,
  SKIN_SAMPLES,
} from "../../server/imaging/local/landmarks.ts";
import {
  bandPolygon,
  blurPlane,
  createMask,
  feather,
  fillEllipse,
  fillPolygon,
  type Point,
} from "../../server/imaging/local/masks.ts";
import { chooseFace, decodePhoto, detectFaces, framingFor } from "../../server/imaging/local/render.ts";
import { defaultOptions } from "../../server/styling/catalog.ts";
import type { Intensity, SelectedOptions } from "../../server/styling/option-keys.ts";
import {
  cropFace,
  cropRect,
  decode,
  type Decoded,
  job,
  labOf,
  meanLab,
  meanPixelDeltaE,
  polygonPixels,
  renderKept,
} from "./fixtures.ts";

/** An unstyled render and the landmarks the renderer paints from. */
export interface FramedFace {
  photo: Uint8Array;
  plain: Decoded;
  g: FaceGeometry;
  /** Maps the cropped photo's pixels onto the canvas (canvas = photo * scale + offset). */
  framing: Framing;
  /** Where the crop lies in the demo photo. */
  crop: { left: number; top: number };
}

export async function framedFace(
  engine: FaceEngine,
  face: [number, number, number, number],
  aspect = 0.75,
  span = 2.2,
): Promise<FramedFace> {
  const photo = await cropFace(face, aspect, span);
  const plain = await decode((await renderKept(engine, job(photo))).image);
  const decoded = await decodePhoto(photo);
  const chosen = chooseFace(await detectFaces(engine, decoded), decoded.width, decoded.height);
  const framing = framingFor(decoded, chosen, plain.width, plain.height);
  const { left, top } = await cropRect(face, aspect, span);
  return { photo, plain, g: faceGeometry(mapPoints(chosen.mesh, framing)), framing, crop: { left, top } };
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
export const meanDeltaE = meanPixelDeltaE;

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

/**
 * How far a lid product takes to blend out past each end of the eye, in face widths: along the eye's axis (inner
 * corner to outer), per 0.005-face-width step, the 90th percentile of the ΔE `out` made from `plain` on the lid
 * side (0.02 below the corners' line to 0.12 above); from the middle outward, the distance from the first step
 * under 80 % of the lid's level (the median step over the eye's middle 40 %) to the first under 20 %. [right,
 * left] eyes.
 */
export function lidProductEnds(
  plain: Decoded,
  out: Decoded,
  g: FaceGeometry,
): { outer: number; inner: number }[] {
  const STEP = 0.005;
  return [[33, 133], [263, 362]].map(([outerIdx, innerIdx]) => {
    const o = g.pts[outerIdx], n = g.pts[innerIdx];
    const len = Math.hypot(o[0] - n[0], o[1] - n[1]), ux = (o[0] - n[0]) / len, uy = (o[1] - n[1]) / len;
    const r = 0.3 * g.fw, bins = new Map<number, number[]>();
    const x0 = Math.max(0, Math.round(Math.min(o[0], n[0]) - r)),
      x1 = Math.min(plain.width, Math.max(o[0], n[0]) + r);
    for (let y = Math.max(0, Math.round(n[1] - r)); y < Math.min(plain.height, n[1] + r); y++) {
      for (let x = x0; x < x1; x++) {
        const dx = x - n[0], dy = y - n[1], up = (dx * g.up[0] + dy * g.up[1]) / g.fw;
        if (up < -0.02 || up > 0.12) continue;
        const b = Math.round((dx * ux + dy * uy) / g.fw / STEP), p = y * plain.width + x;
        let list = bins.get(b);
        if (!list) bins.set(b, list = []);
        list.push(deltaE(labOf(plain, p), labOf(out, p)));
      }
    }
    const levels = new Map<number, number>();
    for (const [b, v] of bins) levels.set(b, v.sort((a, c) => a - c)[Math.floor(0.9 * (v.length - 1))]);
    const eye = len / g.fw / STEP;
    const middle: number[] = [];
    for (let b = Math.ceil(0.3 * eye); b <= 0.7 * eye; b++) middle.push(levels.get(b) ?? 0);
    const plateau = middle.sort((a, c) => a - c)[Math.floor(middle.length / 2)];
    const under = (dir: number, share: number) => {
      let b = Math.round(eye / 2);
      while ((levels.get(b) ?? -1) >= share * plateau) b += dir;
      return b;
    };
    return {
      outer: (under(1, 0.2) - under(1, 0.8)) * STEP,
      inner: (under(-1, 0.8) - under(-1, 0.2)) * STEP,
    };
  });
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
 * How gradually the blush fades out, per cheek (image-left side first): the flush's ΔE map, smoothed over 0.01
 * face widths (skin texture), its peak (98th percentile of the pixels moved by over 0.5) and the areas where it
 * stands at 80% and at 20% of that peak, each read as a disc; the fade is the difference of the two radii, in
 * face widths. A patch with a crisp outline fades over a thin ring, one blended out over a wide one.
 */
export function blushFade(plain: Decoded, out: Decoded, g: FaceGeometry): { peak: number; fade: number }[] {
  const W = plain.width, H = plain.height, d = new Float32Array(W * H);
  for (let p = 0; p < W * H; p++) d[p] = deltaE(labOf(plain, p), labOf(out, p));
  blurPlane(d, W, H, 0.01 * g.fw);
  return [true, false].map((leftSide) => {
    const v: number[] = [];
    for (let p = 0; p < W * H; p++) if ((p % W < g.center[0]) === leftSide && d[p] > 0.5) v.push(d[p]);
    v.sort((a, b) => a - b);
    const peak = v[Math.floor(0.98 * v.length)] ?? 0;
    const radius = (share: number) => Math.sqrt(v.filter((x) => x >= share * peak).length / Math.PI);
    return { peak, fade: (radius(0.2) - radius(0.8)) / g.fw };
  });
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

/** Eyeliner: pixels inside the mesh's eye outlines moved by ΔE > 2 (where the mesh sits off the eye, see linerPlacement). */
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

/**
 * The eye areas as the photo shows them, found from colour alone (not from
 * the mesh's lid line nor the renderer's refined one): within 0.06 face widths
 * of each mesh eye outline, the white of the eye (at most 22 L* darker than
 * the face's skin and under half its chroma: sclera, catchlights) and
 * lash-dark pixels (25+ L* darker than the skin).
 */
export function eyeAreaPixels(img: Decoded, g: FaceGeometry): { white: Set<number>; dark: Set<number> } {
  const skin = meanLab(
    img,
    SKIN_SAMPLES.map((i) => Math.round(g.pts[i][1]) * img.width + Math.round(g.pts[i][0])),
  );
  const skinC = Math.hypot(skin[1], skin[2]);
  const white = new Set<number>(), dark = new Set<number>();
  forEyeBoxPixels(img, g, 0.06 * g.fw, (p) => {
    const [L, a, b] = labOf(img, p);
    if (L >= skin[0] - 22 && Math.hypot(a, b) <= 0.5 * skinC) white.add(p);
    else if (L <= skin[0] - 25) dark.add(p);
  });
  return { white, dark };
}

/** Calls `visit` with the index of each pixel of the box around each mesh eye outline, grown by `pad` px. */
function forEyeBoxPixels(
  img: { width: number; height: number },
  g: FaceGeometry,
  pad: number,
  visit: (p: number) => void,
): void {
  for (const eye of [EYE_R, EYE_L]) {
    const ps = poly(g, eye), xs = ps.map((p) => p[0]), ys = ps.map((p) => p[1]);
    for (
      let y = Math.max(0, Math.floor(Math.min(...ys) - pad));
      y < Math.min(img.height, Math.max(...ys) + pad);
      y++
    ) {
      for (
        let x = Math.max(0, Math.floor(Math.min(...xs) - pad));
        x < Math.min(img.width, Math.max(...xs) + pad);
        x++
      ) visit(y * img.width + x);
    }
  }
}

/**
 * Eye openings traced by hand on the demo photos (in the photo's own pixels,
 * so they hold whatever the crop and framing): the upper lid line where the
 * white of the eye and the iris meet the lash line, outer corner to inner,
 * and the lower lid, outer to inner. Keyed by "sample@x" and the subject's
 * side. Only eyes whose opening is visible (sample5@727's are not).
 */
export const TRACED_EYES: Record<string, { upper: Point[]; lower: Point[] }> = {
  "sample6@1081 R": {
    upper: [
      [1210.8, 427.8],
      [1215, 425.3],
      [1219.2, 424.4],
      [1225.5, 423.1],
      [1231.9, 422.7],
      [1236.1, 424.8],
      [
        1238.6,
        426.1,
      ],
      [1242.8, 431.2],
      [1247.1, 434.5],
    ],
    lower: [[1210.8, 428.6], [1216.3, 431.6], [1227.7, 433.7], [1238.2, 435], [1247.1, 435.4]],
  },
  "sample6@1081 L": {
    upper: [
      [1346.2, 430.3],
      [1341.6, 426.9],
      [1337.4, 424.8],
      [1333.1, 423.6],
      [1328.9, 423.1],
      [1324.7, 423.6],
      [
        1320.5,
        425.3,
      ],
      [1316.3, 427.4],
      [1312, 429.5],
      [1307.8, 433.3],
      [1303.6, 436.6],
    ],
    lower: [[1346.2, 432], [1337.4, 435], [1328.9, 435.8], [1320.5, 436.2], [1312, 436.6], [1303.6, 436.6]],
  },
  "sample3@1372 R": {
    upper: [
      [1534.8, 410.4],
      [1539, 408],
      [1543.7, 406.6],
      [1548.4, 405.2],
      [1553.1, 404.8],
      [1557.8, 404.8],
      [
        1562.4,
        405.2,
      ],
      [1567.1, 405.7],
      [1570.4, 406.6],
      [1574.2, 408.5],
      [1577, 410.8],
    ],
    lower: [[1534.8, 411.3], [1541.3, 415.1], [1550.7, 416.5], [1560.1, 416.5], [1569.5, 414.6], [
      1577,
      411.8,
    ]],
  },
  "sample3@1372 L": {
    upper: [
      [1669.3, 401.9],
      [1666.5, 398.2],
      [1664.2, 396.3],
      [1656.2, 396.3],
      [1652.4, 395.4],
      [1646.8, 395.4],
      [
        1643.1,
        397.3,
      ],
      [1639.8, 400.1],
      [1635.1, 401.9],
      [1631.8, 404.8],
    ],
    lower: [[1669.3, 401.9], [1664.2, 404.8], [1658.5, 406.6], [1651.5, 408], [1644.5, 408], [1636, 407.1], [
      1631.8,
      404.8,
    ]],
  },
  "sample6@587 R": {
    upper: [
      [684.6, 452.9],
      [688.1, 449.4],
      [692.1, 448.1],
      [696.5, 447.6],
      [700.9, 447.6],
      [705.3, 447.6],
      [
        709.7,
        448.5,
      ],
      [712.8, 449.8],
      [716.3, 452.9],
      [720.7, 455.5],
      [725.5, 458.6],
    ],
    lower: [[684.6, 453.8], [689.9, 459.9], [698.7, 461.3], [707.5, 461.3], [716.3, 460.4], [725.5, 459.5]],
  },
  "sample3@1005 R": {
    upper: [
      [1100.8, 319.6],
      [1104.2, 316.6],
      [1107.6, 315.4],
      [1111.8, 314.9],
      [1116, 314.1],
      [1120.2, 313.7],
      [
        1124.4,
        313.7,
      ],
      [1128.6, 314.9],
      [1132, 317.9],
      [1135.3, 321.7],
    ],
    lower: [
      [1100.8, 320.4],
      [1105.5, 325],
      [1111.8, 326.7],
      [1120.2, 327.1],
      [1126.5, 326.3],
      [1132, 324.2],
      [
        1135.3,
        322.1,
      ],
    ],
  },
};

/** A traced eye's outline on the canvas: the upper lid (outer -> inner), the lower lid. */
function tracedOnCanvas(
  f: FramedFace,
  eye: { upper: Point[]; lower: Point[] },
): { upper: Point[]; lower: Point[] } {
  const toCanvas = (p: Point): Point => [
    (p[0] - f.crop.left) * f.framing.scale + f.framing.offsetX,
    (p[1] - f.crop.top) * f.framing.scale + f.framing.offsetY,
  ];
  return { upper: eye.upper.map(toCanvas), lower: eye.lower.map(toCanvas) };
}

/**
 * A traced eye opening's pixels on the canvas, its rim of about a pixel aside
 * (a hand trace is good to about a pixel), between 0.1 and 0.9 of the way from
 * one traced corner to the other (the mesh's corners are not refined; see
 * docs/decisions/021), or corner to corner with `ends`.
 */
export function tracedOpening(
  f: FramedFace,
  eye: { upper: Point[]; lower: Point[] },
  ends = false,
): number[] {
  const { upper, lower } = tracedOnCanvas(f, eye);
  const o = upper[0], i = upper[upper.length - 1], len2 = (i[0] - o[0]) ** 2 + (i[1] - o[1]) ** 2;
  const W = f.plain.width;
  const along = (p: number) =>
    ((p % W - o[0]) * (i[0] - o[0]) + (Math.floor(p / W) - o[1]) * (i[1] - o[1])) / len2;
  return polygonPixels(f.plain, [...upper, ...[...lower].reverse()], 1, 0.75)
    .filter((p) => ends || (along(p) >= 0.1 && along(p) <= 0.9));
}

/**
 * The eye openings a face's makeup must leave alone, as pixel lists: each
 * traced eye's opening (TRACED_EYES) and, for an eye with no visible opening
 * to trace, the mesh's eye outline.
 */
export function eyeOpeningsOf(f: FramedFace, label: string): number[][] {
  return ([["R", EYE_R], ["L", EYE_L]] as const).map(([side, idx]) => {
    const eye = TRACED_EYES[`${label} ${side}`];
    return eye ? tracedOpening(f, eye) : polygonPixels(f.plain, poly(f.g, idx), 0, 0.5);
  });
}

/**
 * Liner against a traced eye (see TRACED_EYES): pixels it moved (ΔE > 2)
 * inside the traced opening (tracedOpening), and pixels it visibly moved
 * (ΔE > FLOATING_DELTA_E) on the lid 0.02 to 0.08 face widths above the traced
 * lash line, between the corners (beyond the liner's own thickness: a line
 * floating on the skin).
 */
/**
 * A liner softened like the photo's lids (see eye-makeup.ts, softenLikeLids) fades out over a few pixels: its
 * faint tail (ΔE 2-6) reaches the lid above its top on every traced eye. A line placed too high moves the lid
 * far more: on the four traced eyes of makeup-quality.test.ts, 125 px moved by over ΔE 6 against 1,226 with the
 * lid lines raised 5 px.
 */
const FLOATING_DELTA_E = 6;

export function linerAgainstTrace(
  f: FramedFace,
  eye: { upper: Point[]; lower: Point[] },
  out: Decoded,
): { inside: number; opening: number; floating: number } {
  const opening = tracedOpening(f, eye);
  const { upper } = tracedOnCanvas(f, eye);
  const [ux, uy] = f.g.up, lift = 0.02 * f.g.fw;
  const band = polygonPixels(
    f.plain,
    [
      ...upper.map((p): Point => [p[0] + ux * lift, p[1] + uy * lift]),
      ...[...upper].reverse().map((p): Point => [p[0] + ux * 4 * lift, p[1] + uy * 4 * lift]),
    ],
    0,
    0.5,
  );
  return {
    inside: changed(f.plain, out, opening, 2).length,
    opening: opening.length,
    floating: changed(f.plain, out, band, FLOATING_DELTA_E).length,
  };
}

/**
 * Where eye makeup landed, judged from the photo's colours alone (any face,
 * no trace needed; eyeAreaPixels): pixels moved by ΔE > 3 around the eyes
 * that are the white of the eye, and those on skin with no lash-dark pixel
 * within 0.02 face widths below them (a line floating on the lid, beyond the
 * lashes), of all moved. The colour classes misread some faces (a pale closed
 * lid, grey makeup or blown-out skin reads as white), so the figures compare
 * renders of one face, not faces.
 */
export function linerPlacement(
  plain: Decoded,
  out: Decoded,
  g: FaceGeometry,
): { onWhite: number; floating: number; moved: number } {
  const { white, dark } = eyeAreaPixels(plain, g);
  const near = new Set<number>();
  forEyeBoxPixels(plain, g, 0.08 * g.fw, (p) => near.add(p));
  const moved = changed(plain, out, [...near], 3);
  const reach = Math.round(0.02 * g.fw), [ux, uy] = g.up;
  let floating = 0;
  for (const p of moved) {
    if (white.has(p) || dark.has(p)) continue;
    const x = p % plain.width, y = Math.floor(p / plain.width);
    let lashes = false;
    for (let k = 1; k <= reach && !lashes; k++) {
      lashes = dark.has(Math.round(y - uy * k) * plain.width + Math.round(x - ux * k));
    }
    if (!lashes) floating++;
  }
  return { onWhite: moved.filter((p) => white.has(p)).length, floating, moved: moved.length };
}

/** L* at a fractional canvas position (bilinear on the gamma-encoded channels). */
export function lightnessAt(img: Decoded, x: number, y: number): number {
  const x0 = Math.max(0, Math.min(img.width - 2, Math.floor(x))),
    y0 = Math.max(0, Math.min(img.height - 2, Math.floor(y)));
  const fx = Math.min(1, Math.max(0, x - x0)), fy = Math.min(1, Math.max(0, y - y0));
  const rgb = [0, 1, 2].map((k) => {
    const i = (y0 * img.width + x0) * 3 + k, j = i + img.width * 3;
    return (img.data[i] * (1 - fx) + img.data[i + 3] * fx) * (1 - fy) +
      (img.data[j] * (1 - fx) + img.data[j + 3] * fx) * fy;
  });
  return srgbToLab(Math.round(rgb[0]), Math.round(rgb[1]), Math.round(rgb[2]))[0];
}

/**
 * How soft the liner's edge against the eye is, next to the photo's own lid
 * edge (see TRACED_EYES). The liner is painted (by the caller) with the face's
 * geometry and lid lines on a flat skin-coloured canvas (`flat` -> `out`), so
 * its own edge is read undisturbed by the lashes under it. At the traced upper
 * lid's points 0.2-0.8 of the way between the corners, profiles run along the
 * face's up axis from 0.02 face widths below the traced line to 0.02 above.
 * Each edge is read as a blurred step, sigma = contrast / (steepest slope x
 * sqrt(2 pi)): the photo's from its L*, the liner's from the darkening it adds,
 * over its rise from inside the opening to its darkest. Medians over the
 * profiles, in px: a cut far crisper than the photo's own edges reads as paint.
 */
export function linerEdgeSoftness(
  f: FramedFace,
  eye: { upper: Point[]; lower: Point[] },
  flat: Decoded,
  out: Decoded,
): { photo: number; liner: number } {
  const { upper } = tracedOnCanvas(f, eye);
  const [ux, uy] = f.g.up, reach = Math.round(0.02 * f.g.fw);
  const photo: number[] = [], liner: number[] = [];
  const sigma = (v: number[], from: number, to: number) => {
    let lo = Infinity, hi = -Infinity, slope = 0;
    for (let k = from; k <= to; k++) {
      lo = Math.min(lo, v[k]);
      hi = Math.max(hi, v[k]);
      if (k > 0 && k < v.length - 1) slope = Math.max(slope, Math.abs(v[k + 1] - v[k - 1]) / 2);
    }
    return slope > 0 ? (hi - lo) / (slope * Math.sqrt(2 * Math.PI)) : NaN;
  };
  const o = upper[0], i = upper[upper.length - 1];
  for (let t = 0.2; t <= 0.8001; t += 0.05) {
    const c: Point = [o[0] + (i[0] - o[0]) * t, o[1] + (i[1] - o[1]) * t];
    // The traced line's height at this point along the corner-to-corner chord.
    let best = Infinity, at: Point = c;
    for (let k = 1; k < upper.length; k++) {
      for (let s = 0; s <= 1; s += 0.05) {
        const q: Point = [
          upper[k - 1][0] + (upper[k][0] - upper[k - 1][0]) * s,
          upper[k - 1][1] + (upper[k][1] - upper[k - 1][1]) * s,
        ];
        const across = Math.abs((q[0] - c[0]) * uy - (q[1] - c[1]) * ux);
        if (across < best) {
          best = across;
          at = q;
        }
      }
    }
    const p = [], d = [];
    for (let k = -reach; k <= reach; k++) {
      const x = at[0] + ux * k, y = at[1] + uy * k;
      const l = lightnessAt(f.plain, x, y);
      p.push(l);
      d.push(lightnessAt(flat, x, y) - lightnessAt(out, x, y));
    }
    let top = 0;
    for (let k = 1; k < d.length; k++) if (d[k] > d[top]) top = k;
    if (d[top] < 10) continue;
    photo.push(sigma(p, 0, p.length - 1));
    liner.push(sigma(d, 0, top));
  }
  const median = (v: number[]) => {
    const s = v.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    return s.length ? s[s.length >> 1] : NaN;
  };
  return { photo: median(photo), liner: median(liner) };
}

/**
 * Eye product where the photo shows no eye: pixels `out` moved from `plain`
 * by ΔE > `min` (around the face, faceBox) that lie outside every padded box
 * around the photo's lash-dark pixels (25+ L* under the face's skin, see
 * eyeAreaPixels; lashes, irises, brows, dark hair), the boxes reaching
 * `pad` face widths each way. Found from the photo's colours, not the mesh's
 * eyes: eye product painted on bare skin the mesh took for an eye (the side of
 * the nose of a turned head) lies far from anything that dark.
 */
export function eyeProductOffEyes(plain: Decoded, out: Decoded, g: FaceGeometry, pad = 0.1, min = 6): number {
  const skin = meanLab(
    plain,
    SKIN_SAMPLES.map((i) => Math.round(g.pts[i][1]) * plain.width + Math.round(g.pts[i][0])),
  );
  const box = faceBox(plain, g), W = plain.width, H = plain.height;
  const x0 = box[0] % W, y0 = Math.floor(box[0] / W);
  const x1 = box[box.length - 1] % W + 1, y1 = Math.floor(box[box.length - 1] / W) + 1;
  const r = Math.round(pad * g.fw);
  // The dark pixels of the box and a margin (a dark pixel just outside still covers pixels inside).
  const mx0 = Math.max(0, x0 - r), my0 = Math.max(0, y0 - r);
  const mw = Math.min(W, x1 + r) - mx0, mh = Math.min(H, y1 + r) - my0;
  const dark = new Uint8Array(mw * mh);
  for (let y = 0; y < mh; y++) {
    for (let x = 0; x < mw; x++) {
      dark[y * mw + x] = labOf(plain, (my0 + y) * W + mx0 + x)[0] <= skin[0] - 25 ? 1 : 0;
    }
  }
  // Square dilation by r (rows, then columns), with running counts.
  const grow = (src: Uint8Array, along: "x" | "y") => {
    const dst = new Uint8Array(src.length);
    const [n, m] = along === "x" ? [mh, mw] : [mw, mh];
    for (let a = 0; a < n; a++) {
      const at = (b: number) => along === "x" ? a * mw + b : b * mw + a;
      let count = 0;
      for (let b = 0; b < Math.min(m, r); b++) count += src[at(b)];
      for (let b = 0; b < m; b++) {
        if (b + r < m) count += src[at(b + r)];
        if (b - r - 1 >= 0) count -= src[at(b - r - 1)];
        dst[at(b)] = count > 0 ? 1 : 0;
      }
    }
    return dst;
  };
  const near = grow(grow(dark, "x"), "y");
  let off = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (near[(y - my0) * mw + x - mx0]) continue;
      const p = y * W + x;
      if (deltaE(labOf(plain, p), labOf(out, p)) > min) off++;
    }
  }
  return off;
}

/**
 * Where each eye lies in the demo photo, marked by hand (photo pixels: the
 * lashes, the opening and the lid up to the crease, [x0, y0, x1, y1]), for
 * faces whose mesh puts an eye off the eye. Keyed by "sample@x" and the
 * subject's side.
 */
export const EYES_SEEN: Record<string, [number, number, number, number]> = {
  // Head turned to her left, big smile, eyes narrowed: the mesh's right eye lies on the lit side of the
  // nose, about 0.2 face widths under the real one.
  "sample4@1216 R": [1296, 208, 1342, 246],
  "sample4@1216 L": [1350, 245, 1402, 282],
};

/**
 * Eye centres marked by hand on the demo photos (photo pixels: halfway
 * between the corners, on the opening), for eyes the mesh puts on skin.
 * sample4@1216 R: a narrowed eye, a greyish sliver of white (1309-1319,
 * 219-232) beside the dark iris and lashes (1318-1330, 228-236).
 * sample1@1438 R: head tilted ~25 degrees, corners at (1543, 270) and
 * (1568, 289), iris at (1560, 281).
 */
export const EYE_CENTRES_SEEN: Record<string, Point> = {
  "sample4@1216 R": [1319, 229],
  "sample1@1438 R": [1557, 280],
};

/** A canvas point in the demo photo's pixels. */
export const toPhoto = (f: FramedFace, p: Point): Point => [
  (p[0] - f.framing.offsetX) / f.framing.scale + f.crop.left,
  (p[1] - f.framing.offsetY) / f.framing.scale + f.crop.top,
];

/**
 * Pixels `out` moved from the unstyled canvas by ΔE > `min` outside the
 * photo's eyes (EYES_SEEN, both sides of `label`), each box grown by the
 * room eye products take: 0.08 face widths up (shadow blended toward the
 * brow), 0.06 outward and inward (a wing, the inner corner) and 0.02 down
 * (liner and lashes stop at the lash line). Counted within faceBox.
 */
export function eyeProductOutsideSeenEyes(f: FramedFace, out: Decoded, label: string, min = 6): number {
  const fw = f.g.fw, s = f.framing.scale;
  const boxes = (["R", "L"] as const).map((side) => {
    const [x0, y0, x1, y1] = EYES_SEEN[`${label} ${side}`];
    const toX = (x: number) => (x - f.crop.left) * s + f.framing.offsetX;
    const toY = (y: number) => (y - f.crop.top) * s + f.framing.offsetY;
    return [toX(x0) - 0.06 * fw, toY(y0) - 0.08 * fw, toX(x1) + 0.06 * fw, toY(y1) + 0.02 * fw];
  });
  const W = f.plain.width;
  return changed(f.plain, out, faceBox(f.plain, f.g), min).filter((p) => {
    const x = p % W, y = Math.floor(p / W);
    return !boxes.some(([x0, y0, x1, y1]) => x >= x0 && x <= x1 && y >= y0 && y <= y1);
  }).length;
}

/**
 * Upper teeth traced by hand on the demo photos (photo pixels, one outline),
 * where the lip test's colour classes miss them: in warm light the teeth of
 * sample4@1216 are as red as her skin (a* 14-24 against the lip's 33-37), not
 * "much less red than the lip". Only the teeth clearly seen (the right end,
 * where they fade into the skin's colour, is left out).
 */
export const TRACED_TEETH: Record<string, Point[]> = {
  "sample4@1216": [
    [1302.3, 314.0],
    [1306.5, 313.0],
    [1310.0, 315.7],
    [1313.4, 316.8],
    [1316.9, 318.2],
    [1320.4, 319.2],
    [1323.9, 321.0],
    [1327.4, 322.7],
    [1330.9, 324.5],
    [1334.4, 326.2],
    [1339.7, 326.9],
    [1344.9, 327.6],
    [1344.9, 330.8],
    [1340.7, 331.5],
    [1336.2, 331.1],
    [1334.4, 330.4],
    [1330.9, 331.1],
    [1327.4, 328.7],
    [1323.9, 328.0],
    [1320.4, 326.2],
    [1316.9, 324.8],
    [1313.4, 323.1],
    [1310.0, 321.3],
    [1306.5, 319.6],
    [1302.3, 315.7],
  ],
  // Laughing, head tilted: the upper teeth between the lips (TRACED_LIPS), up to the dark cavity
  // below them.
  "sample1@1438": [
    [1503, 354],
    [1506, 354],
    [1510, 360],
    [1514, 364],
    [1518, 365],
    [1522, 369],
    [1526, 373],
    [1530, 378],
    [1534, 381],
    [1538, 384],
    [1542, 387],
    [1542, 391],
    [1538, 389],
    [1534, 390],
    [1530, 386],
    [1526, 383],
    [1522, 380],
    [1518, 378],
    [1514, 374],
    [1510, 371],
    [1506, 366],
    [1503, 363],
  ],
};

/**
 * Lips traced by hand on the demo photos (photo pixels), where the mesh's lip
 * outline is off them. sample1@1438 (FRONTAL_FACES[1]): head tilted ~25°,
 * laughing, the upper teeth showing; the mesh's outline covers the right half
 * of the mouth and runs ~15 photo px past its right corner onto the cheek.
 * Traced along where the lip's a* falls to the skin's (lip a* 20-32, skin
 * 11-17). `mouth` is the mouth's outer outline (lips, corners and opening).
 */
export const TRACED_LIPS: Record<string, { upper: Point[]; lower: Point[]; mouth: Point[] }> = {
  "sample1@1438": {
    upper: [
      [1503, 348],
      [1508, 347],
      [1512, 347],
      [1516, 351],
      [1520, 353],
      [1524, 356],
      [1528, 359],
      [1532, 363],
      [1536, 367],
      [1540, 369],
      [1544, 372],
      [1548, 375],
      [1551, 378],
      [1551, 382],
      [1546, 381],
      [1542, 384],
      [1538, 382],
      [1534, 377],
      [1530, 376],
      [1526, 370],
      [1522, 368],
      [1518, 363],
      [1514, 361],
      [1510, 355],
      [1506, 351],
    ],
    lower: [
      [1494, 353],
      [1491, 360],
      [1489, 366],
      [1488, 372],
      [1489, 380],
      [1491, 386],
      [1494, 392],
      [1497, 395],
      [1501, 398],
      [1505, 401],
      [1510, 403],
      [1516, 405],
      [1522, 404.5],
      [1530, 404.5],
      [1538, 403.5],
      [1542, 402.5],
      [1546, 399],
      [1550, 398.5],
      [1550, 397],
      [1544, 397],
      [1538, 397],
      [1532, 396],
      [1528, 395],
      [1524, 393],
      [1520, 391],
      [1516, 388],
      [1512, 384],
      [1508, 383],
      [1504, 377],
      [1500, 374],
      [1499, 365],
      [1499, 356],
      [1497, 352],
    ],
    mouth: [
      [1494, 353],
      [1500, 342],
      [1503, 347],
      [1508, 347],
      [1512, 347],
      [1516, 351],
      [1520, 353],
      [1524, 356],
      [1528, 359],
      [1532, 363],
      [1536, 367],
      [1540, 369],
      [1544, 372],
      [1548, 375],
      [1551, 378],
      [1557, 394],
      [1550, 398.5],
      [1546, 399],
      [1542, 402.5],
      [1538, 403.5],
      [1530, 404.5],
      [1522, 404.5],
      [1516, 405],
      [1510, 403],
      [1505, 401],
      [1501, 398],
      [1497, 395],
      [1494, 392],
      [1491, 386],
      [1489, 380],
      [1488, 372],
      [1489, 366],
      [1491, 360],
    ],
  },
};

/**
 * The skin around a traced mouth: canvas pixels inside `box` (photo pixels
 * x0, y0, x1, y1) more than ~3 photo px outside the mouth's outline (the
 * lipstick's feathered edge and the trace's own pixel of doubt aside).
 */
export function skinAroundMouth(
  f: FramedFace,
  mouth: Point[],
  box: [number, number, number, number],
): number[] {
  const s = f.framing.scale;
  const toCanvas = (p: Point): Point => [
    (p[0] - f.crop.left) * s + f.framing.offsetX,
    (p[1] - f.crop.top) * s + f.framing.offsetY,
  ];
  const near = new Set(polygonPixels(f.plain, mouth.map(toCanvas), 1.3 * s, 0.01));
  const [x0, y0, x1, y1] = box;
  const corners: Point[] = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
  return polygonPixels(f.plain, corners.map(toCanvas), 0, 0.5).filter((p) => !near.has(p));
}

/**
 * A traced outline's pixels on the canvas, its rim of about a photo pixel
 * aside (a hand trace on the photo is good to about a pixel, and the photo is
 * enlarged 2-3x to the canvas, its edges blurred over as many pixels).
 */
export function tracedPixels(f: FramedFace, outline: Point[]): number[] {
  const s = f.framing.scale;
  return polygonPixels(
    f.plain,
    outline.map((p): Point => [
      (p[0] - f.crop.left) * s + f.framing.offsetX,
      (p[1] - f.crop.top) * s + f.framing.offsetY,
    ]),
    s,
    0.75,
  );
}
