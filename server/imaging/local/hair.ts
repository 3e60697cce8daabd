/**
 * Hair and facial-hair recolour. The hair mask is person matte x a head prior
 * x (not the face below the brows) x a hair-vs-skin colour model in Lab (skin
 * sampled at mesh points, hair sampled above the forehead). When hair and skin
 * colours overlap (blonde hair in mixed light) the model has no confidence and
 * the recolour is skipped and reported, rather than painting skin.
 */
import type { Canvas } from "./blend.ts";
import { hexToLab, labToLinear, linearToLab, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { pick } from "./face-geometry.ts";
import {
  BROW_L,
  BROW_R,
  CHIN_ZONE,
  EYE_L,
  EYE_R,
  FACE_OVAL,
  LIPS_OUTER,
  MOUSTACHE_ZONE,
  SKIN_SAMPLES,
} from "./landmarks.ts";
import { boost, createMask, feather, fillPolygon, type Mask, type Point, sampleGrid } from "./masks.ts";
import { personAt, type PersonMask } from "./person-mask.ts";

type Lab = [number, number, number];

interface Stats {
  mean: Lab;
  sd: number;
  n: number;
}

const XN = 0.95047, ZN = 1.08883;
const labF = (t: number) => t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;

/** linearToLab without allocating (the same formula), into `out`. */
function labInto(out: Float64Array, r: number, g: number, b: number): void {
  const fx = labF((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / XN);
  const fy = labF(0.2126729 * r + 0.7151522 * g + 0.072175 * b);
  const fz = labF((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / ZN);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
}

function labAt(img: Canvas, x: number, y: number): Lab {
  const i = (y * img.width + x) * 3, d = img.data;
  return linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
}

function stats(samples: Lab[]): Stats {
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

function skinSamples(img: Canvas, g: FaceGeometry): Lab[] {
  const out: Lab[] = [];
  for (const idx of SKIN_SAMPLES) {
    const [px, py] = g.pts[idx];
    for (let dy = -2; dy <= 2; dy += 2) {
      for (let dx = -2; dx <= 2; dx += 2) {
        const x = Math.round(px) + dx, y = Math.round(py) + dy;
        if (x >= 0 && y >= 0 && x < img.width && y < img.height) out.push(labAt(img, x, y));
      }
    }
  }
  return out;
}

function hairSamples(img: Canvas, g: FaceGeometry, person: PersonMask): Lab[] {
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
  collect(top[0] - 0.3 * g.fw, top[0] + 0.3 * g.fw, top[1] - 0.3 * g.fh, top[1] - 0.07 * g.fh);
  // ...and beside the temples, outside the face oval.
  const l = g.pts[127], r = g.pts[356];
  collect(l[0] - 0.16 * g.fw, l[0] - 0.04 * g.fw, top[1], l[1]);
  collect(r[0] + 0.04 * g.fw, r[0] + 0.16 * g.fw, top[1], r[1]);
  return out;
}

/**
 * Clothing below the chin: samples at the chest centre and lower down the
 * torso (long hair falls beside these, rarely across them). Dark clothing is
 * as hair-coloured as the hair it touches; a clothing colour model keeps it
 * out of the mask.
 */
function clothSamples(img: Canvas, g: FaceGeometry, person: PersonMask): Lab[] {
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
function palette(samples: Lab[], k: number): Stats[] {
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
  return groups.filter((g) => g.length >= 0.1 * samples.length).map(stats);
}

export interface HairResult {
  applied: boolean;
  /** Why not, for the result notes. */
  reason?: string;
  confidence: number;
}

/** Runs `fill` on the part of `m` inside the frame (the rest stays 0). */
function clipToFrame(m: Mask, width: number, height: number, fill: (m: Mask) => void): void {
  const cw = Math.min(m.x + m.w, width) - m.x, ch = Math.min(m.y + m.h, height) - m.y;
  if (cw <= 0 || ch <= 0) return;
  if (cw === m.w && ch === m.h) return fill(m);
  const part = createMask({ x: m.x, y: m.y, w: cw, h: ch });
  fill(part);
  for (let r = 0; r < ch; r++) m.data.set(part.data.subarray(r * cw, (r + 1) * cw), r * m.w);
}

/** lowerFace's grid: 1/FACE_STEP of the canvas resolution (a soft mask, sampled bilinearly). */
const FACE_STEP = 2;

/**
 * Hair falling over the temples and cheeks lies inside the face oval: only its
 * inner part (this share of the oval's half-width, with the brows and eyes) is
 * ruled out. In the outer band, a pixel is hair only where the colour model
 * is sure (shaded skin at the face's edge is nearly as dark as hair).
 */
const FACE_CORE_WIDTH = 0.8;

/**
 * The face below the brows (never hair, or hair only where sure: see
 * FACE_CORE_WIDTH), on a 1/FACE_STEP grid. `width` scales the oval about the
 * face centre; the core also covers the brows and eyes.
 */
function lowerFace(img: Canvas, g: FaceGeometry, width: number): Mask {
  const q = FACE_STEP;
  const cx = g.center[0];
  const oval = pick(g, FACE_OVAL).map(([x, y]): Point => [cx + (x - cx) * width, y]);
  // Cut the oval at the brow line: points above the brows are lifted down to it.
  const browY = Math.min(g.pts[105][1], g.pts[334][1]) - 0.02 * g.fh;
  // Rasterise and feather only a band around the face (not the whole frame).
  const pad = 0.08 * g.fw;
  const xs = oval.map((p) => p[0]), ys = oval.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor((Math.min(...xs) - pad) / q));
  const y0 = Math.max(0, Math.floor((browY - pad) / q));
  const sub = createMask({
    x: x0,
    y: y0,
    w: Math.ceil((Math.max(...xs) + pad) / q) - x0,
    h: Math.ceil((Math.max(...ys) + pad) / q) - y0,
  });
  // The frame clips the band (cells past the frame edge stay 0).
  clipToFrame(
    sub,
    Math.ceil(img.width / q),
    Math.ceil(img.height / q),
    (m) => {
      fillPolygon(m, oval.map(([x, y]) => [x / q, Math.max(y, browY) / q]));
      // Brows, and the eyes grown by half (lashes reach past the opening).
      if (width < 1) {
        for (const [idx, grow] of [[BROW_R, 1], [BROW_L, 1], [EYE_R, 1.5], [EYE_L, 1.5]] as const) {
          const pts = pick(g, idx);
          const ex = pts.reduce((a, p) => a + p[0], 0) / pts.length;
          const ey = pts.reduce((a, p) => a + p[1], 0) / pts.length;
          fillPolygon(
            m,
            pts.map(([x, y]): Point => [(ex + (x - ex) * grow) / q, (ey + (y - ey) * grow) / q]),
          );
        }
      }
    },
  );
  feather(sub, 0.015 * g.fw / q);
  return boost(sub, 1.8);
}

/** Lab lightness a recolour may add to the hair's mean: brown to honey blonde passes, near-black to any blonde does not. */
const MAX_LIGHTENING = 45;

/** Recolours the hair toward `hex`; skips (and says why) when hair cannot be separated from skin. */
export function recolorHair(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  hex: string,
): HairResult {
  const skin = stats(skinSamples(img, g));
  const hair = stats(hairSamples(img, g, person));
  if (hair.n < 60) {
    return { applied: false, confidence: 0, reason: "too little hair is visible" };
  }
  const sep = Math.hypot(
    hair.mean[0] - skin.mean[0],
    hair.mean[1] - skin.mean[1],
    hair.mean[2] - skin.mean[2],
  );
  const confidence = sep / Math.sqrt(hair.sd * hair.sd + skin.sd * skin.sd + 1);
  if (confidence < 1.6 || sep < 15) {
    return { applied: false, confidence, reason: "hair could not be told apart from skin in this light" };
  }
  const core = lowerFace(img, g, FACE_CORE_WIDTH), oval = lowerFace(img, g, 1);
  const fw = g.fw, fh = g.fh;
  const cx = g.center[0], eyeY = g.eyeCenter[1], chinY = g.pts[152][1];
  const x0 = Math.max(0, Math.floor(cx - 1.45 * fw)), x1 = Math.min(img.width, Math.ceil(cx + 1.45 * fw));
  const y0 = Math.max(0, Math.floor(g.pts[10][1] - fh)),
    y1 = Math.min(img.height, Math.ceil(chinY + 1.6 * fh));
  // Skin is sampled on the face; skin elsewhere (shoulders, neck, a shaded
  // jaw) varies more in tone, hence the larger floor on its spread.
  const hs = Math.max(6, hair.sd), ss = Math.max(9, skin.sd);
  // Below the chin, pixels nearer a clothing colour than the hair colour are
  // clothing. A garment the colour of the hair (black hair, black top) cannot
  // be told apart by colour: pixels of that colour fade out of the mask below
  // the chin instead of dyeing the clothes (hair of other shades, such as
  // lighter ends, is still recoloured).
  const cloth = palette(clothSamples(img, g, person), 3).map((c) => ({
    mean: c.mean,
    s: Math.max(6, c.sd),
    likeHair: Math.hypot(c.mean[0] - hair.mean[0], c.mean[1] - hair.mean[1], c.mean[2] - hair.mean[2]) <
      1.5 * hs,
  }));
  const fadeY = 0.3 * fh;
  // Mask at quarter resolution (it is smooth, like the person matte it comes
  // from), then recolour at full resolution through a bilinear lookup.
  const step = 4;
  const mw = Math.ceil((x1 - x0) / step), mh = Math.ceil((y1 - y0) / step);
  const mask: Mask = { x: 0, y: 0, w: mw, h: mh, data: new Float32Array(mw * mh) };
  // Where the face rules hair out, applied after the feather so that hair
  // beside the face does not bleed onto its skin.
  const gate = new Float32Array(mw * mh).fill(1);
  let sumL = 0, sumA = 0, sumB = 0, sumW = 0;
  const d = img.data, lab = new Float64Array(3);
  const [hL0, hA0, hB0] = hair.mean, [sL0, sA0, sB0] = skin.mean;
  for (let j = 0; j < mh; j++) {
    const y = y0 + j * step;
    for (let i = 0; i < mw; i++) {
      const x = x0 + i * step;
      const p = personAt(person, x, y);
      if (p < 0.05) continue;
      // Head prior: an ellipse around the head plus a band where long hair falls.
      const ex = (x - cx) / (1.2 * fw), ey = (y - (eyeY - 0.2 * fh)) / (1.1 * fh);
      let prior = Math.max(0, Math.min(1, (1.25 - Math.sqrt(ex * ex + ey * ey)) / 0.35));
      if (y > eyeY) {
        const band = Math.max(0, Math.min(1, (1.35 * fw - Math.abs(x - cx)) / (0.25 * fw)));
        const fall = Math.max(0, Math.min(1, (chinY + 1.5 * fh - y) / (0.5 * fh)));
        prior = Math.max(prior, band * fall);
      }
      if (prior <= 0) continue;
      const notFace = 1 - Math.min(1, sampleGrid(core, FACE_STEP, x, y));
      if (notFace <= 0) {
        gate[j * mw + i] = 0;
        continue;
      }
      const inOval = Math.min(1, sampleGrid(oval, FACE_STEP, x, y));
      const o = (y * img.width + x) * 3;
      labInto(lab, SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]);
      const hL = lab[0] - hL0, hA = lab[1] - hA0, hB = lab[2] - hB0;
      const dh = Math.sqrt(hL * hL + hA * hA + hB * hB) / hs;
      const k = j * mw + i;
      if (dh >= 3) {
        // Far from the hair colour: not hair (like and sure below are 0 from here on).
        gate[k] = notFace * (1 - inOval);
        continue;
      }
      // Skin under other light (shoulders, neck, a shaded forehead) mostly changes L: weigh L less.
      const sL = 0.5 * (lab[0] - sL0), sA = lab[1] - sA0, sB = lab[2] - sB0;
      const ds = Math.sqrt(sL * sL + sA * sA + sB * sB) / ss;
      // Hair-likeness: closer to hair than skin, and not far from the hair colour.
      let like = 1 / (1 + Math.exp(-(ds - dh) * 1.6)) * Math.max(0, Math.min(1, 3 - dh));
      // Inside the face oval: hair only if clearly nearer hair than skin, and close to the hair colour.
      const sure = inOval > 0
        ? 1 / (1 + Math.exp(-(ds - dh - 1.5) * 2.5)) * Math.max(0, Math.min(1, 2.5 - dh))
        : 1;
      gate[k] = notFace * (1 - inOval * (1 - sure));
      if (y > chinY) {
        const below = Math.min(1, (y - chinY) / fadeY);
        for (const c of cloth) {
          const cL = lab[0] - c.mean[0], cA = lab[1] - c.mean[1], cB = lab[2] - c.mean[2];
          const dc = Math.sqrt(cL * cL + cA * cA + cB * cB) / c.s;
          like *= c.likeHair
            ? 1 - below / (1 + Math.exp(-(1.5 - dc) * 3))
            : 1 - 1 / (1 + Math.exp(-(dh - dc) * 1.6));
        }
      }
      mask.data[k] = p * prior * like;
      const v = mask.data[k] * gate[k];
      if (v > 0.5) {
        sumL += lab[0] * v;
        sumA += lab[1] * v;
        sumB += lab[2] * v;
        sumW += v;
      }
    }
  }
  if (sumW < 50 / step ** 2) return { applied: false, confidence, reason: "too little hair is visible" };
  feather(mask, 0.8);
  for (let k = 0; k < gate.length; k++) mask.data[k] *= gate[k];
  const mean: Lab = [sumL / sumW, sumA / sumW, sumB / sumW];
  const target = hexToLab(hex);
  // Bleaching dark hair (platinum on near-black) cannot be faked by a colour shift: it turns the
  // strands grey and whitens every skin pixel the mask touches. Say so instead.
  if (target[0] - mean[0] > MAX_LIGHTENING) {
    return { applied: false, confidence, reason: "lightening dark hair this much needs a generative model" };
  }
  applyLabShift(img, mask, step, x0, y0, x1, y1, mean, target, 0.88);
  return { applied: true, confidence };
}

const LUT_N = 17;

/** Mask values at or below this are left alone (see applyLabShift). */
const FRINGE = 0.1;

/** Linear light -> sRGB 0..255, unrounded (the LUT is interpolated before rounding). */
function srgbFloat(v: number): number {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return 255 * (v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055);
}

/**
 * The recolour as a colour transform sRGB byte triple -> sRGB, tabulated
 * on a 17^3 grid (the Lab maths runs ~5k times instead of once per pixel; against
 * a 33^3 grid, tetrahedral interpolation differs by at most 5 levels, mean 1).
 *
 * - L: the mean moves to the swatch L (92 % of the way for darker targets, 80 %
 *   for lighter ones); the strand texture (each pixel's L offset from the
 *   mean) is kept, stretched a little when lightening dark hair a lot so the
 *   strands do not flatten into a grey sheet.
 * - a/b: the swatch's hue, with a chroma that follows the pixel's lightness
 *   (shadows in hair carry less colour than the swatch) plus 60 % of the
 *   pixel's own deviation from the hair mean; the result is capped relative
 *   to the swatch chroma (the bright, saturated red "Auburn" used to give).
 */
function shiftLut(mean: Lab, target: Lab): Float32Array {
  const [tL, ta, tb] = target;
  const tC = Math.hypot(ta, tb);
  const kL = tL < mean[0] ? 0.92 : 0.8;
  const gain = Math.min(1.6, Math.max(1, (tL - 20) / Math.max(15, mean[0] - 5)));
  const capC = 0.85 * tC + 4;
  const lut = new Float32Array(LUT_N * LUT_N * LUT_N * 3);
  let o = 0;
  for (let bi = 0; bi < LUT_N; bi++) {
    for (let gi = 0; gi < LUT_N; gi++) {
      for (let ri = 0; ri < LUT_N; ri++) {
        const r = SRGB_TO_LINEAR[Math.round((ri * 255) / (LUT_N - 1))];
        const g = SRGB_TO_LINEAR[Math.round((gi * 255) / (LUT_N - 1))];
        const b = SRGB_TO_LINEAR[Math.round((bi * 255) / (LUT_N - 1))];
        const [L, a, bb] = linearToLab(r, g, b);
        const Lo = Math.min(98, Math.max(0, mean[0] + (tL - mean[0]) * kL + (L - mean[0]) * gain));
        const follow = Math.pow(Math.min(1, Math.max(0.3, Lo / Math.max(8, tL))), 0.8);
        let ao = ta * follow + (a - mean[1]) * 0.6, bo = tb * follow + (bb - mean[2]) * 0.6;
        const c = Math.hypot(ao, bo);
        if (c > capC) {
          ao *= capC / c;
          bo *= capC / c;
        }
        const out = labToLinear(Lo, ao, bo);
        lut[o++] = srgbFloat(out[0]);
        lut[o++] = srgbFloat(out[1]);
        lut[o++] = srgbFloat(out[2]);
      }
    }
  }
  return lut;
}

/** Lab recolour (see shiftLut) through a (possibly subsampled) mask. */
function applyLabShift(
  img: Canvas,
  mask: Mask,
  step: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  mean: Lab,
  target: Lab,
  opacity: number,
): void {
  const lut = shiftLut(mean, target);
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  const m = mask.data, mw = mask.w;
  const q = (LUT_N - 1) / 255;
  const sR = 3, sG = LUT_N * 3, sB = LUT_N * LUT_N * 3;
  // Row by row: the mask row is interpolated between grid nodes first (pixels
  // past the last grid node, as before, are left alone).
  const xe = Math.min(x1, x0 + (mw - 1) * step), ye = Math.min(y1, y0 + (mask.h - 1) * step);
  const row = new Float32Array(Math.max(0, xe - x0));
  for (let y = y0; y < ye; y++) {
    const j = Math.floor((y - y0) / step), fy = (y - y0) / step - j;
    let any = false;
    for (let i = 0; i < mw - 1; i++) {
      const k = j * mw + i;
      const l0 = (m[k] + (m[k + mw] - m[k]) * fy) * opacity;
      const l1 = (m[k + 1] + (m[k + mw + 1] - m[k + 1]) * fy) * opacity;
      const xa = x0 + i * step, xb = Math.min(xe, xa + step);
      if (l0 < 0.01 && l1 < 0.01) {
        row.fill(0, xa - x0, xb - x0);
        continue;
      }
      any = true;
      for (let x = xa; x < xb; x++) row[x - x0] = l0 + (l1 - l0) * ((x - xa) / step);
    }
    if (!any) continue;
    let o = (y * img.width + x0) * 3;
    for (let x = x0; x < xe; x++, o += 3) {
      const a = row[x - x0];
      // The mask's faint fringe (at or under FRINGE) is dropped, with a continuous ramp above it.
      if (a <= FRINGE) continue;
      const a1 = a >= 1 ? 1 : (a - FRINGE) / (1 - FRINGE);
      // Tetrahedral lookup (4 grid nodes instead of trilinear's 8, same nodes on the cube's diagonal).
      const cr = d[o], cg = d[o + 1], cb = d[o + 2];
      const rx = cr * q, gx = cg * q, bx = cb * q;
      let r0 = rx | 0, g0 = gx | 0, b0 = bx | 0;
      if (r0 === LUT_N - 1) r0--;
      if (g0 === LUT_N - 1) g0--;
      if (b0 === LUT_N - 1) b0--;
      const fr = rx - r0, fg = gx - g0, fb = bx - b0;
      const p0 = r0 * sR + g0 * sG + b0 * sB, p3 = p0 + sR + sG + sB;
      let p1: number, p2: number, w0: number, w1: number, w2: number, w3: number;
      if (fr >= fg) {
        if (fg >= fb) {
          p1 = p0 + sR, p2 = p1 + sG, w0 = 1 - fr, w1 = fr - fg, w2 = fg - fb, w3 = fb;
        } else if (fr >= fb) {
          p1 = p0 + sR, p2 = p1 + sB, w0 = 1 - fr, w1 = fr - fb, w2 = fb - fg, w3 = fg;
        } else {
          p1 = p0 + sB, p2 = p1 + sR, w0 = 1 - fb, w1 = fb - fr, w2 = fr - fg, w3 = fg;
        }
      } else if (fb >= fg) {
        p1 = p0 + sB, p2 = p1 + sG, w0 = 1 - fb, w1 = fb - fg, w2 = fg - fr, w3 = fr;
      } else if (fb >= fr) {
        p1 = p0 + sG, p2 = p1 + sB, w0 = 1 - fg, w1 = fg - fb, w2 = fb - fr, w3 = fr;
      } else {
        p1 = p0 + sG, p2 = p1 + sR, w0 = 1 - fg, w1 = fg - fr, w2 = fr - fb, w3 = fb;
      }
      const outR = lut[p0] * w0 + lut[p1] * w1 + lut[p2] * w2 + lut[p3] * w3;
      const outG = lut[p0 + 1] * w0 + lut[p1 + 1] * w1 + lut[p2 + 1] * w2 + lut[p3 + 1] * w3;
      const outB = lut[p0 + 2] * w0 + lut[p1 + 2] * w1 + lut[p2 + 2] * w2 + lut[p3 + 2] * w3;
      // The store rounds and clamps (Uint8ClampedArray).
      d[o] = cr + (outR - cr) * a1;
      d[o + 1] = cg + (outG - cg) * a1;
      d[o + 2] = cb + (outB - cb) * a1;
    }
  }
}

/**
 * Share of beard-dark pixels (20+ L below the skin) the chin or the moustache
 * zone needs. On 16 beardless demo faces the most was 0.42 (a chin in shadow).
 */
const BEARD_SHARE = 0.6;

/**
 * Recolours a beard or moustache. A beard must be there first: at least
 * BEARD_SHARE of the chin or the moustache zone clearly darker than the skin,
 * lips excluded; shadows, lipstick edges and a shaved chin do not reach it
 * (light stubble does not either: it is reported, not painted). The recolour then follows the beard's own
 * colour (so the neck, a collar or the background below the jaw stay), within
 * the person where a matte exists.
 */
export function recolorFacialHair(
  img: Canvas,
  g: FaceGeometry,
  hex: string,
  person?: PersonMask,
): HairResult {
  const skin = stats(skinSamples(img, g));
  const oval = pick(g, FACE_OVAL);
  const noseY = g.pts[2][1];
  const fw = g.fw, fh = g.fh;
  const x0 = Math.max(0, Math.floor(Math.min(...oval.map((p) => p[0])) - 0.05 * fw));
  const x1 = Math.min(img.width, Math.ceil(Math.max(...oval.map((p) => p[0])) + 0.05 * fw));
  const y0 = Math.max(0, Math.floor(noseY));
  const y1 = Math.min(img.height, Math.ceil(g.pts[152][1] + 0.15 * fh));
  if (x1 <= x0 || y1 <= y0) {
    return { applied: false, confidence: 0, reason: "no facial hair was found to recolour" };
  }
  const rect = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  const lips = createMask(rect);
  fillPolygon(lips, pick(g, LIPS_OUTER));
  // Tight: a beard reaches the lip line.
  feather(lips, 0.005 * fw);
  boost(lips, 1.5);
  const darkness = (lab: Lab) => Math.max(0, Math.min(1, (skin.mean[0] - lab[0] - 14) / 12));
  // Presence: the dark share of each zone, and the beard colour from its dark pixels.
  const beard: Lab[] = [];
  const share = (zone: number[]): number => {
    const m = createMask(rect);
    fillPolygon(m, pick(g, zone));
    let n = 0, dark = 0;
    for (let k = 0; k < m.data.length; k++) {
      if (m.data[k] < 0.5 || lips.data[k] > 0.2) continue;
      n++;
      const lab = labAt(img, x0 + (k % rect.w), y0 + Math.floor(k / rect.w));
      if (darkness(lab) > 0.5) {
        dark++;
        beard.push(lab);
      }
    }
    return n ? dark / n : 0;
  };
  const chin = share(CHIN_ZONE), moustache = share(MOUSTACHE_ZONE);
  const confidence = Math.max(chin, moustache);
  if (confidence < BEARD_SHARE || beard.length < 30) {
    return { applied: false, confidence, reason: "no facial hair was found to recolour" };
  }
  const model = stats(beard);
  const bs = Math.max(6, model.sd);
  // The lower face, extended below the jaw for beards that hang down.
  const region = createMask(rect);
  fillPolygon(
    region,
    oval.map(([x, y]) => [x, y < noseY ? noseY : y + (y > g.pts[234][1] ? 0.12 * fh : 0)]),
  );
  let sL = 0, sA = 0, sB = 0, sw = 0;
  for (let r = 0; r < region.h; r++) {
    for (let c = 0; c < region.w; c++) {
      const k = r * region.w + c;
      if (region.data[k] < 0.5) {
        region.data[k] = 0;
        continue;
      }
      const x = x0 + c, y = y0 + r;
      const lab = labAt(img, x, y);
      const near = Math.hypot(lab[0] - model.mean[0], lab[1] - model.mean[1], lab[2] - model.mean[2]) / bs;
      const inPerson = person ? Math.min(1, personAt(person, x, y) * 1.5) : 1;
      const v = darkness(lab) * Math.max(0, Math.min(1, 3 - near)) * (1 - lips.data[k]) * inPerson;
      region.data[k] = v;
      if (v > 0.5) {
        sL += lab[0] * v;
        sA += lab[1] * v;
        sB += lab[2] * v;
        sw += v;
      }
    }
  }
  if (sw < 30) return { applied: false, confidence, reason: "no facial hair was found to recolour" };
  feather(region, 1);
  applyLabShift(img, region, 1, x0, y0, x1, y1, [sL / sw, sA / sw, sB / sw], hexToLab(hex), 0.85);
  return { applied: true, confidence };
}
