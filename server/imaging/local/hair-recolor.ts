/**
 * Hair recolour. Where hair may be is spatial (person matte x a head prior x
 * not the face below the brows, on a quarter-resolution grid); which pixels
 * are hair is decided per pixel at full resolution by a colour model in Lab
 * (hair clusters sampled above the forehead and beside the temples, skin
 * sampled at mesh points, clothing below the chin), tabulated over RGB. The
 * recolour thus stops at the scalp of a parting and at the face's edge
 * instead of fading through a half-recoloured grey band. When hair and skin
 * colours cannot be separated, the recolour is skipped and reported rather
 * than painting skin.
 */
import type { Canvas } from "./blend.ts";
import { hexToLab, type Lab, linearToLabInto, SRGB_TO_LINEAR } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import {
  type AxisStats,
  axisStats,
  clothSamples,
  clusters,
  hairSamples,
  palette,
  separation,
  skinSamples,
} from "./hair-colour-samples.ts";
import { applyLabShift, type EdgeRefine, type Lift } from "./lab-shift.ts";
import { FACE_CORE_WIDTH, FACE_STEP, lowerFace } from "./lower-face-mask.ts";
import { feather, fillPolygon, type Mask, type Point, sampleGrid, slidingExtreme } from "./masks.ts";
import { FACE_OVAL } from "./landmarks.ts";
import { personAt, type PersonMask } from "./person-mask.ts";

export interface HairResult {
  applied: boolean;
  /** Why not, for the result notes. */
  reason?: string;
  confidence: number;
}

/** Lab lightness a recolour may add to the hair's mean: brown to honey blonde passes, near-black to any blonde does not. */
const MAX_LIGHTENING = 45;

/**
 * A hair colour cluster counts when its colours stand this far from the skin's
 * (Fisher separation along the line joining the means) and its mean is at
 * least MIN_SKIN_DISTANCE away in Lab.
 */
export const MIN_SEPARATION = 1.5;
const MIN_SKIN_DISTANCE = 10;

/**
 * Hair colours less than this many L* darker than the skin, and above
 * BLONDE_MIN_L, count as light (see recolorHair).
 */
const BLONDE_BELOW_SKIN = 10, BLONDE_MIN_L = 50;

/**
 * Pale: a light cluster (see BLONDE_BELOW_SKIN), not skin in other light and
 * not blonde, separated from the skin by less than PALE_SEPARATION. It is
 * never a hair colour when most hair samples are light, and never below
 * PALE_SEPARATION_ALWAYS (see recolorHair).
 */
const PALE_SEPARATION = 2.5, PALE_SEPARATION_ALWAYS = 2;

/** The recolour's strength (the rest of the original colour shows through, like dye on real hair). */
const OPACITY = 0.88;

/**
 * Roots: near the scalp (the crown down to the hairline) the recolour is held
 * back by up to this share, as dye shows on hair near the scalp, so that the
 * hair shades from slightly darker roots to the lengths.
 */
export const ROOT_HOLD = 0.22;

/** Half the neck's width, in face widths (the neck is kept out of the hair mask). */
const NECK_HALF_WIDTH = 0.25;

/** The colour table's resolution per sRGB channel (32 levels: 8 values per cell). */
const CN = 32;

/** Recolours the hair toward `hex`; skips (and says why) when hair cannot be separated from skin. */
export function recolorHair(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  hex: string,
): HairResult {
  const skinLab = skinSamples(img, g);
  const candidates = hairSamples(img, g, person);
  if (candidates.length < 60) {
    return { applied: false, confidence: 0, reason: "too little hair is visible" };
  }
  const skin = axisStats(skinLab);
  // Hair colours: clusters of the candidates that are not skin (forehead skin
  // under a high hairline, or two-tone hair, give several clusters).
  let confidence = 0;
  const hair: AxisStats[] = [], skins = [skin];
  // A few thousand samples describe the colours as well as all of them (and cluster 5x faster).
  const every = Math.ceil(candidates.length / 1000);
  const pool = every > 1 ? candidates.filter((_, i) => i % every === 0) : candidates;
  // Light hair dyed a darker shade (see LIGHT_HAIR_GAIN, closeHighlights, liftDarks).
  let light = 0, paleCount = 0, counted = 0, lightHair = false;
  const found: { s: AxisStats; pale: boolean; sep: number; blonde: boolean }[] = [];
  const target = hexToLab(hex);
  for (const group of clusters(pool, 3)) {
    const s = axisStats(group);
    counted += group.length;
    const sep = separation(group, skinLab);
    const far = Math.hypot(s.mean[0] - skin.mean[0], s.mean[1] - skin.mean[1], s.mean[2] - skin.mean[2]);
    if (far >= MIN_SKIN_DISTANCE) confidence = Math.max(confidence, sep);
    // Skin in other light is skin to the colour model too (a lit forehead
    // below pulled-back hair took a mottled tint otherwise).
    const lit = litSkin(s.mean, skin.mean);
    const isBlonde = blonde(s.mean, skin.mean);
    const isLight = !lit && s.mean[0] > Math.max(BLONDE_MIN_L, skin.mean[0] - BLONDE_BELOW_SKIN);
    if (isLight) light += group.length;
    const pale = isLight && !isBlonde && sep < PALE_SEPARATION;
    if (pale) paleCount += group.length;
    if (lit) skins.push(s);
    else if (sep >= MIN_SEPARATION && far >= MIN_SKIN_DISTANCE && group.length >= 0.12 * pool.length) {
      found.push({ s, pale, sep, blonde: isBlonde });
    }
  }
  // Pale colours (light, not blonde, near the skin) match a blown-out
  // forehead, light clothing and lit walls as well as hair: painted, they gave
  // dark blotches on a blonde's forehead and pink ones on a lit face and
  // shoulder. When most samples are light (not counting skin in other light),
  // the pale clusters are left out and the darker hair and blonde clusters
  // recoloured; a weakly separated pale cluster is always left out. When pale
  // colours are most of the samples, the hair itself is pale: refused rather
  // than painted in patches.
  const mostlyLight = light > 0.5 * counted;
  for (const f of found) {
    if (f.pale && (mostlyLight || f.sep < PALE_SEPARATION_ALWAYS)) continue;
    hair.push(f.s);
    if (f.blonde && target[0] < f.s.mean[0] - DARKER_BY) lightHair = true;
  }
  if (paleCount > 0.5 * counted) hair.length = 0;
  if (hair.length === 0) {
    return { applied: false, confidence, reason: "hair could not be told apart from skin in this light" };
  }
  const fw = g.fw, fh = g.fh;
  const cx = g.center[0], eyeY = g.eyeCenter[1], chinY = g.pts[152][1], topY = g.pts[10][1];
  const x0 = Math.max(0, Math.floor(cx - 1.45 * fw)), x1 = Math.min(img.width, Math.ceil(cx + 1.45 * fw));
  const y0 = Math.max(0, Math.floor(topY - fh)), y1 = Math.min(img.height, Math.ceil(chinY + 1.6 * fh));
  if (x1 <= x0 || y1 <= y0) return { applied: false, confidence, reason: "too little hair is visible" };
  const colour = new ColourModel(hair, skins, clothModel(img, g, person, hair[0]));

  // Where hair may be, on a quarter-resolution grid: `where` (person x head
  // prior x not the face core x roots held back) and `oval` (inside the face
  // oval, where only colours the model is sure of count).
  const core = lowerFace(img, g, FACE_CORE_WIDTH), ovalMask = lowerFace(img, g, 1);
  // Mask at quarter resolution (it is smooth, like the person matte it comes
  // from), then recoloured at full resolution through a bilinear lookup; only
  // the grid rows and cells that hold hair are visited.
  const step = 4;
  const mw = Math.ceil((x1 - x0) / step), mh = Math.ceil((y1 - y0) / step);
  const mask: Mask = { x: 0, y: 0, w: mw, h: mh, data: new Float32Array(mw * mh) };
  // Where the face rules hair out, applied after the feather so that hair
  // beside the face does not bleed onto its skin.
  const gate = new Float32Array(mw * mh).fill(1);
  // Per node: how clearly its colour is skin rather than hair (see below).
  const skinLike = new Float32Array(mw * mh), ovalAt = new Float32Array(mw * mh);
  // Per node: where hair may be regardless of colour, and the face (see closeHighlights).
  const place = new Float32Array(mw * mh), faceAt = new Uint8Array(mw * mh);
  // Light hair dyed darker: each node's L* (see liftDarks).
  const nodeL = lightHair ? new Float32Array(mw * mh) : undefined;
  // The face oval, grown by FACE_ZONE_GROW (the forehead up to the mesh's top is skin, to the temples).
  const faceZone: Mask = { x: 0, y: 0, w: mw, h: mh, data: new Float32Array(lightHair ? mw * mh : 0) };
  if (lightHair) {
    fillPolygon(
      faceZone,
      pick(g, FACE_OVAL).map(([x, y]): Point => [
        (cx + (x - cx) * FACE_ZONE_GROW - x0) / step + 0.5,
        (g.center[1] + (y - g.center[1]) * FACE_ZONE_GROW - y0) / step + 0.5,
      ]),
    );
  }
  // Light hair darkened: a node's hair-likeness counts this much more (see LIGHT_HAIR_GAIN).
  const gain = lightHair ? LIGHT_HAIR_GAIN : 1;
  const crown = topY - 0.5 * fh, neckY = chinY, fadeY = 0.3 * fh;
  const cells = colour.cells, d = img.data, W = img.width;
  let sumL = 0, sumA = 0, sumB = 0, sumW = 0;
  const lab = new Float64Array(3);
  for (let j = 0; j < mh; j++) {
    const y = y0 + j * step;
    // Light hair dyed darker: no roots held back (blonde showing through reads as a pale patch; liftDarks
    // keeps dark roots from going black).
    const hold = 1 - (lightHair ? 0 : ROOT_HOLD) * Math.max(0, Math.min(1, (eyeY - y) / (eyeY - crown)));
    const below = y > chinY ? Math.min(1, (y - chinY) / fadeY) : 0;
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
      // The neck under the chin: long hair falls beside it, not over it, and
      // shaded neck skin is as dark and warm as blonde or brown hair.
      let inNeck = 0;
      if (y > neckY) {
        inNeck = Math.min(1, (y - neckY) / (0.1 * fh)) *
          Math.max(0, Math.min(1, (NECK_HALF_WIDTH * fw - Math.abs(x - cx)) / (0.06 * fw)));
        prior *= 1 - inNeck;
      }
      if (prior <= 0) continue;
      const k = j * mw + i;
      if (lightHair && faceZone.data[k] > 0.3) faceAt[k] = 1;
      const notFace = 1 - Math.min(1, sampleGrid(core, FACE_STEP, x, y));
      if (notFace <= 0) {
        gate[k] = 0;
        continue;
      }
      const inOval = Math.min(1, sampleGrid(ovalMask, FACE_STEP, x, y));
      if (inOval > 0.05) faceAt[k] = 1;
      const o = (y * W + x) * 3;
      const c = (((d[o] >> 3) << 10) | ((d[o + 1] >> 3) << 5) | (d[o + 2] >> 3)) * 4;
      if (cells[c] !== cells[c]) colour.fill(c);
      // Inside the (widened) face oval: hair only where the colour model is sure.
      gate[k] = notFace * (1 - inOval * (1 - cells[c + 1]));
      // Light hair: on the forehead (the face oval grown, above the brows) too, only colours the model is sure of.
      if (lightHair) gate[k] *= 1 - Math.min(1, faceZone.data[k]) * (1 - cells[c + 1]);
      place[k] = inNeck > 0 ? 0 : Math.min(1, 1.25 * p) * prior * hold * (1 - below);
      // Off the face and above the chin only: the forehead and the neck keep the colour model's doubt.
      const likeness = faceAt[k] || y > chinY ? cells[c] : Math.min(1, gain * cells[c]);
      mask.data[k] = Math.min(1, 1.25 * p) * prior * hold * likeness * (1 - below * cells[c + 2]);
      skinLike[k] = cells[c + 3];
      if (nodeL) nodeL[k] = colour.cellL[c >> 2];
      // Where a node's own value may stand unfeathered: not in the face oval
      // (hair there counts only where sure), not under the chin (the neck).
      ovalAt[k] = y > chinY ? 1 : Math.max(0, Math.min(1, (inOval - 0.3) / 0.4));
      const v = mask.data[k] * gate[k];
      if (v > 0.5) {
        linearToLabInto(lab, SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]);
        sumL += lab[0] * v;
        sumA += lab[1] * v;
        sumB += lab[2] * v;
        sumW += v;
      }
    }
  }
  if (sumW < 50 / step ** 2) return { applied: false, confidence, reason: "too little hair is visible" };
  closeGaps(mask);
  // The feather smooths the colour model's noise and softens the outline, but
  // it also pulled hair nodes next to the face down to about half strength (an
  // unrecoloured band along the face edge) and spread hair onto skin nodes.
  // Hair nodes outside the face oval keep at least their own value; nodes
  // whose colour is clearly skin lose what the feather gave them.
  const raw = mask.data.slice();
  feather(mask, 0.8);
  for (let k = 0; k < gate.length; k++) {
    mask.data[k] = Math.max(mask.data[k] * (1 - skinLike[k]), raw[k] * (1 - ovalAt[k]));
  }
  if (lightHair) {
    closeHighlights(mask, place, faceAt, Math.max(1, Math.round(HIGHLIGHT_CLOSE * fw / step)));
  }
  for (let k = 0; k < gate.length; k++) mask.data[k] *= gate[k];
  keepConnected(mask, Math.max(0, Math.ceil((chinY - y0) / step)));
  const mean: Lab = [sumL / sumW, sumA / sumW, sumB / sumW];
  // Bleaching dark hair (platinum on near-black) cannot be faked by a colour shift: it turns the
  // strands grey and whitens every skin pixel the mask touches. Say so instead.
  if (target[0] - mean[0] > MAX_LIGHTENING) {
    return { applied: false, confidence, reason: "lightening dark hair this much needs a generative model" };
  }
  // Where a grid cell straddles the hair's edge (the face, the scalp, the
  // outline), each pixel's own colour decides: hair up to the cell's strongest
  // node, skin down to nothing. The grid alone left a 2-4 px band of half-dyed
  // hair along the face.
  const refine: EdgeRefine = (row, from, x, y, n, hi, k) => {
    // The face oval's weight (see ovalAt) interpolated at the pixel.
    const fy = (y - y0) / step - Math.floor((y - y0) / step);
    const ovL = ovalAt[k] + (ovalAt[k + mw] - ovalAt[k]) * fy;
    const ovR = ovalAt[k + 1] + (ovalAt[k + mw + 1] - ovalAt[k + 1]) * fy;
    for (let t = 0, o = (y * W + x) * 3; t < n; t++, o += 3) {
      const c = (((d[o] >> 3) << 10) | ((d[o + 1] >> 3) << 5) | (d[o + 2] >> 3)) * 4;
      if (cells[c] !== cells[c]) colour.fill(c);
      const ov = ovL + (ovR - ovL) * (t / step);
      // In the oval's fringe above the chin, only colours the model is sure of.
      const hairness = cells[c] * (1 - ov) + (y < chinY ? cells[c + 1] * ov : 0);
      row[from + t] = Math.min(hi, Math.max(row[from + t] * (1 - cells[c + 3]), hi * hairness));
    }
  };
  const lift = nodeL ? liftDarks(mask, nodeL, mean[0], LIFT_SPAN * fw / step) : undefined;
  // Light hair dyed darker at full strength, for the same reason as the roots above.
  applyLabShift(img, mask, step, x0, y0, x1, y1, mean, target, lightHair ? 1 : OPACITY, refine, lift);
  return { applied: true, confidence };
}

/**
 * Skin in other light: a forehead lit brighter than the mesh points (hair
 * pulled back, a high hairline) is lighter and a little paler than the skin
 * sampled on the face, in the same hue. Blonde hair as light is yellower (its
 * hue 15-30 degrees from the skin's) and dark hair holds far less chroma.
 */
function litSkin(c: Lab, skin: Lab): boolean {
  const hc = Math.atan2(c[2], c[1]), hs = Math.atan2(skin[2], skin[1]);
  const dHue = Math.abs(Math.atan2(Math.sin(hc - hs), Math.cos(hc - hs))) * 180 / Math.PI;
  const chroma = Math.hypot(c[1], c[2]) / Math.max(1, Math.hypot(skin[1], skin[2]));
  return dHue < 10 && chroma > 0.65 && chroma < 1.5 && c[0] > skin[0] - 15;
}

/** A shade this many L* darker than a blonde hair colour counts as dyeing it darker. */
const DARKER_BY = 15;

/**
 * Blonde: a hair colour lighter than the skin (as the "mostly light" rule
 * counts it) and as saturated, yellow (hue 55-100 degrees) and yellower than
 * the skin. Pale light clusters (a grey top, a lit wall beside dark braids)
 * are not blonde hair, nor the orange of dark hair's lit side under a warm
 * light (hue 51 degrees on a brunette whose skin took a blue light).
 */
function blonde(c: Lab, skin: Lab): boolean {
  if (c[0] <= Math.max(BLONDE_MIN_L, skin[0] - BLONDE_BELOW_SKIN)) return false;
  const hue = Math.atan2(c[2], c[1]) * 180 / Math.PI, d = hue - Math.atan2(skin[2], skin[1]) * 180 / Math.PI;
  const yellower = ((d + 540) % 360) - 180;
  return Math.hypot(c[1], c[2]) >= 0.75 * Math.hypot(skin[1], skin[2]) && yellower >= 10 && hue >= 55 &&
    hue <= 100;
}

/**
 * Below row `fromRow` (the chin), keeps only the hair connected to the hair
 * above it: lengths fall from the head, while a garment the colour of the hair
 * (the grey of a patterned top under pulled-back braids) shows as patches
 * apart from it. A patch touching the lengths stays (a known limit).
 */
function keepConnected(m: Mask, fromRow: number): void {
  const { w, h, data } = m;
  if (fromRow >= h) return;
  const seen = new Uint8Array(w * h);
  const stack: number[] = [];
  const start = Math.max(0, fromRow - 1) * w;
  for (let k = start; k < start + w; k++) {
    if (data[k] > LINK) seen[k] = 1, stack.push(k);
  }
  while (stack.length) {
    const k = stack.pop()!, i = k % w;
    for (const n of [k - w, k + w, i > 0 ? k - 1 : -1, i < w - 1 ? k + 1 : -1]) {
      if (n >= start && n < w * h && !seen[n] && data[n] > LINK) seen[n] = 1, stack.push(n);
    }
  }
  for (let k = fromRow * w; k < w * h; k++) if (!seen[k]) data[k] = 0;
}

/**
 * Light hair dyed darker: a node's hair-likeness counts LIGHT_HAIR_GAIN times
 * (capped at 1). Partial likeness painted blonde curls at half strength, a
 * blend of blonde and the shade that read as pale patches in dyed hair (light
 * to dark shows every difference in strength; dark hair hides it).
 */
const LIGHT_HAIR_GAIN = 1.6;

/** The face oval's growth about the face centre where highlights are never filled in (see closeHighlights). */
const FACE_ZONE_GROW = 1.06;

/** Radius of the closing that fills highlight gaps in light hair, in face widths (see closeHighlights). */
const HIGHLIGHT_CLOSE = 0.1;

/**
 * Light hair: highlight gaps narrower than 2r nodes (curls catching the light
 * between darker strands, at the hair's outline too) are filled by a closing
 * of the mask (dilate, then erode), softened over r/2 nodes (a square
 * closing's corners showed) and kept to where hair may be, off the face.
 */
function closeHighlights(m: Mask, place: Float32Array, face: Uint8Array, r: number): void {
  const { w, h, data } = m;
  // Only the hair's bounding box (grown by the closing's reach) can change,
  // and the closing, softened anyway, runs on a grid twice as coarse (max of
  // 2 x 2 nodes: thin strands count): 4x less work.
  let i0 = w, i1 = -1, j0 = h, j1 = -1;
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      if (data[j * w + i] > 0.05) i0 = Math.min(i0, i), i1 = Math.max(i1, i), j0 = Math.min(j0, j), j1 = j;
    }
  }
  if (i1 < 0) return;
  i0 = Math.max(0, i0 - 2 * r), i1 = Math.min(w - 1, i1 + 2 * r);
  j0 = Math.max(0, j0 - 2 * r), j1 = Math.min(h - 1, j1 + 2 * r);
  const cw = Math.ceil((i1 - i0 + 1) / 2),
    ch = Math.ceil((j1 - j0 + 1) / 2),
    cr = Math.max(1, Math.round(r / 2));
  if (cw < 2 || ch < 2) return;
  const coarse = new Float32Array(cw * ch);
  const off: Mask = { x: 0, y: 0, w: cw, h: ch, data: new Float32Array(cw * ch) };
  for (let j = j0; j <= j1; j++) {
    for (let i = i0; i <= i1; i++) {
      const k = j * w + i, q = ((j - j0) >> 1) * cw + ((i - i0) >> 1);
      if (data[k] > coarse[q]) coarse[q] = data[k];
      if (!face[k]) off.data[q] += 0.25;
    }
  }
  let c = slidingExtreme(coarse, cw, ch, cr, true, true);
  c = slidingExtreme(c, cw, ch, cr, false, true);
  c = slidingExtreme(c, cw, ch, cr, true, false);
  c = slidingExtreme(c, cw, ch, cr, false, false);
  const closed: Mask = { x: 0, y: 0, w: cw, h: ch, data: c };
  feather(closed, cr / 2);
  // Off the face, fading in over a few nodes (a hard edge showed as a cut across a curl on the forehead).
  feather(off, cr / 3);
  const o = off.data;
  for (let j = j0; j <= j1; j++) {
    // Bilinear: node j lies at coarse row (j - j0 - 0.5) / 2.
    const fy = Math.max(0, Math.min(ch - 1, (j - j0 - 0.5) / 2)),
      qy = Math.min(ch - 2, Math.floor(fy)),
      ty = fy - qy;
    for (let i = i0; i <= i1; i++) {
      const k = j * w + i;
      // Nothing to add on the face, or where the node already has all the room hair has.
      if (face[k] || place[k] <= data[k]) continue;
      const fx = Math.max(0, Math.min(cw - 1, (i - i0 - 0.5) / 2)),
        qx = Math.min(cw - 2, Math.floor(fx)),
        tx = fx - qx;
      const q = qy * cw + qx, a = (1 - tx) * (1 - ty), b = tx * (1 - ty), e = (1 - tx) * ty, f = tx * ty;
      const v = c[q] * a + c[q + 1] * b + c[q + cw] * e + c[q + cw + 1] * f;
      const fade = o[q] * a + o[q + 1] * b + o[q + cw] * e + o[q + cw + 1] * f;
      data[k] = Math.max(data[k], Math.min(v, place[k]) * fade);
    }
  }
}

/** Share of a region's L* below the hair's mean that the dye takes back (see liftDarks), and its cap. */
const LIFT_SHARE = 0.85, LIFT_MAX = 35;
/** The span (sigma, in face widths) of the regions whose lightness liftDarks compresses. */
const LIFT_SPAN = 0.03;

/**
 * Light hair dyed darker keeps its strands' L* offsets from the mean (fine
 * strand contrast), which took its darker regions (dark roots, shaded lengths
 * 30-50 L* under the mean) to near black: a dark cap. Regions (the hair's L*
 * averaged over `sigma` nodes) darker than the mean are lifted by LIFT_SHARE
 * of the difference, so the dyed hair's large-scale light and shade is
 * compressed toward the shade while the strands within a region keep theirs.
 */
function liftDarks(m: Mask, nodeL: Float32Array, meanL: number, sigma: number): Lift {
  const { w, h } = m;
  const weighted: Mask = { x: 0, y: 0, w, h, data: new Float32Array(w * h) };
  const weight: Mask = { x: 0, y: 0, w, h, data: m.data.slice() };
  for (let k = 0; k < w * h; k++) weighted.data[k] = nodeL[k] * m.data[k];
  feather(weighted, sigma);
  feather(weight, sigma);
  const data = new Float32Array(w * h);
  for (let k = 0; k < w * h; k++) {
    if (weight.data[k] < 1e-3) continue;
    const base = weighted.data[k] / weight.data[k];
    data[k] = Math.max(0, Math.min(1, (LIFT_SHARE * (meanL - base)) / LIFT_MAX));
  }
  return { data, amount: LIFT_MAX };
}

/** Mask value above which neighbouring nodes count as one piece of hair (see keepConnected). */
const LINK = 0.15;

/**
 * Fills one-node gaps between hair nodes (left and right, or above and
 * below): a parting or a thin light strand narrower than the grid is
 * recoloured with the hair around it. Left as a hole, the feather turned it
 * into a band of half-recoloured hair on each side (a grey seam along the parting).
 */
function closeGaps(m: Mask): void {
  const { w, h } = m, src = m.data.slice(), d = m.data;
  for (let j = 1; j < h - 1; j++) {
    for (let i = 1; i < w - 1; i++) {
      const k = j * w + i;
      const across = Math.max(Math.min(src[k - 1], src[k + 1]), Math.min(src[k - w], src[k + w]));
      if (across > d[k]) d[k] = across;
    }
  }
}

/** Clothing colour clusters below the chin, each with its spread and whether it looks like the hair. */
interface ClothClass {
  mean: Lab;
  s: number;
  likeHair: boolean;
}

function clothModel(img: Canvas, g: FaceGeometry, person: PersonMask, hair: AxisStats): ClothClass[] {
  const hs = Math.max(6, Math.hypot(...hair.sd));
  return palette(clothSamples(img, g, person), 3).map((c) => ({
    mean: c.mean,
    s: Math.max(6, c.sd),
    likeHair: Math.hypot(c.mean[0] - hair.mean[0], c.mean[1] - hair.mean[1], c.mean[2] - hair.mean[2]) <
      1.5 * hs,
  }));
}

/** Distance to a colour class in units of its spread per axis (floors keep tight classes usable). */
function axisDistance(lab: Float64Array, s: AxisStats, floor: number, weightL = 1): number {
  const dL = (lab[0] - s.mean[0]) * weightL / Math.max(floor, s.sd[0]);
  const dA = (lab[1] - s.mean[1]) / Math.max(floor, s.sd[1]);
  const dB = (lab[2] - s.mean[2]) / Math.max(floor, s.sd[2]);
  return Math.sqrt((dL * dL + dA * dA + dB * dB) / 3);
}

/**
 * Highlights above a hair colour lighter than the skin count their extra L* at
 * this weight: blonde strands range far more in lightness than in hue, and
 * nothing lighter than blonde hair is skin (the curly blonde highlights were
 * left undyed at full weight). Below the skin's L*, or under darker hair, L*
 * counts fully (shaded neck skin is as dark as brown hair).
 */
const HIGHLIGHT_WEIGHT_L = 0.5;

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/**
 * The colour model over RGB (CN^3 cells, each evaluated at its centre colour
 * the first time a pixel needs it: a head holds a few thousand distinct cells).
 * Four values per cell:
 * - hair-likeness: nearer the hair than the skin, and not far from a hair colour;
 * - sureness: clearly nearer the hair (what counts inside the face oval, where
 *   shaded skin at the face's edge is nearly as dark as hair);
 * - clothing-likeness below the chin. A garment the colour of the hair (black
 *   hair, black top) cannot be told apart by colour: that colour fades out of
 *   the mask below the chin instead of dyeing the clothes;
 * - skin-likeness: clearly nearer the skin than the hair.
 */
class ColourModel {
  /** Per cell: hair-likeness, sureness, clothing-likeness, skin-likeness (NaN until filled). */
  readonly cells = new Float32Array(CN * CN * CN * 4).fill(NaN);
  /** Per cell: the L* of its centre colour (filled with the cell). */
  readonly cellL = new Float32Array(CN * CN * CN);
  readonly #lab = new Float64Array(3);
  /** `skins`: the skin sampled on the face first, then skin in other light (see litSkin). */
  constructor(readonly hair: AxisStats[], readonly skins: AxisStats[], readonly cloth: ClothClass[]) {}

  /** Evaluates cell `c` (3 x the cell's index, CN = 32 levels per channel). */
  fill(c: number): void {
    const cell = c / 4, r = cell >> 10, g = (cell >> 5) & 31, b = cell & 31;
    const lab = this.#lab;
    linearToLabInto(lab, SRGB_TO_LINEAR[r * 8 + 4], SRGB_TO_LINEAR[g * 8 + 4], SRGB_TO_LINEAR[b * 8 + 4]);
    this.cellL[cell] = lab[0];
    let dh = Infinity;
    for (const h of this.hair) {
      const highlight = h.mean[0] > this.skins[0].mean[0] && lab[0] > h.mean[0];
      dh = Math.min(dh, axisDistance(lab, h, 3.5, highlight ? HIGHLIGHT_WEIGHT_L : 1));
    }
    // Skin under other light (shoulders, neck, a shaded forehead) mostly changes L: weigh L less.
    let ds = Infinity;
    for (const s of this.skins) ds = Math.min(ds, axisDistance(lab, s, 5, 0.5));
    const m = this.cells;
    m[c] = sigmoid((ds - dh) * 1.6) * Math.max(0, Math.min(1, 3 - dh));
    m[c + 1] = sigmoid((ds - dh - 1.5) * 2.5) * Math.max(0, Math.min(1, 2.5 - dh));
    let keep = 1;
    for (const k of this.cloth) {
      const dc = Math.hypot(lab[0] - k.mean[0], lab[1] - k.mean[1], lab[2] - k.mean[2]) / k.s;
      keep *= 1 - (k.likeHair ? sigmoid((1.5 - dc) * 3) : sigmoid((dh - dc) * 1.6));
    }
    m[c + 2] = 1 - keep;
    // Clearly skin: what the feather must not spread hair onto.
    m[c + 3] = sigmoid((dh - ds - 1) * 2.5);
  }
}
