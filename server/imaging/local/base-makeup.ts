/** Base makeup: skin smoothing, tone evening, surface (matte, natural, dewy) and an optional tint. */
import type { CatalogEntry } from "../../styling/catalog.ts";
import { type Canvas, maskRow, maskSpan } from "./blend.ts";
import { hexToLinear, linearToLab, linearToSrgb, luminance, SRGB_TO_LINEAR } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import {
  BETWEEN_BROWS,
  BROW_L,
  BROW_R,
  EYE_L,
  EYE_R,
  FACE_OVAL,
  FOREHEAD_TOP,
  LIPS_OUTER,
} from "./landmarks.ts";
import { gridMask, toGrid } from "./makeup-layer.ts";
import { clamp01, smoothstep } from "./ramps.ts";
import { blurPlane, boost, createMask, feather, fillPolygon, type Mask, subtract } from "./masks.ts";
import { BASE_RECIPES } from "./recipes.ts";
import { skinMeanLinear, skinWeights } from "./skin-tone.ts";

/** Base works on a half-resolution grid (its mask) and a quarter one (smoothing and evening). */
const BASE_STEP = 2;

/**
 * The skin area the base layer may touch: face oval minus eyes and lips, on a
 * 1/BASE_STEP grid (sample it with maskRow); and the brows' area, where it
 * touches only pixels about as light as the skin about them (see BROW_DARKER).
 */
export function baseMask(img: Canvas, g: FaceGeometry): { mask: Mask; brows: Mask } {
  const q = BASE_STEP;
  const oval = pick(g, FACE_OVAL);
  const m = gridMask(img, oval, 0.02 * g.fw, q);
  fillPolygon(m, toGrid(oval, q));
  feather(m, 0.02 * g.fw / q);
  // Pull the edge inward: only the inner part is fully covered.
  for (let i = 0; i < m.data.length; i++) m.data[i] = clamp01((m.data[i] - 0.3) / 0.6);
  // The mesh's outline stops mid-forehead: fade the base out from the brows to
  // that top edge (smoothstep along the face's up axis), or the hairline side
  // of the forehead keeps its shine above a visible line.
  const [ux, uy] = g.up;
  const height = (x: number, y: number) => ux * x + uy * y;
  const hTop = height(...g.pts[FOREHEAD_TOP]), hBrow = height(...g.pts[BETWEEN_BROWS]);
  const span = Math.max(1, hTop - hBrow);
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] <= 0) continue;
      m.data[k] *= 1 - smoothstep(0, span, height((m.x + c + 0.5) * q, (m.y + r + 0.5) * q) - hBrow);
    }
  }
  const holes = createMask(m);
  for (const idx of [EYE_R, EYE_L, LIPS_OUTER]) fillPolygon(holes, toGrid(pick(g, idx), q));
  // The brows' area on its own small grid rectangle (5 feather sigmas about them): the base's rows outside it
  // sample nothing for it.
  const browPts = [...pick(g, BROW_R), ...pick(g, BROW_L)];
  const brows = gridMask(img, browPts, 0.06 * g.fw, q);
  for (const idx of [BROW_R, BROW_L]) fillPolygon(brows, toGrid(pick(g, idx), q));
  for (const hole of [holes, brows]) boost(feather(hole, 0.012 * g.fw / q), 2.5);
  return { mask: subtract(m, holes), brows };
}

/**
 * In the mesh's brows, a pixel this much darker than the skin about it (linear luminance, as a share of the
 * skin's) is brow and keeps its colour, and one lighter keeps it by its share of BROW_LIGHTER (pale hair over
 * the brow: a light fringe's strands on sample1@334 lost their colour in a matte base, ΔE over 8 on 3.0 % of
 * them against 1.1 % with the whole outline kept out, 1.6 % now); one as light as the skin takes the base as
 * the skin beside it does. The whole outline kept out, a brow's tail the mesh put on lit skin (sample4@908's
 * far brow, L* 83 inside it) stayed shiny in a matte base: a light bar over the eye, the brow's shape, against
 * the skin matted about it.
 */
const BROW_DARKER = 0.3, BROW_LIGHTER = 0.6;

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
  const { mask: m, brows } = baseMask(img, g);
  const skin = skinMeanLinear(img, g);
  const skinLab = linearToLab(skin[0], skin[1], skin[2]);
  const ys = luminance(skin[0], skin[1], skin[2]);
  const weight = skinWeights(skinLab);
  const d = img.data, IW = img.width;
  const [x0, y0, x1, y1] = maskSpan(m, q, IW, img.height);
  const row = new Float32Array(x1 - x0);
  // Skin-weighted linear RGB and the weight, summed on a quarter-resolution
  // grid (cells of 4x4 px from the mask's origin), from every other pixel of
  // every other row: every term built from them is blurred over several cells.
  const X0 = m.x * q, Y0 = m.y * q, C = 2 * q;
  const gw = Math.ceil(m.w / 2), gh = Math.ceil(m.h / 2);
  const S = new Float32Array(gw * gh * 4);
  const sx0 = x0 + (x0 & 1);
  for (let y = y0 + (y0 & 1); y < y1; y += 2) {
    const mr = (y >> 1) - m.y, j = ((y - Y0) / C) | 0;
    if (mr < 0 || mr >= m.h || j >= gh) continue;
    let i = (y * IW + sx0) * 3;
    for (let x = sx0; x < x1; x += 2, i += 6) {
      const mc = (x >> 1) - m.x;
      if (mc < 0 || mc >= m.w || m.data[mr * m.w + mc] <= 0.001) continue;
      const sk = weight(d[i], d[i + 1], d[i + 2]);
      if (sk <= 0) continue;
      const o = (j * gw + (((x - X0) / C) | 0)) * 4;
      S[o] += SRGB_TO_LINEAR[d[i]] * sk;
      S[o + 1] += SRGB_TO_LINEAR[d[i + 1]] * sk;
      S[o + 2] += SRGB_TO_LINEAR[d[i + 2]] * sk;
      S[o + 3] += sk;
    }
  }
  const recipe = BASE_RECIPES[entry.id];
  const smoothing = recipe?.smoothing ?? 0.4, evening = recipe?.evening ?? 0.4;
  // Fine smoothing and broad evening, both on the quarter grid.
  const F = S.slice();
  blurChannels(F, gw, gh, 4, 0.008 * g.fw / C);
  blurChannels(S, gw, gh, 4, 0.045 * g.fw / C);
  // Foundation evens tone and blurs blotches; it does not erase pores: the fine
  // detail is mostly kept (>= 0.9 of it even for the heaviest base), the
  // blotch-sized variation is what gets evened out.
  const detailKeep = 1 - 0.1 * smoothing;
  const even = 0.55 * evening;
  const surface = recipe?.surface ?? "natural";
  const matte = surface === "matte", dewy = surface === "dewy";
  // Per grid cell: the smooth part of the effect, out = (px * detailKeep + O[0..2]) * O[3].
  // O[3] is the matte finish's shine reduction, taken from the smooth luminance
  // (a per-pixel one would flatten the pores on every bright patch of skin).
  const O = new Float32Array(gw * gh * 4);
  // Per grid cell: the skin's broad luminance (see BROW_DARKER).
  const LY = new Float32Array(gw * gh);
  const sm = [0, 0, 0];
  for (let k = 0; k < gw * gh; k++) {
    const sw = F[k * 4 + 3], lw = S[k * 4 + 3];
    for (let ch = 0; ch < 3; ch++) {
      let smooth = skin[ch], low = skin[ch];
      if (sw > 4e-4 && lw > 4e-4) {
        smooth = F[k * 4 + ch] / sw;
        low = S[k * 4 + ch] / lw;
      }
      sm[ch] = smooth;
      O[k * 4 + ch] = smooth * (1 - detailKeep) - (smooth - low) * even;
    }
    const lum = luminance(sm[0], sm[1], sm[2]);
    O[k * 4 + 3] = matte && lum > ys * 1.15 ? (ys * 1.15 + (lum - ys * 1.15) * 0.45) / lum : 1;
    LY[k] = lw > 4e-4 ? luminance(S[k * 4] / lw, S[k * 4 + 1] / lw, S[k * 4 + 2] / lw) : ys;
  }
  const tint = entry.hex ? hexToLinear(entry.hex) : undefined;
  let tr = 1, tg = 1, tb = 1;
  if (tint) {
    const yt = luminance(tint[0], tint[1], tint[2]);
    tr = 1 + 0.25 * ((tint[0] / yt) / (skin[0] / ys) - 1);
    tg = 1 + 0.25 * ((tint[1] / yt) / (skin[1] / ys) - 1);
    tb = 1 + 0.25 * ((tint[2] / yt) / (skin[2] / ys) - 1);
  }
  // O interpolated to the current row (vertically), then per pixel horizontally.
  const orow = new Float32Array(gw * 4), lyrow = new Float32Array(gw), brow = new Float32Array(x1 - x0);
  for (let y = y0; y < y1; y++) {
    if (!maskRow(m, q, y, x0, x1, row)) continue;
    const inBrows = maskRow(brows, q, y, x0, x1, brow);
    const gy = Math.min(gh - 1.001, Math.max(0, (y + 0.5 - Y0) / C - 0.5));
    const j0 = Math.min(gh - 1, gy | 0), fy = gy - j0, j1 = Math.min(gh - 1, j0 + 1);
    for (let k = 0; k < gw * 4; k++) orow[k] = O[j0 * gw * 4 + k] * (1 - fy) + O[j1 * gw * 4 + k] * fy;
    if (inBrows) {
      for (let k = 0; k < gw; k++) lyrow[k] = LY[j0 * gw + k] * (1 - fy) + LY[j1 * gw + k] * fy;
    }
    let i = (y * IW + x0) * 3;
    for (let x = x0; x < x1; x++, i += 3) {
      let a = row[x - x0];
      if (a <= 0.001) continue;
      const r = d[i], gg = d[i + 1], b = d[i + 2];
      a *= weight(r, gg, b) * t;
      if (a < 0.002) continue;
      const gx = Math.min(gw - 1.001, Math.max(0, (x + 0.5 - X0) / C - 0.5));
      const i0 = gx | 0, fx = gx - i0;
      const p0 = i0 * 4, p1 = Math.min(gw - 1, i0 + 1) * 4;
      const lr = SRGB_TO_LINEAR[r], lg = SRGB_TO_LINEAR[gg], lb = SRGB_TO_LINEAR[b];
      const bw = inBrows ? brow[x - x0] : 0;
      if (bw > 0) {
        // A brow pixel keeps its colour by how much darker or lighter than the skin about it it is (see
        // BROW_DARKER).
        const around = Math.max(1e-4, lyrow[i0] + (lyrow[Math.min(gw - 1, i0 + 1)] - lyrow[i0]) * fx);
        const off = luminance(lr, lg, lb) - around;
        a *= 1 - bw * clamp01(off < 0 ? -off / (BROW_DARKER * around) : off / (BROW_LIGHTER * around));
        if (a < 0.002) continue;
      }
      const f = orow[p0 + 3] + (orow[p1 + 3] - orow[p0 + 3]) * fx;
      let er = (lr * detailKeep + orow[p0] + (orow[p1] - orow[p0]) * fx) * tr * f;
      let eg = (lg * detailKeep + orow[p0 + 1] + (orow[p1 + 1] - orow[p0 + 1]) * fx) * tg * f;
      let eb = (lb * detailKeep + orow[p0 + 2] + (orow[p1 + 2] - orow[p0 + 2]) * fx) * tb * f;
      if (dewy) {
        const s = 0.35 * Math.max(0, luminance(er, eg, eb) - ys * 1.05);
        er += s;
        eg += s;
        eb += s * 0.95;
      }
      const k = a > 1 ? 1 : a;
      d[i] = linearToSrgb(lr + (er - lr) * k);
      d[i + 1] = linearToSrgb(lg + (eg - lg) * k);
      d[i + 2] = linearToSrgb(lb + (eb - lb) * k);
    }
  }
}
