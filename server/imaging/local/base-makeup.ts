/** Base makeup: skin smoothing, tone evening, surface (matte, natural, dewy) and an optional tint. */
import type { CatalogEntry } from "../../styling/catalog.ts";
import { type Canvas, maskRow, maskSpan } from "./blend.ts";
import { hexToLinear, linearToLab, linearToSrgb, SRGB_TO_LINEAR } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { BROW_L, BROW_R, EYE_L, EYE_R, FACE_OVAL, LIPS_OUTER } from "./landmarks.ts";
import { clamp01, gridMask, toGrid } from "./makeup-layer.ts";
import { blurPlane, boost, createMask, feather, fillPolygon, type Mask, subtract } from "./masks.ts";
import { BASE_RECIPES } from "./recipes.ts";
import { skinMeanLinear } from "./skin-tone.ts";

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

export function baseLayer(img: Canvas, g: FaceGeometry, entry: CatalogEntry, t: number): void {
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
  const recipe = BASE_RECIPES[entry.id];
  const smoothing = recipe?.smoothing ?? 0.4, evening = recipe?.evening ?? 0.4;
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
  const tint = entry.hex ? hexToLinear(entry.hex) : undefined;
  let tr = 1, tg = 1, tb = 1;
  if (tint) {
    const yt = 0.2126 * tint[0] + 0.7152 * tint[1] + 0.0722 * tint[2];
    tr = 1 + 0.25 * ((tint[0] / yt) / (skin[0] / ys) - 1);
    tg = 1 + 0.25 * ((tint[1] / yt) / (skin[1] / ys) - 1);
    tb = 1 + 0.25 * ((tint[2] / yt) / (skin[2] / ys) - 1);
  }
  const surface = recipe?.surface ?? "natural";
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
