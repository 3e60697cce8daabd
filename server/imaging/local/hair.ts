/**
 * Hair and facial-hair recolour. The hair mask is person matte x a head prior
 * x (not the face below the brows) x a hair-vs-skin colour model in Lab (skin
 * sampled at mesh points, hair sampled above the forehead). When hair and skin
 * colours overlap (blonde hair in mixed light) the model has no confidence and
 * the recolour is skipped and reported, rather than painting skin.
 */
import type { Canvas } from "./blend.ts";
import { hexToLab, labToLinear, linearToLab, linearToSrgb, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { pick } from "./face-geometry.ts";
import { FACE_OVAL, LIPS_OUTER, SKIN_SAMPLES } from "./landmarks.ts";
import { boost, createMask, feather, fillPolygon, type Mask, maskAt } from "./masks.ts";
import { personAt, type PersonMask } from "./person-mask.ts";

type Lab = [number, number, number];

interface Stats {
  mean: Lab;
  sd: number;
  n: number;
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

export interface HairResult {
  applied: boolean;
  /** Why not, for the result notes. */
  reason?: string;
  confidence: number;
}

/** The face below the brows (never hair), dilated slightly. */
function lowerFace(img: Canvas, g: FaceGeometry): Mask {
  const oval = pick(g, FACE_OVAL);
  const m = createMask({ x: 0, y: 0, w: img.width, h: img.height });
  // Cut the oval at the brow line: points above the brows are lifted down to it.
  const browY = Math.min(g.pts[105][1], g.pts[334][1]) - 0.02 * g.fh;
  fillPolygon(m, oval.map(([x, y]) => [x, Math.max(y, browY)]));
  // Skip a full-frame blur: feather only a band around the face.
  const pad = Math.round(0.08 * g.fw);
  const xs = oval.map((p) => p[0]), ys = oval.map((p) => p[1]);
  const sub = createMask({
    x: Math.max(0, Math.floor(Math.min(...xs)) - pad),
    y: Math.max(0, Math.floor(browY) - pad),
    w: Math.ceil(Math.max(...xs) - Math.min(...xs)) + 2 * pad,
    h: Math.ceil(Math.max(...ys) - browY) + 2 * pad,
  });
  for (let r = 0; r < sub.h; r++) {
    for (let c = 0; c < sub.w; c++) sub.data[r * sub.w + c] = maskAt(m, sub.x + c, sub.y + r);
  }
  feather(sub, 0.015 * g.fw);
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
  const face = lowerFace(img, g);
  const fw = g.fw, fh = g.fh;
  const cx = g.center[0], eyeY = g.eyeCenter[1], chinY = g.pts[152][1];
  const x0 = Math.max(0, Math.floor(cx - 1.45 * fw)), x1 = Math.min(img.width, Math.ceil(cx + 1.45 * fw));
  const y0 = Math.max(0, Math.floor(g.pts[10][1] - 0.75 * fh)),
    y1 = Math.min(img.height, Math.ceil(chinY + 1.6 * fh));
  const hs = Math.max(6, hair.sd), ss = Math.max(6, skin.sd);
  // Mask at quarter resolution (it is smooth, like the person matte it comes
  // from), then recolour at full resolution through a bilinear lookup.
  const step = 4;
  const mw = Math.ceil((x1 - x0) / step), mh = Math.ceil((y1 - y0) / step);
  const mask: Mask = { x: 0, y: 0, w: mw, h: mh, data: new Float32Array(mw * mh) };
  let sumL = 0, sumA = 0, sumB = 0, sumW = 0;
  for (let j = 0; j < mh; j++) {
    const y = y0 + j * step;
    for (let i = 0; i < mw; i++) {
      const x = x0 + i * step;
      const p = personAt(person, x, y);
      if (p < 0.05) continue;
      // Head prior: an ellipse around the head plus a band where long hair falls.
      const ex = (x - cx) / (1.2 * fw), ey = (y - (eyeY - 0.2 * fh)) / (0.95 * fh);
      let prior = Math.max(0, Math.min(1, (1.25 - Math.hypot(ex, ey)) / 0.35));
      if (y > eyeY) {
        const band = Math.max(0, Math.min(1, (1.35 * fw - Math.abs(x - cx)) / (0.25 * fw)));
        const fall = Math.max(0, Math.min(1, (chinY + 1.5 * fh - y) / (0.5 * fh)));
        prior = Math.max(prior, band * fall);
      }
      if (prior <= 0) continue;
      const notFace = 1 - Math.min(1, maskAt(face, x, y));
      if (notFace <= 0) continue;
      const lab = labAt(img, x, y);
      const dh = Math.hypot(lab[0] - hair.mean[0], lab[1] - hair.mean[1], lab[2] - hair.mean[2]) / hs;
      // Skin under other light (shoulders, neck, a shaded forehead) mostly changes L: weigh L less.
      const ds = Math.hypot(0.5 * (lab[0] - skin.mean[0]), lab[1] - skin.mean[1], lab[2] - skin.mean[2]) / ss;
      // Hair-likeness: closer to hair than skin, and not far from the hair colour.
      const like = 1 / (1 + Math.exp(-(ds - dh) * 1.6)) * Math.max(0, Math.min(1, (4 - dh) / 1.5));
      const v = p * prior * notFace * like;
      mask.data[j * mw + i] = v;
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

const LUT_N = 33;

/**
 * The recolour as a colour transform sRGB byte triple -> linear RGB, tabulated
 * on a 33^3 grid (the Lab maths runs ~36k times instead of once per pixel).
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
        lut[o++] = out[0];
        lut[o++] = out[1];
        lut[o++] = out[2];
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
  const d = img.data;
  const m = mask.data, mw = mask.w;
  const q = (LUT_N - 1) / 255;
  const sR = 3, sG = LUT_N * 3, sB = LUT_N * LUT_N * 3;
  // Per mask cell (between four grid nodes): cells with no mask are skipped.
  for (let j = 0; j < mask.h - 1; j++) {
    const ya = Math.max(y0, y0 + j * step), yb = Math.min(y1, y0 + (j + 1) * step);
    for (let i = 0; i < mw - 1; i++) {
      const k = j * mw + i;
      const v00 = m[k] * opacity, v01 = m[k + 1] * opacity;
      const v10 = m[k + mw] * opacity, v11 = m[k + mw + 1] * opacity;
      if (v00 < 0.01 && v01 < 0.01 && v10 < 0.01 && v11 < 0.01) continue;
      const xa = Math.max(x0, x0 + i * step), xb = Math.min(x1, x0 + (i + 1) * step);
      for (let y = ya; y < yb; y++) {
        const fy = (y - y0) / step - j;
        const l0 = v00 + (v10 - v00) * fy, l1 = v01 + (v11 - v01) * fy;
        let o = (y * img.width + xa) * 3;
        for (let x = xa; x < xb; x++, o += 3) {
          const a = l0 + (l1 - l0) * ((x - x0) / step - i);
          if (a < 0.01) continue;
          const a1 = a > 1 ? 1 : a;
          // Trilinear lookup.
          const rx = d[o] * q, gx = d[o + 1] * q, bx = d[o + 2] * q;
          const r0 = rx | 0, g0 = gx | 0, b0 = bx | 0;
          const fr = rx - r0, fg = gx - g0, fb = bx - b0;
          const base = (r0 === LUT_N - 1 ? r0 - 1 : r0) * sR + (g0 === LUT_N - 1 ? g0 - 1 : g0) * sG +
            (b0 === LUT_N - 1 ? b0 - 1 : b0) * sB;
          const wr = r0 === LUT_N - 1 ? 1 : fr,
            wg = g0 === LUT_N - 1 ? 1 : fg,
            wb = b0 === LUT_N - 1 ? 1 : fb;
          for (let c = 0; c < 3; c++) {
            const p = base + c;
            const c00 = lut[p] + (lut[p + sR] - lut[p]) * wr;
            const c10 = lut[p + sG] + (lut[p + sG + sR] - lut[p + sG]) * wr;
            const c01 = lut[p + sB] + (lut[p + sB + sR] - lut[p + sB]) * wr;
            const c11 = lut[p + sB + sG] + (lut[p + sB + sG + sR] - lut[p + sB + sG]) * wr;
            const c0 = c00 + (c10 - c00) * wg, c1 = c01 + (c11 - c01) * wg;
            const out = c0 + (c1 - c0) * wb;
            const lin = SRGB_TO_LINEAR[d[o + c]];
            d[o + c] = linearToSrgb(lin + (out - lin) * a1);
          }
        }
      }
    }
  }
}

/** Recolours beard/moustache pixels (darker than the skin, on the lower face). */
export function recolorFacialHair(img: Canvas, g: FaceGeometry, hex: string): HairResult {
  const skin = stats(skinSamples(img, g));
  const oval = pick(g, FACE_OVAL);
  const noseY = g.pts[2][1];
  const fw = g.fw;
  const x0 = Math.max(0, Math.floor(Math.min(...oval.map((p) => p[0])) - 0.05 * fw));
  const x1 = Math.min(img.width, Math.ceil(Math.max(...oval.map((p) => p[0])) + 0.05 * fw));
  const y0 = Math.max(0, Math.floor(noseY));
  const y1 = Math.min(img.height, Math.ceil(g.pts[152][1] + 0.25 * g.fh));
  const region = createMask({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
  // The lower face, extended below the jaw for beards that hang down.
  fillPolygon(
    region,
    oval.map(([x, y]) => [x, y < noseY ? noseY : y + (y > g.pts[234][1] ? 0.15 * g.fh : 0)]),
  );
  const lips = createMask(region);
  fillPolygon(lips, pick(g, LIPS_OUTER));
  feather(lips, 0.01 * fw);
  boost(lips, 2);
  let n = 0, hairy = 0, sL = 0, sA = 0, sB = 0;
  for (let r = 0; r < region.h; r++) {
    for (let c = 0; c < region.w; c++) {
      const k = r * region.w + c;
      if (region.data[k] < 0.5) {
        region.data[k] = 0;
        continue;
      }
      n++;
      const lab = labAt(img, region.x + c, region.y + r);
      const darker = skin.mean[0] - lab[0];
      const v = Math.max(0, Math.min(1, (darker - 10) / 12)) * (1 - lips.data[k]);
      region.data[k] = v;
      if (v > 0.5) {
        hairy++;
        sL += lab[0];
        sA += lab[1];
        sB += lab[2];
      }
    }
  }
  if (n === 0 || hairy / n < 0.12) {
    return {
      applied: false,
      confidence: hairy / Math.max(1, n),
      reason: "no facial hair was found to recolour",
    };
  }
  feather(region, 1);
  const mean: Lab = [sL / hairy, sA / hairy, sB / hairy];
  applyLabShift(img, region, 1, x0, y0, x1, y1, mean, hexToLab(hex), 0.85);
  return { applied: true, confidence: hairy / n };
}
