/**
 * The eye's real upper lid line, found in the photo's own pixels near the face
 * mesh's eye contour. The mesh can sit off the eye (a tilted or pouting face:
 * its lid line across the white of the eye or up on the lid); liner, lashes,
 * eyeshadow and the eye-opening protection follow this line instead.
 *
 * Going up across the lid, the opening (the white of the eye) meets the dark
 * lash line: a bright-below/dark-above step in the luma. At 21 columns along
 * the mesh's upper lid, every offset within 0.04 face widths of it (along the
 * normal to the eye's corner-to-corner axis, never lower than half the mesh's
 * opening) is scored by that step (the bright side averaged deeper than the
 * dark, so a catchlight in the iris scores little); the path through the
 * columns with the greatest summed steps less a cost for bending and for
 * straying from the mesh is found by dynamic programming. Over the iris there
 * is no step: the offsets found on either side are carried across it. When the
 * path's mean step is weak the mesh's line is kept. Below the mesh's line, a
 * bright side the colour of the face's skin is no evidence (the cheek under a
 * narrowed eye). The lower lid (whose edge against the skin is too faint to
 * find) only moves down with lowered corners.
 *
 * Where the white of the eye runs on past the mesh's corner, the lid line is
 * followed on from the path's end column while the step remains and the
 * colour under it is nearer the white's than the skin's around the corner;
 * where it ends is the corner (see extendCorner).
 */
import type { Canvas } from "./blend.ts";
import { deltaE, lightnessOf, linearToLab, luminance, SRGB_TO_LINEAR, srgbToLab } from "./color.ts";
import { skinMeanLinear } from "./skin-tone.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { LASH_L, LASH_R, LOWER_LASH_L, LOWER_LASH_R } from "./landmarks.ts";
import { boundsOf, createMask, feather, fillPolygon, type Point } from "./masks.ts";

export interface EyeContour {
  /** Upper lash line, outer corner to inner corner (the mesh's LASH_R/L points, moved). */
  upper: Point[];
  /**
   * Each upper point's place along the mesh's lid: the mesh's point i of n at
   * i / (n - 1); points followed past the mesh's corners at 0 or 1.
   */
  at: number[];
  /** Lower lash line, outer corner to inner corner (LOWER_LASH_R/L; moved down with lowered corners). */
  lower: Point[];
  /** The eye opening's outline: upper line then the lower line back. */
  outline: Point[];
  /** Offset (px, along the eye's up normal) at the outer and inner corners; 0, 0 = the mesh. */
  shift: [number, number];
  /** The lid path found (kept even when too weak to use). */
  path: LidPath;
  /** Whether the path was used (false: the mesh's line is kept). */
  refined: boolean;
  /**
   * Whether the mesh's eye lies on an eye at all: false when its outline and
   * a rim around it show nothing but skin (no lash-dark pixel, colour within
   * a few ΔE of the skin or lighter than it), as where the mesh of a strongly
   * tilted or turned head puts an eye on the side of the nose. The eye layers
   * leave such an eye alone. True for an eye moved onto the eye found in the
   * photo beside the other one (`moved`; the outline and lid line are then
   * found from the moved points).
   */
  onEye: boolean;
  /**
   * How the mesh's eye was moved onto the eye found in the photo: null unless
   * the mesh put the eye on skin and the eye was found near it (searchEye).
   * The layers move the mesh's crease and brow with it (placeMesh).
   */
  moved: EyeMove | null;
  /**
   * Whether strands of hair lie across the eye (see underHair): the eye layers leave it bare, as they
   * would a lid the hair hides.
   */
  covered: boolean;
}

/** Whether the eye layers paint this eye: it lies on an eye in the photo, and no hair covers it. */
export function paintable(eye: EyeContour): boolean {
  return eye.onEye && !eye.covered;
}

export interface EyeContours {
  right: EyeContour;
  left: EyeContour;
  /** How soft the photo's upper lid edges are: a Gaussian sigma in canvas pixels (see lidSoftness). */
  softness: number;
}

const cache = new WeakMap<FaceGeometry, EyeContours>();

/**
 * The refined eye outlines for a face, computed from `img` on first use and
 * kept with the geometry (the layers of one render share them, and the
 * outline found before the eyeshadow is painted is the one the liner uses).
 */
export function eyeContours(img: Canvas, g: FaceGeometry): EyeContours {
  let c = cache.get(g);
  if (!c) {
    const meshR = { upper: LASH_R.map((i) => g.pts[i]), lower: LOWER_LASH_R.map((i) => g.pts[i]) };
    const meshL = { upper: LASH_L.map((i) => g.pts[i]), lower: LOWER_LASH_L.map((i) => g.pts[i]) };
    const onR = onAnEye(img, g, meshR.upper, meshR.lower), onL = onAnEye(img, g, meshL.upper, meshL.lower);
    const [moveR, moveL] = relocateEyes(img, g, meshR, meshL, onR, onL);
    const right = refineEye(img, g, meshR, onR, moveR), left = refineEye(img, g, meshL, onL, moveL);
    for (const eye of [right, left]) eye.covered = underHair(img, g, eye);
    c = { right, left, softness: lidSoftness(img, g, [right, left]) };
    cache.set(g, c);
  }
  return c;
}

/**
 * How soft the photo's upper lid edges are, as the sigma (canvas pixels) of a blurred step: a photo enlarged
 * 2-3x to fill the frame, or out of focus, has soft lid edges (1.9-3.8 px on the 16 frontal test faces), and a
 * liner cut at 1 px reads as drawn on the photo (see eye-makeup.ts, softenLikeLids). At 7 points 0.2-0.8 of the
 * way along each found lid line (paintable eyes only: on an eye, not under hair), the
 * luma profile up the face over LID_PROFILE face widths either side is read as sigma = contrast / (steepest
 * slope x sqrt(2 pi)); profiles with less than LID_CONTRAST levels of contrast show no edge. The median, or 0
 * when no profile shows an edge.
 */
function lidSoftness(img: Canvas, g: FaceGeometry, eyes: EyeContour[]): number {
  const [ux, uy] = g.up, reach = Math.max(2, Math.round(LID_PROFILE * g.fw));
  const found: number[] = [];
  const profile = new Float64Array(2 * reach + 1);
  for (const eye of eyes) {
    if (!paintable(eye)) continue;
    const line = eye.upper, last = line.length - 1;
    for (let t = 0.2; t <= 0.8001; t += 0.1) {
      const k = Math.min(last - 1, Math.floor(t * last)), f = t * last - k;
      const x = line[k][0] + (line[k + 1][0] - line[k][0]) * f,
        y = line[k][1] + (line[k + 1][1] - line[k][1]) * f;
      for (let j = -reach; j <= reach; j++) profile[j + reach] = lumaAt(img, x + ux * j, y + uy * j);
      let lo = Infinity, hi = -Infinity, slope = 0;
      for (let j = 0; j < profile.length; j++) {
        lo = Math.min(lo, profile[j]);
        hi = Math.max(hi, profile[j]);
        if (j > 0 && j < profile.length - 1) {
          slope = Math.max(slope, Math.abs(profile[j + 1] - profile[j - 1]) / 2);
        }
      }
      if (hi - lo >= LID_CONTRAST) found.push((hi - lo) / (slope * Math.sqrt(2 * Math.PI)));
    }
  }
  found.sort((a, b) => a - b);
  return found.length ? found[found.length >> 1] : 0;
}

/**
 * Which way the edges over an eye and its lid run: the share of the luma gradients' energy along the eye's
 * corner-to-corner axis (edges running across the eye), on a grid from LID_TEXTURE_BELOW face widths below the
 * upper lid line to LID_TEXTURE_ABOVE above it, from 0.1 of the line's length before its outer corner to 0.1
 * past its inner one. An eye's own edges (the lash line, the crease, the brow's lower edge) run along the axis:
 * 0.18-0.59 on the eyes of the 16 frontal test faces at four crops and both sizes, but up to 0.71 on a tilted
 * head's (sample4@1216's right eye). Strands of hair hanging over an eye cross it: sample2@805's left eye,
 * under her side-swept hair, 0.67-0.74.
 */
function lidTexture(img: Canvas, g: FaceGeometry, eye: EyeContour): number {
  const p0 = eye.upper[0], p1 = eye.upper[eye.upper.length - 1];
  const len = Math.hypot(p1[0] - p0[0], p1[1] - p0[1]);
  if (len < 1) return 0;
  const ax = [(p1[0] - p0[0]) / len, (p1[1] - p0[1]) / len];
  // The normal pointing up the face.
  const up = ax[1] * g.up[0] - ax[0] * g.up[1] >= 0 ? [ax[1], -ax[0]] : [-ax[1], ax[0]];
  let along = 0, total = 0;
  for (let u = -0.1; u <= 1.1001; u += 0.02) {
    for (let v = -LID_TEXTURE_BELOW; v <= LID_TEXTURE_ABOVE + 1e-9; v += 0.004) {
      const x = p0[0] + ax[0] * u * len + up[0] * v * g.fw, y = p0[1] + ax[1] * u * len + up[1] * v * g.fw;
      // One-pixel central differences along the image's axes, turned onto the eye's.
      const gx = (lumaAt(img, x + 1, y) - lumaAt(img, x - 1, y)) / 2;
      const gy = (lumaAt(img, x, y + 1) - lumaAt(img, x, y - 1)) / 2;
      const ga = gx * ax[0] + gy * ax[1];
      along += ga * ga;
      total += gx * gx + gy * gy;
    }
  }
  return total > 0 ? along / total : 0;
}

/** How far above and below the upper lid line lidTexture reads, in face widths. */
const LID_TEXTURE_ABOVE = 0.08, LID_TEXTURE_BELOW = 0.02;
/**
 * An eye is under hair when no lid line was found where the mesh puts it (its path too weak to use: see
 * refineEye) and at least this share of its texture runs across it (see lidTexture). Neither alone is
 * enough: a closed or blurred eye shows no lid line either, with its edges still along it (0.24-0.46 on the
 * frontal test faces whose lid line was not found); a tilted face's found lid reads 0.68-0.71 across
 * (sample4@1216's right eye).
 */
const COVERED_ACROSS = 0.6;
/**
 * Only on a head within this many degrees of upright: the mesh as found on a tilted head may lie off the eyes
 * (decision 021), and sample4@1216's (22 degrees), measured on her rendered portrait, put her left eye where
 * no lid line was found and read 0.65 across. sample2@805's head is 3-4 degrees from upright.
 */
const COVERED_ROLL = 15;

function underHair(img: Canvas, g: FaceGeometry, eye: EyeContour): boolean {
  const roll = Math.abs(Math.atan2(g.up[0], -g.up[1])) * 180 / Math.PI;
  return eye.onEye && !eye.moved && !eye.refined && roll <= COVERED_ROLL &&
    lidTexture(img, g, eye) >= COVERED_ACROSS;
}

/** Half length of lidSoftness's profiles, in face widths (the lash line and the lid above it). */
const LID_PROFILE = 0.02;
/** Luma levels a lid profile must span to count as an edge (see lidSoftness). */
const LID_CONTRAST = 15;

/** Colour (0-255 per channel, gamma-encoded) at a fractional position, bilinear, clamped to the canvas. */
function rgbAt(img: Canvas, x: number, y: number): number[] {
  const W = img.width, H = img.height;
  x = Math.min(W - 1.001, Math.max(0, x - 0.5));
  y = Math.min(H - 1.001, Math.max(0, y - 0.5));
  const x0 = Math.floor(x), y0 = Math.floor(y), fx = x - x0, fy = y - y0, d = img.data;
  const i = (y0 * W + x0) * 3, j = i + W * 3;
  return [0, 1, 2].map((k) =>
    (d[i + k] * (1 - fx) + d[i + 3 + k] * fx) * (1 - fy) + (d[j + k] * (1 - fx) + d[j + 3 + k] * fx) * fy
  );
}

/** Luma (0-255, gamma-encoded) at a fractional position, bilinear, clamped to the canvas. */
function lumaAt(img: Canvas, x: number, y: number): number {
  const W = img.width, H = img.height;
  x = Math.min(W - 1.001, Math.max(0, x - 0.5));
  y = Math.min(H - 1.001, Math.max(0, y - 0.5));
  const x0 = Math.floor(x), y0 = Math.floor(y), fx = x - x0, fy = y - y0;
  const at = (xx: number, yy: number) => {
    const i = (yy * W + xx) * 3, d = img.data;
    return 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
  };
  const a = at(x0, y0), b = at(x0 + 1, y0), c = at(x0, y0 + 1), e = at(x0 + 1, y0 + 1);
  return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + e * fx) * fy;
}

/** Search reach either side of the mesh's line, in face widths. */
const REACH = 0.04;
/** Half-width of the windows compared across a step, in face widths. */
const STEP_HALF = 0.01;
/** Columns along the upper line where the step is searched (fractions of the way from the outer corner). */
const COLUMNS = 21;
const U0 = 0.06, U1 = 0.94;

export interface LidPath {
  /** Fractions of the way from the outer to the inner corner. */
  u: number[];
  /** Offset of the lid at each column (px along the up normal; + = above the mesh). */
  d: number[];
  /** Step strength summed along the path, and along the mesh's own line. */
  strength: number;
  meshStrength: number;
}

/** Point on a polyline at fraction u of its length. */
function along(line: Point[], u: number): Point {
  const seg: number[] = [];
  let total = 0;
  for (let i = 1; i < line.length; i++) {
    const l = Math.hypot(line[i][0] - line[i - 1][0], line[i][1] - line[i - 1][1]);
    seg.push(l);
    total += l;
  }
  let t = u * total;
  for (let i = 0; i < seg.length; i++) {
    if (t <= seg[i] || i === seg.length - 1) {
      const f = seg[i] ? Math.min(1, t / seg[i]) : 0;
      return [
        line[i][0] + (line[i + 1][0] - line[i][0]) * f,
        line[i][1] + (line[i + 1][1] - line[i][1]) * f,
      ];
    }
    t -= seg[i];
  }
  return line[line.length - 1];
}

/** The eye's frame: corners, unit axis (outer -> inner) and up normal (toward the brow). */
function frame(g: FaceGeometry, upper: Point[]) {
  const outer = upper[0], inner = upper[upper.length - 1];
  const len = Math.hypot(inner[0] - outer[0], inner[1] - outer[1]) || 1;
  const ax: Point = [(inner[0] - outer[0]) / len, (inner[1] - outer[1]) / len];
  let n: Point = [-ax[1], ax[0]];
  if (n[0] * g.up[0] + n[1] * g.up[1] < 0) n = [-n[0], -n[1]];
  return { outer, inner, len, ax, n };
}

/**
 * The lid path: at each column, the bright-below/dark-above step in the luma
 * at each offset from the mesh's line; the path that maximises the summed
 * steps less a cost for bending away from the mesh line's shape and for
 * straying from it (dynamic programming over whole-pixel offsets).
 */
export function lidPath(img: Canvas, g: FaceGeometry, upper: Point[], lower: Point[]): LidPath {
  const { ax, n } = frame(g, upper);
  const reach = Math.max(3, Math.round(REACH * g.fw)), half = Math.max(2, Math.round(STEP_HALF * g.fw));
  // The bright side is averaged deeper than the dark side: the white of the
  // eye runs on down the opening, a catchlight in the iris does not.
  const deep = Math.round(2.5 * half);
  const nD = 2 * reach + 1, lo0 = reach + deep, nP = lo0 + reach + half + 1;
  const prof = new Float64Array(nP), profRgb = new Float64Array(3 * nP);
  const sk = skinMeanLinear(img, g), skinLab = linearToLab(sk[0], sk[1], sk[2]);
  const us: number[] = [];
  const unary: Float64Array[] = [];
  const lowerAt = (u: number) => along(lower, u);
  for (let c = 0; c < COLUMNS; c++) {
    const u = U0 + (U1 - U0) * c / (COLUMNS - 1);
    us.push(u);
    const p = along(upper, u);
    for (let k = 0; k < nP; k++) {
      const d = k - lo0;
      let s = 0;
      for (const t of [-1, 0, 1]) {
        s += lumaAt(img, p[0] + n[0] * d + ax[0] * t, p[1] + n[1] * d + ax[1] * t);
      }
      prof[k] = s / 3;
      if (d < 0) {
        const v = rgbAt(img, p[0] + n[0] * d, p[1] + n[1] * d);
        profRgb[3 * k] = v[0];
        profRgb[3 * k + 1] = v[1];
        profRgb[3 * k + 2] = v[2];
      }
    }
    // The lid never comes down past half the mesh's opening (a step lower is
    // the bottom of the iris or of a shadow, not the lid).
    const q = lowerAt(u);
    const open = Math.max(0, (p[0] - q[0]) * n[0] + (p[1] - q[1]) * n[1]);
    const lowest = -Math.max(0.02 * g.fw, 0.5 * open);
    const row = new Float64Array(nD).fill(-1e6);
    for (let i = 0; i < nD; i++) {
      const d = i - reach;
      if (d < lowest) continue;
      const k = d + lo0;
      let below = 0, above = 0;
      for (let j = 1; j <= deep; j++) below += prof[k - j];
      for (let j = 1; j <= half; j++) above += prof[k + j];
      row[i] = Math.max(0, below / deep - above / half - MIN_STEP);
      // Below the mesh's line, a bright side the colour of the face's skin is
      // the cheek under a narrowed eye, not the white of the eye.
      if (d < 0 && row[i] > 0) {
        const m = [0, 0, 0];
        for (let j = 1; j <= deep; j++) for (let q = 0; q < 3; q++) m[q] += profRgb[3 * (k - j) + q] / deep;
        if (
          deltaE(srgbToLab(Math.round(m[0]), Math.round(m[1]), Math.round(m[2])), skinLab) < CHEEK_DELTA_E
        ) row[i] = 0;
      }
    }
    unary.push(row);
  }
  // Dynamic programming: bending costs BEND per pixel of change between
  // neighbouring columns (and jumps over a column's spacing are not allowed),
  // straying costs STRAY per pixel of offset.
  const spacing = (U1 - U0) / (COLUMNS - 1) * frame(g, upper).len;
  const maxJump = Math.max(1, Math.round(spacing));
  let score = Float64Array.from(unary[0], (v, i) => v - STRAY * Math.abs(i - reach));
  const back: Int32Array[] = [];
  for (let c = 1; c < COLUMNS; c++) {
    const next = new Float64Array(nD).fill(-Infinity), from = new Int32Array(nD);
    for (let i = 0; i < nD; i++) {
      for (let j = Math.max(0, i - maxJump); j <= Math.min(nD - 1, i + maxJump); j++) {
        const v = score[j] - BEND * Math.abs(i - j);
        if (v > next[i]) {
          next[i] = v;
          from[i] = j;
        }
      }
      next[i] += unary[c][i] - STRAY * Math.abs(i - reach);
    }
    back.push(from);
    score = next;
  }
  let end = 0;
  for (let i = 1; i < nD; i++) if (score[i] > score[end]) end = i;
  const idx = [end];
  for (let c = COLUMNS - 2; c >= 0; c--) idx.unshift(back[c][idx[0]]);
  // Over the iris (and wherever else no step is found) the path has no
  // evidence and straying costs, so it clung to the mesh's line there, which
  // can lie several pixels above the lid on both sides of it (sample3@1372 R:
  // -5 to -8 px at the inner columns, 0 over the iris). Between columns that
  // found the lid, the offset is carried across linearly instead (offsets
  // from the mesh's line, so the line keeps the mesh's arch).
  const d = idx.map((i) => i - reach);
  const found = idx.map((i, c) => unary[c][i] > 0);
  for (let c0 = 0; c0 < COLUMNS; c0++) {
    if (!found[c0]) continue;
    let c1 = c0 + 1;
    while (c1 < COLUMNS && !found[c1]) c1++;
    if (c1 === COLUMNS) break;
    for (let c = c0 + 1; c < c1; c++) d[c] = d[c0] + (d[c1] - d[c0]) * (c - c0) / (c1 - c0);
  }
  return {
    u: us,
    d,
    strength: idx.reduce((s, i, c) => s + Math.max(0, unary[c][i]), 0),
    meshStrength: unary.reduce((s, row) => s + row[reach], 0),
  };
}

/** Cost of bending the path by a pixel between columns, and of straying a pixel from the mesh (luma units). */
const BEND = 6;
const STRAY = 1.5;

/**
 * Whether the mesh's eye outline (with a rim of about 0.02 face widths, where
 * a closed eye's lashes lie) shows an eye: any lash-dark pixel (25+ L* under
 * the skin's, or under half its L* on deep skin, where lashes and pupil are
 * less than 25 L* darker), or a mean colour more than SKIN_ONLY_DELTA_E from
 * the skin's that is darker than the skin. Lashes, iris and the lid's shadow
 * always darken an eye's outline on average (the 57 eyes found on the test
 * crops: 13.6-41 L* under the skin); a patch of skin lit brighter than the
 * face's mean (the side of the nose of a turned head, sample4@1216: 16 L*
 * over the skin, 19.6 ΔE from it) is as far from the skin's colour but
 * lighter, and holds no eye.
 */
function onAnEye(img: Canvas, g: FaceGeometry, upper: Point[], lower: Point[]): boolean {
  const outline = [...upper, ...[...lower].reverse()];
  const m = createMask(boundsOf(outline, 0.04 * g.fw, img.width, img.height));
  fillPolygon(m, outline);
  feather(m, 0.01 * g.fw);
  const sk = skinMeanLinear(img, g), skin = linearToLab(sk[0], sk[1], sk[2]);
  const darkL = Math.max(skin[0] - 25, 0.5 * skin[0]);
  // Every other pixel of every other row is enough to tell skin from an eye.
  let n = 0, dark = 0, dev = 0, lightness = 0;
  for (let r = 0; r < m.h; r += 2) {
    for (let c = 0; c < m.w; c += 2) {
      if (m.data[r * m.w + c] < 0.02) continue;
      const i = ((m.y + r) * img.width + m.x + c) * 3;
      const lab = srgbToLab(img.data[i], img.data[i + 1], img.data[i + 2]);
      if (lab[0] <= darkL) dark++;
      dev += deltaE(lab, skin);
      lightness += lab[0];
      n++;
    }
  }
  return n === 0 || dark > 0.01 * n || (dev / n > SKIN_ONLY_DELTA_E && lightness / n < skin[0]);
}

/** An eye's outline whose mean colour is nearer the skin's than this (ΔE) shows no eye. */
const SKIN_ONLY_DELTA_E = 12;

function refineEye(
  img: Canvas,
  g: FaceGeometry,
  mesh: MeshEye,
  meshOnEye: boolean,
  moved: EyeMove | null,
): EyeContour {
  const shift = (p: Point): Point => placeMesh(moved, p);
  const upper = mesh.upper.map(shift), lower = mesh.lower.map(shift);
  const onEye = moved ? true : meshOnEye;
  const path = lidPath(img, g, upper, lower);
  const { outer, ax, n, len } = frame(g, upper);
  const confident = path.strength >= MIN_EVIDENCE * COLUMNS;
  const dAt = (u: number) => {
    if (!confident) return 0;
    if (u <= path.u[0]) return path.d[0];
    for (let c = 1; c < path.u.length; c++) {
      if (u <= path.u[c]) {
        const f = (u - path.u[c - 1]) / (path.u[c] - path.u[c - 1]);
        return path.d[c - 1] + (path.d[c] - path.d[c - 1]) * f;
      }
    }
    return path.d[path.d.length - 1];
  };
  const uOf = (p: Point) => ((p[0] - outer[0]) * ax[0] + (p[1] - outer[1]) * ax[1]) / len;
  const up = upper.map((p): Point => {
    const d = dAt(uOf(p));
    return [p[0] + n[0] * d, p[1] + n[1] * d];
  });
  // The lower lid's edge against the skin below is too faint to find. Where
  // the lid line came down at the corners (the eye lies lower than the
  // mesh), the lower lid moves down with them (rigidly between them); where a
  // corner rose, the opening keeps the mesh's lower lid and corner below it
  // (the white of the eye runs on there).
  const d0 = dAt(0), d1 = dAt(1);
  const lo = lower.map((p): Point => {
    const u = Math.min(1, Math.max(0, uOf(p)));
    const d = Math.min(0, d0 + (d1 - d0) * u);
    return [p[0] + n[0] * d, p[1] + n[1] * d];
  });
  if (d0 <= 0) lo[0] = up[0];
  if (d1 <= 0) lo[lo.length - 1] = up[up.length - 1];
  let upper2 = up, lower2 = lo, at = up.map((_, i) => i / (up.length - 1));
  if (confident) {
    for (const end of [0, 1] as const) {
      [upper2, lower2, at] = extendCorner(img, g, upper, path, end, upper2, lower2, at, uOf);
    }
  }
  // The outline leaves out a lower corner that is the upper line's own.
  const same = (p: Point, q: Point) => p[0] === q[0] && p[1] === q[1];
  const closedO = same(upper2[0], lower2[0]);
  const closedI = same(upper2[upper2.length - 1], lower2[lower2.length - 1]);
  const back = lower2.slice(closedO ? 1 : 0, closedI ? -1 : lower2.length);
  return {
    upper: upper2,
    at,
    lower: lower2,
    outline: [...upper2, ...back.reverse()],
    shift: [d0, d1],
    path,
    refined: confident,
    onEye,
    moved,
    covered: false,
  };
}

/** Mean step strength along the path (luma units above MIN_STEP) below which the mesh is kept. */
const MIN_EVIDENCE = 4;

/** A bright side nearer than this (ΔE) to the face's mean skin colour is skin, not the white of the eye. */
const CHEEK_DELTA_E = 12;

/** A step weaker than this (luma units, 0-255) is no evidence. */
const MIN_STEP = 12;

/**
 * The eye's corner beyond the mesh's: from the lid path's end column, the lid
 * line is followed outward along the eye's axis (a pixel at a time, moving at
 * most a pixel along the normal per step) while a bright-below/dark-above
 * step remains over a colour nearer the white of the eye (sampled under the
 * end column's lid point) than the skin around the corner (the lid above the
 * lashes, the lower lid's skin); the corner lies the white's window depth
 * past the last such point. Used only when it lies beyond the mesh's corner:
 * the lid line's end is replaced by the followed line (its points at 0 or 1
 * in `at`), and the lower lid runs straight from the new corner to the
 * mesh's next lower-lid point. Not used when the white and that skin look
 * alike, or when the step runs on past the reach.
 */
function extendCorner(
  img: Canvas,
  g: FaceGeometry,
  meshUpper: Point[],
  path: LidPath,
  end: 0 | 1,
  up: Point[],
  lo: Point[],
  at: number[],
  uOf: (p: Point) => number,
): [Point[], Point[], number[]] {
  const { ax, n } = frame(g, meshUpper);
  const c = end === 0 ? 0 : path.u.length - 1;
  const base = along(meshUpper, path.u[c]);
  const s: Point = [base[0] + n[0] * path.d[c], base[1] + n[1] * path.d[c]];
  const dir: Point = end === 0 ? [-ax[0], -ax[1]] : [ax[0], ax[1]];
  const a = Math.max(2, Math.round(EXT_ABOVE * g.fw)), b = Math.max(2, Math.round(EXT_BELOW * g.fw));
  const maxK = Math.round(EXT_REACH * g.fw);
  const step = (q: Point) => {
    let below = 0, above = 0;
    for (let j = 1; j <= b; j++) below += lumaAt(img, q[0] - n[0] * j, q[1] - n[1] * j);
    for (let j = 1; j <= a; j++) above += lumaAt(img, q[0] + n[0] * j, q[1] + n[1] * j);
    return below / b - above / a;
  };
  // The white of the eye next to the column's lid point, and the skin around
  // the corner (the lid above the lashes, the lower lid's skin below it).
  const belowRgb = (q: Point) => {
    const m = [0, 0, 0];
    for (let j = 1; j <= b; j++) {
      const v = rgbAt(img, q[0] - n[0] * j, q[1] - n[1] * j);
      for (let k = 0; k < 3; k++) m[k] += v[k] / b;
    }
    return m;
  };
  const white = belowRgb(s);
  const lowAt = along(lo, path.u[c]);
  const lid = rgbAt(img, s[0] + n[0] * 0.03 * g.fw, s[1] + n[1] * 0.03 * g.fw);
  const cheek = rgbAt(img, lowAt[0] - n[0] * 0.015 * g.fw, lowAt[1] - n[1] * 0.015 * g.fw);
  const skin = lid.map((v, k) => (v + cheek[k]) / 2);
  // Where the white and the skin around the corner look alike, the corner
  // cannot be told from them: the mesh's is kept.
  const lab = (v: number[]) => srgbToLab(Math.round(v[0]), Math.round(v[1]), Math.round(v[2]));
  if (deltaE(lab(white), lab(skin)) < CORNER_MIN_DELTA_E) return [up, lo, at];
  const d2 = (x: number[], y: number[]) => (x[0] - y[0]) ** 2 + (x[1] - y[1]) ** 2 + (x[2] - y[2]) ** 2;
  const isWhite = (q: Point) => {
    const v = belowRgb(q);
    return d2(v, white) < d2(v, skin);
  };
  const pts: Point[] = [];
  let d = 0, miss = 0, ended = false;
  for (let k = 1; k <= maxK && !ended; k++) {
    let best = -Infinity, bestD = d;
    for (let dd = d - 1; dd <= d + 1; dd++) {
      const q: Point = [s[0] + dir[0] * k + n[0] * dd, s[1] + dir[1] * k + n[1] * dd];
      if (!isWhite(q)) continue;
      const v = step(q) - (dd === d ? 0 : 1);
      if (v > best) {
        best = v;
        bestD = dd;
      }
    }
    if (best < MIN_STEP) {
      ended = ++miss >= 2;
      continue;
    }
    miss = 0;
    d = bestD;
    pts.push([s[0] + dir[0] * k + n[0] * d, s[1] + dir[1] * k + n[1] * d]);
  }
  // A step that runs on past the reach is no eye's corner (the lashes' edge
  // over the cheek of a squinting eye, a shadow): the mesh's end is kept.
  if (!pts.length || !ended) return [up, lo, at];
  // The last point still had the white's full window under it; the wedge
  // runs on about that window's depth before the lids meet.
  const last = pts[pts.length - 1];
  const corner: Point = [last[0] + dir[0] * b, last[1] + dir[1] * b];
  pts.push(corner);
  const uS = uOf(s), uC = uOf(corner);
  if (end === 0 ? uC >= 0 : uC <= 1) return [up, lo, at];
  // Lid line: the followed points (every other one) from the corner to the
  // column's point, then the mesh's points past that column.
  const ext = [s, ...pts.filter((_, i) => i % 2 === 1 || i === pts.length - 1)];
  if (end === 0) {
    const keep = up.map((_, i) => i).filter((i) => uOf(up[i]) > uS);
    const lowNext = lo[keep[0]];
    const newUp = [...[...ext].reverse(), ...keep.map((i) => up[i])];
    const newLo = [
      ...[...ext].reverse().map((p): Point => {
        const f = Math.min(1, Math.max(0, (uOf(p) - uC) / ((uOf(lowNext) - uC) || 1)));
        return [corner[0] + (lowNext[0] - corner[0]) * f, corner[1] + (lowNext[1] - corner[1]) * f];
      }),
      ...keep.map((i) => lo[i]),
    ];
    return [newUp, newLo, [...ext.map(() => 0), ...keep.map((i) => at[i])]];
  }
  const keep = up.map((_, i) => i).filter((i) => uOf(up[i]) < uS);
  const lowNext = lo[keep[keep.length - 1]];
  const newUp = [...keep.map((i) => up[i]), ...ext];
  const newLo = [
    ...keep.map((i) => lo[i]),
    ...ext.map((p): Point => {
      const f = Math.min(1, Math.max(0, (uC - uOf(p)) / ((uC - uOf(lowNext)) || 1)));
      return [corner[0] + (lowNext[0] - corner[0]) * f, corner[1] + (lowNext[1] - corner[1]) * f];
    }),
  ];
  return [newUp, newLo, [...keep.map((i) => at[i]), ...ext.map(() => 1)]];
}

/** Windows above and below the lid line when following it past the mesh's corner, and how far (face widths). */
const EXT_ABOVE = 0.005;
const EXT_BELOW = 0.007;
const EXT_REACH = 0.06;
/** The white of the eye must differ from the skin around the corner by this much (ΔE) to follow it. */
const CORNER_MIN_DELTA_E = 6;

/** The mesh's upper and lower lash lines of one eye (outer corner to inner corner). */
interface MeshEye {
  upper: Point[];
  lower: Point[];
}

/** A mesh eye's move onto the eye in the photo: scaled by `scale` about `about`, then offset by `by` (px). */
export interface EyeMove {
  by: Point;
  scale: number;
  about: Point;
}

/** Where a mesh point near an eye lies once the eye is moved (unchanged when it is not). */
export function placeMesh(m: EyeMove | null, p: Point): Point {
  if (!m) return p;
  return [
    m.about[0] + (p[0] - m.about[0]) * m.scale + m.by[0],
    m.about[1] + (p[1] - m.about[1]) * m.scale + m.by[1],
  ];
}

/** The mean of points. */
export const centreOf = (pts: Point[]): Point =>
  pts.reduce((a, p): Point => [a[0] + p[0] / pts.length, a[1] + p[1] / pts.length], [0, 0]);

/** L* (0-100) of a gamma-encoded pixel, from its luminance only. */
function lightness(d: Uint8Array | Uint8ClampedArray, i: number): number {
  return lightnessOf(luminance(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]));
}

export interface EyeSearch {
  /** The best placement, or null when none was confident. */
  move: EyeMove | null;
  /** Its outline's darkening against the rim (L*), shares of lash-dark and white-of-the-eye pixels, score. */
  contrast: number;
  dark: number;
  white: number;
  score: number;
  /** Share of white-of-the-eye pixels in a band just above the placed upper lid. */
  whiteAbove: number;
}

/**
 * Where an eye the mesh put on skin lies in the photo, found from the other
 * (found) eye's centre `other`: the mesh's eye outline, grown by `scale`
 * about its centre, is slid over offsets within SEARCH_REACH face widths of
 * it (a grid of 0.01 face widths) that keep it on its side of the face,
 * level with the other eye along the face's tilt (within LEVEL face widths)
 * and 0.6-1.5 times as far from it as the mesh's eyes are. Each placement is
 * scored by what an open eye shows inside its outline and not around it:
 * lash-dark pixels (lashes, iris; as onAnEye) beside the white of the eye
 * (not dark, with far less chroma than the skin), the outline darker than
 * a rim around it, and the white below the upper lid line meeting darker
 * lashes above it. Brows and hair hold no white; lit or shaded skin neither.
 * The best placement is kept only with enough of both (FOUND_WHITE,
 * FOUND_DARK, FOUND_SCORE).
 */
export function searchEye(
  img: Canvas,
  g: FaceGeometry,
  eye: MeshEye,
  other: Point,
  scale = 1,
): EyeSearch {
  const W = img.width, H = img.height, d = img.data, fw = g.fw;
  const c0 = centreOf([...eye.upper, ...eye.lower]);
  const sk = skinMeanLinear(img, g), skinL = linearToLab(sk[0], sk[1], sk[2])[0];
  const darkL = Math.max(skinL - 25, 0.5 * skinL);
  const up = g.up, across: Point = [-up[1], up[0]];
  const dot = (p: Point, q: Point) => p[0] * q[0] + p[1] * q[1];
  const meshRel: Point = [c0[0] - other[0], c0[1] - other[1]];
  const meshAcross = dot(meshRel, across);
  const reach = SEARCH_REACH * fw, step = Math.max(1, Math.round(0.01 * fw));
  const cache = new Map<number, number>();
  const L = (x: number, y: number) => {
    const k = y * W + x;
    let v = cache.get(k);
    if (v === undefined) {
      v = lightness(d, k * 3);
      cache.set(k, v);
    }
    return v;
  };
  const hA = Math.max(1, Math.round(0.008 * fw)), hB = 2 * hA;
  const skinLab = linearToLab(sk[0], sk[1], sk[2]), skinC = Math.hypot(skinLab[1], skinLab[2]);
  // Each pixel's kind: 2 lash-dark (lashes, iris, pupil), 1 the white of the
  // eye (greyish: far less chroma than the skin, not dark), 0 anything else.
  const kinds = new Map<number, number>();
  const kind = (x: number, y: number) => {
    const k = y * W + x;
    let v = kinds.get(k);
    if (v === undefined) {
      const lab = srgbToLab(d[k * 3], d[k * 3 + 1], d[k * 3 + 2]);
      v = lab[0] <= darkL
        ? 2
        : lab[0] > darkL + 10 && Math.hypot(lab[1], lab[2]) < WHITE_CHROMA * skinC
        ? 1
        : 0;
      kinds.set(k, v);
    }
    return v;
  };
  let best: EyeSearch = { move: null, contrast: 0, dark: 0, white: 0, score: -Infinity, whiteAbove: 0 };
  const sc = (p: Point): Point => placeMesh({ by: [0, 0], scale, about: c0 }, p);
  const outline = [...eye.upper, ...[...eye.lower].reverse()].map(sc);
  const rimW = 0.03 * fw, stride = Math.max(1, Math.round(0.004 * fw));
  const m = createMask(boundsOf(outline, rimW * 2, W, H));
  fillPolygon(m, outline);
  const hard = m.data.slice();
  feather(m, rimW / 2);
  const inside: number[] = [], rim: number[] = [];
  for (let r = 0; r < m.h; r += stride) {
    for (let c = 0; c < m.w; c += stride) {
      const k = r * m.w + c, dx = Math.round(m.x + c - c0[0]), dy = Math.round(m.y + r - c0[1]);
      if (hard[k] >= 0.5) inside.push(dx, dy);
      else if (m.data[k] > 0.03) rim.push(dx, dy);
    }
  }
  // The upper lid line's points (away from the corners), relative to the
  // eye's centre: across it, the white of the eye below meets the lashes above.
  const upperS = eye.upper.map(sc);
  const lid: Point[] = [];
  for (let k = 0; k < LID_POINTS; k++) {
    const p = along(upperS, 0.15 + 0.7 * k / (LID_POINTS - 1));
    lid.push([p[0] - c0[0], p[1] - c0[1]]);
  }
  for (let oy = -reach; oy <= reach; oy += step) {
    for (let ox = -reach; ox <= reach; ox += step) {
      if (ox * ox + oy * oy > reach * reach) continue;
      const c: Point = [c0[0] + ox, c0[1] + oy];
      const rel: Point = [c[0] - other[0], c[1] - other[1]];
      const a = dot(rel, across);
      // Same side of the face, about as far from the other eye as the mesh's eyes are.
      if (Math.sign(a) !== Math.sign(meshAcross)) continue;
      if (Math.abs(a) < 0.6 * Math.abs(meshAcross) || Math.abs(a) > 1.5 * Math.abs(meshAcross)) continue;
      if (Math.abs(dot(rel, up)) > LEVEL * fw) continue;
      const cx = Math.round(c[0]), cy = Math.round(c[1]);
      let sIn = 0, nIn = 0, nDark = 0, sRim = 0, nRim = 0, nWhite = 0, rimDark = 0, rimWhite = 0;
      for (let k = 0; k < inside.length; k += 2) {
        const x = cx + inside[k], y = cy + inside[k + 1];
        if (x < 0 || y < 0 || x >= W || y >= H) continue;
        const v = L(x, y);
        sIn += v;
        nIn++;
        const kd = kind(x, y);
        if (kd === 2) nDark++;
        else if (kd === 1) nWhite++;
      }
      for (let k = 0; k < rim.length; k += 2) {
        const x = cx + rim[k], y = cy + rim[k + 1];
        if (x < 0 || y < 0 || x >= W || y >= H) continue;
        sRim += L(x, y);
        nRim++;
        const kd = kind(x, y);
        if (kd === 2) rimDark++;
        else if (kd === 1) rimWhite++;
      }
      if (nIn < 0.8 * inside.length / 2 || !nRim) continue;
      const mean = sIn / nIn;
      let steps = 0;
      for (const q of lid) {
        const x = c[0] + q[0], y = c[1] + q[1];
        let above = 0, below = 0;
        for (let j = 1; j <= hA; j++) {
          above += L(
            Math.min(W - 1, Math.max(0, Math.round(x + up[0] * j))),
            Math.min(H - 1, Math.max(0, Math.round(y + up[1] * j))),
          );
        }
        for (let j = 1; j <= hB; j++) {
          below += L(
            Math.min(W - 1, Math.max(0, Math.round(x - up[0] * j))),
            Math.min(H - 1, Math.max(0, Math.round(y - up[1] * j))),
          );
        }
        steps += Math.max(0, below / hB - above / hA);
      }
      const lidStep = steps / LID_POINTS;
      const contrast = sRim / nRim - mean, dark = nDark / nIn, white = nWhite / nIn;
      const score = Math.min(white, dark) * 100 + (white + dark - (rimWhite + rimDark) / nRim) * 50 +
        contrast + lidStep;
      if (score > best.score) {
        best = { move: { by: [ox, oy], scale, about: c0 }, contrast, dark, white, score, whiteAbove: 0 };
      }
    }
  }
  // The white of the eye running on above the placed upper lid: the outline
  // lies across the eye, not around it (a mesh eye drawn nearly closed over
  // an open one), and the lid products would be painted on the white.
  if (best.move) {
    const placed = eye.upper.map((p) => placeMesh(best.move, p));
    let n = 0, whiteAbove = 0;
    for (let k = 0; k < LID_POINTS; k++) {
      const p = along(placed, 0.15 + 0.7 * k / (LID_POINTS - 1));
      for (let j = hA; j <= 3 * hA; j++) {
        const x = Math.round(p[0] + up[0] * j), y = Math.round(p[1] + up[1] * j);
        if (x < 0 || y < 0 || x >= W || y >= H) continue;
        n++;
        if (kind(x, y) === 1) whiteAbove++;
      }
    }
    best.whiteAbove = n ? whiteAbove / n : 0;
  }
  if (
    best.white < FOUND_WHITE || best.dark < FOUND_DARK || best.score < FOUND_SCORE ||
    best.whiteAbove > WHITE_ABOVE
  ) {
    return { ...best, move: null };
  }
  return best;
}

/** How far from the mesh's eye the eye is searched for, in face widths. */
const SEARCH_REACH = 0.3;
/** How far off level with the other eye (along the face's up axis) a found eye may lie, in face widths. */
const LEVEL = 0.12;
/**
 * A found eye's outline holds at least these shares of white-of-the-eye and
 * lash-dark pixels, and this score (placements kept on sample1@1438 and
 * sample4@1216: white 0.22-0.28, dark 0.40-0.51, score 41-43).
 */
const FOUND_WHITE = 0.1;
const FOUND_DARK = 0.2;
const FOUND_SCORE = 18;
/**
 * At most this share of white-of-the-eye pixels just above a found eye's
 * upper lid (sample4@1216: 0.00-0.02; sample1@1438, whose mesh eye is drawn
 * nearly closed across her open eye: 0.28, left bare).
 */
const WHITE_ABOVE = 0.1;
/** Points along the upper lid line where the white-below / lashes-above step is measured. */
const LID_POINTS = 15;
/** The white of the eye has less than this share of the skin's chroma. */
const WHITE_CHROMA = 0.65;

/**
 * Moves putting a mesh eye that lies on skin onto the eye found near it
 * (searchEye), or null: only beside an eye the mesh put on its eye, which
 * gives the level and the size to search for.
 */
function relocateEyes(
  img: Canvas,
  g: FaceGeometry,
  r: MeshEye,
  l: MeshEye,
  onR: boolean,
  onL: boolean,
): [EyeMove | null, EyeMove | null] {
  if (onR && onL) return [null, null];
  const cR = centreOf([...r.upper, ...r.lower]), cL = centreOf([...l.upper, ...l.lower]);
  // A mesh eye on skin is often drawn foreshortened as well as misplaced: it
  // is searched for at least the size of the eye found.
  const size = (e: MeshEye) => Math.hypot(e.upper[0][0] - e.upper[8][0], e.upper[0][1] - e.upper[8][1]) || 1;
  const grow = (e: MeshEye, o: MeshEye) => Math.min(MAX_GROW, Math.max(1, size(o) / size(e)));
  if (onL) return [searchEye(img, g, r, cL, grow(r, l)).move, null];
  if (onR) return [null, searchEye(img, g, l, cR, grow(l, r)).move];
  // Neither eye on an eye: nothing to keep level with or to size by (a
  // search on the mesh's own size and tilt found the eyes of sample1@1438's
  // wider crop with outlines half their size, across the iris): both stay bare.
  return [null, null];
}

/** A mesh eye is searched for at most this much larger than its own size. */
const MAX_GROW = 1.6;
