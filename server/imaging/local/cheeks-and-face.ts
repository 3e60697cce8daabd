/** Cheek and face layers: blush, highlighter, contour, bronzer and faux freckles. */
import { blendLayer, blendLut, type Canvas, channelLut, type Effect, maskedMeanLinear } from "./blend.ts";
import { deltaE, hexToLinear, linearToLab, luminance, SRGB_TO_LINEAR } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { EYE_L, EYE_R, FACE_OVAL, NOSE_OUTLINE, UNDER_EYE_L, UNDER_EYE_R } from "./landmarks.ts";
import { clipToFace, gridMask, multiplyLut, outlineRamp, SOFT_STEP, toGrid } from "./makeup-layer.ts";
import { smoothstep } from "./ramps.ts";
import {
  bandPolygon,
  boost,
  boundsOf,
  coverage,
  createMask,
  feather,
  fillEllipse,
  fillPolygon,
  type Mask,
  mid,
  multiply,
  type Point,
  subtract,
} from "./masks.ts";
import { photoExposure } from "./photo-exposure.ts";
import { skinMeanLinear, skinWeights } from "./skin-tone.ts";

/**
 * Multiplies a layer's mask (at 1/`step` resolution) by how skin-like the
 * pixel under it is: strands of hair falling over a cheekbone are neither
 * made shiny nor flushed. With `soft` (the cheek layers): a pixel brighter
 * than the skin's mean counts as skin (a lit or overexposed cheek loses its
 * colour, and hair over a cheek is darker than it); weights are raised by
 * `gain` (at most 1), so skin in shadow keeps most of the product, but a
 * pixel below HAIR_DARKNESS of the skin's luminance is not skin (dark hair on
 * a dim face is close to its skin in colour, not in brightness); and each
 * cell takes the least weight of its 3x3 neighbourhood, so a strand narrower
 * than a cell takes no blush from the cells beside it (the mask is sampled
 * bilinearly between cell centres).
 */
function skinGate(img: Canvas, g: FaceGeometry, m: Mask, step: number, soft = false, gain = 1): void {
  const s = skinMeanLinear(img, g);
  const ys = luminance(s[0], s[1], s[2]);
  const weight = skinWeights(linearToLab(s[0], s[1], s[2]));
  const d = img.data, W = img.width, H = img.height;
  const gate = new Float32Array(m.data.length).fill(1);
  for (let r = 0; r < m.h; r++) {
    const y = Math.min(H - 1, Math.floor((m.y + r + 0.5) * step));
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] <= 0.002) continue;
      const i = (y * W + Math.min(W - 1, Math.floor((m.x + c + 0.5) * step))) * 3;
      const pr = d[i], pg = d[i + 1], pb = d[i + 2];
      if (!soft) {
        gate[k] = weight(pr, pg, pb);
        continue;
      }
      const yp = luminance(SRGB_TO_LINEAR[pr], SRGB_TO_LINEAR[pg], SRGB_TO_LINEAR[pb]);
      if (yp >= ys) continue;
      const dark = Math.min(1, Math.max(0, (yp / ys - HAIR_DARKNESS) / HAIR_DARKNESS));
      gate[k] = Math.min(1, gain * weight(pr, pg, pb)) * dark;
    }
  }
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] <= 0.002) continue;
      let w = gate[k];
      if (soft) {
        for (let rr = Math.max(0, r - 1); rr <= Math.min(m.h - 1, r + 1); rr++) {
          for (let cc = Math.max(0, c - 1); cc <= Math.min(m.w - 1, c + 1); cc++) {
            w = Math.min(w, gate[rr * m.w + cc]);
          }
        }
      }
      m.data[k] *= w;
    }
  }
}

/** Below this share of the skin's mean luminance a pixel under a cheek layer is hair or deep shadow, not skin (0 at it, full at twice it). */
const HAIR_DARKNESS = 0.2;

/**
 * Blush strength. The skin's chromaticity moves most of the way toward the
 * shade's where the band is full, and the flush deepens the skin by at least
 * 9%, more (down to 80%) until the full-strength flush stands ΔE 12 from the
 * skin: a shade close to the skin's own (Soft Peach or Dusty Rose on fair
 * skin) still reads as blush at the default intensity, as pigment does. No
 * channel is raised: pigment on skin only absorbs. (Gains up to 1.3 lifted red
 * and blue on olive skin: Berry Flush read as a chalky hot-pink patch on
 * sample6@1081, 7,718 of sample3@1372's 9,527 flushed pixels had a lighter
 * channel.)
 */
const BLUSH_CHROMA = 0.9;
const BLUSH_DEPTHS = [0.91, 0.88, 0.85, 0.82, 0.8];
const BLUSH_MIN_DELTA_E = 12;
/**
 * The full-strength flush of the skin's mean colour stands at most this far (ΔE) from it. On olive and golden
 * skin the move toward a berry's chromaticity alone put it ΔE 28-31 away (sample5@727, sample6@1081: at 100 a
 * painted pink patch, peak ΔE 21-22 as painted) against 22 on pink-toned skin (sample3@1372, peak 11-12).
 * Gains over it are eased toward 1 (each raised to the same power below 1) until it stands this far, so a
 * shade is about as strong on every skin at the same intensity (with BLUSH_CHEEK_DELTA_E: painted peaks 10-16).
 */
const BLUSH_MAX_DELTA_E = 22;
/**
 * Each cheek's own colour under the band's core (the mask at 0.5 or more) is moved at most this far by the
 * full-strength flush: the painted flush is the cheek's, and a cheek lighter or warmer than the face's mean
 * skin took it stronger than the bound above allows for (sample4@908's lit cheek: a painted peak of ΔE 19.3).
 */
const BLUSH_CHEEK_DELTA_E = 20;
const BLUSH_ALPHA = 0.9;

/**
 * The blush band's shape, in face widths. Its apple end lies BLUSH_DROP down the face from the mesh's apple
 * points (50/101, 280/330: just under the lower lid, where two round patches read as doll's cheeks) and it is
 * swept BLUSH_REACH of the way to the temple points. It is feathered over BLUSH_FEATHER and its core lifted by
 * BLUSH_LIFT: it fades out over a wider ring at the same peak (feathered 0.04 and lifted 1.2, its outline showed
 * as an oval on an evenly lit cheek). BLUSH_MARGIN is the grid mask's room around the band for the feather.
 */
const BLUSH_DROP = 0.03;
const BLUSH_REACH = 1.1;
const BLUSH_FEATHER = 0.06;
const BLUSH_LIFT = 1.8;
const BLUSH_MARGIN = 0.16;

/**
 * The end of every soft cheek-area layer (blush, contour, bronzer) drawn on
 * a SOFT_STEP grid mask: feathered by `featherPx` (image pixels), its core
 * lifted by `lift`, cut out of the eyes, at the face outline and off hair,
 * then blended by `paint` (at `alpha`).
 */
function paintSoftArea(
  img: Canvas,
  g: FaceGeometry,
  m: Mask,
  featherPx: number,
  lift: number,
  alpha: number,
  paint: (m: Mask, alpha: number) => void,
  room?: Mask,
): void {
  feather(m, featherPx / SOFT_STEP);
  boost(m, lift);
  // The blush fades out before the outline, the nose and the eyes (see blushRoom).
  if (room) multiply(m, room);
  // A band moved inward on a turned head (see bandInsideFace) can reach an eye; so can its feather.
  subtract(m, eyeZone(g, m, SOFT_STEP, false));
  clipToFace(img, g, m, SOFT_STEP);
  // Tolerant: skin in shadow at the temple stays flushed; strands (far
  // from any skin colour) do not.
  skinGate(img, g, m, SOFT_STEP, true, 3);
  paint(m, alpha);
}

/** Mirrored landmark sets, subject's right then left. */
const SIDES = [
  { apple: [50, 101], temple: [116, 143], bone: [143, 111, 117] },
  { apple: [280, 330], temple: [345, 372], bone: [372, 340, 346] },
] as const;

/**
 * Blush: swept along the cheekbone from the apple of the cheek up toward the
 * temple (a tapered, feathered band, not a disc), clipped to the face outline.
 * Its strength is judged on the skin as a well-exposed photo shows it (the skin over `exposure`, see
 * photoExposure: the renderer measures it before anything is painted; measured here when not given). The
 * bounds are ΔE, and Lab differences shrink with the light: judged on the dim skin itself, the same shade
 * flushed a copy of a portrait darkened to 0.58 of its light 21-42 % deeper (log gain of green) than the
 * portrait, at 0.35 40-55 % deeper.
 */
export function blushLayer(img: Canvas, g: FaceGeometry, hex: string, t: number, exposure?: number): void {
  const p = g.pts, fw = g.fw, q = SOFT_STEP, lit = exposure ?? photoExposure(img, g);
  // A translucent flush: the skin's chromaticity moved toward the shade's
  // (a per-channel multiply, never above 1, texture untouched), so a berry
  // reads berry on any skin instead of an orange soft-light patch.
  const c = hexToLinear(hex), skin = skinMeanLinear(img, g);
  const yc = Math.max(1e-3, luminance(c[0], c[1], c[2]));
  const ys = luminance(skin[0], skin[1], skin[2]);
  const ratio = [0, 1, 2].map((k) => ((c[k] / yc) / (skin[k] / ys)) ** BLUSH_CHROMA);
  const ry = luminance(ratio[0], ratio[1], ratio[2]);
  const wellLit = (v: readonly number[]) => v.map((x) => Math.min(1, x / lit));
  const litSkin = wellLit(skin);
  let gains: [number, number, number] = [1, 1, 1];
  for (const depth of BLUSH_DEPTHS) {
    gains = ratio.map((r) => Math.min(1, r * depth / ry)) as [number, number, number];
    if (flushDistance(litSkin, gains) >= BLUSH_MIN_DELTA_E) break;
  }
  gains = easedGains(litSkin, gains, BLUSH_MAX_DELTA_E);
  // A turned head's far cheek is foreshortened: its band is drawn that much narrower and softer (see
  // sideScales), inside the room the cheek leaves between the outline, the nose and the eye (see blushRoom).
  const room = blushRoom(img, g), scales = sideScales(g);
  for (const [k, side] of SIDES.entries()) {
    const a = mid(p[side.apple[0]], p[side.apple[1]]);
    const apple: Point = [a[0] - g.up[0] * BLUSH_DROP * fw, a[1] - g.up[1] * BLUSH_DROP * fw];
    const temple = mid(apple, mid(p[side.temple[0]], p[side.temple[1]]), BLUSH_REACH);
    const f = scales[k], line = [apple, mid(apple, temple), temple];
    const band = bandInsideFace(img, g, room, line, (u) => f * fw * (0.05 - 0.022 * u));
    const m = gridMask(img, band, BLUSH_MARGIN * fw, q);
    fillPolygon(m, toGrid(band, q));
    paintSoftArea(img, g, m, f * BLUSH_FEATHER * fw, BLUSH_LIFT, BLUSH_ALPHA * t, (m, alpha) => {
      // The cheek's own colour under the band's core bounds this cheek's flush too (see BLUSH_CHEEK_DELTA_E).
      // (Lit white pixels are left out: they take the flushed skin's colour, not the gains; see WHITE_FROM.)
      const cheek = maskedMeanLinear(img, m, 0.5, SOFT_STEP, (r, g, b) => Math.min(r, g, b) >= WHITE_FROM);
      const own = cheek ? easedGains(wellLit(cheek), gains, BLUSH_CHEEK_DELTA_E) : gains;
      blendLayer(img, m, alpha, flushEffect(own, skin, ys), SOFT_STEP);
    }, room);
  }
}

/**
 * The blush band along `line` (see bandPolygon), moved across the face toward its middle until
 * BAND_INSIDE of it lies in the blush's room (`room`, see blushRoom: inside the face outline, off the
 * nose and away from the eyes), BAND_SHIFT_STEP face widths at a time and at most BAND_MAX_SHIFT; where no
 * shift gets there, the one that gets the most in. On a turned head the far cheek's mesh points (apple,
 * temple) lie at the outline or past it: the mesh's outline there runs behind the cheek's curve. The clip
 * took 79-95 % of that cheek's band, so the blush was on one cheek only on 6 of the 16 frontal test faces
 * (the weaker cheek's flush 0.00-0.10 of the other's at 60; with the band moved and kept off the nose,
 * 0.06-0.53 on those faces: a far cheek shows only between the nose and the outline).
 */
function bandInsideFace(
  img: Canvas,
  g: FaceGeometry,
  room: Mask,
  line: Point[],
  width: (u: number) => number,
): Point[] {
  const q = SOFT_STEP, fw = g.fw;
  const across: Point = [-g.up[1], g.up[0]];
  const toMiddle = Math.sign((g.center[0] - line[0][0]) * across[0] + (g.center[1] - line[0][1]) * across[1]);
  let best: Point[] = [], bestInside = -1;
  for (let shift = 0; shift <= BAND_MAX_SHIFT + 1e-9; shift += BAND_SHIFT_STEP) {
    const d = toMiddle * shift * fw;
    const band = bandPolygon(line.map(([x, y]) => [x + across[0] * d, y + across[1] * d] as Point), width);
    const m = gridMask(img, band, 0, q);
    fillPolygon(m, toGrid(band, q));
    const all = coverage(m);
    multiply(m, room);
    const inside = all > 0 ? coverage(m) / all : 0;
    if (inside > bestInside) best = band, bestInside = inside;
    if (inside >= BAND_INSIDE) break;
  }
  return best;
}

/** The share of the band to lie inside the outline, and the steps that move it (see bandInsideFace). */
const BAND_INSIDE = 0.9, BAND_SHIFT_STEP = 0.01, BAND_MAX_SHIFT = 0.14;

/** How far (ΔE) the gains move a linear colour `c` (whose Lab is `base`). */
function flushDistance(
  c: readonly number[],
  gains: readonly number[],
  base = linearToLab(c[0], c[1], c[2]),
): number {
  return deltaE(linearToLab(c[0] * gains[0], c[1] * gains[1], c[2] * gains[2]), base);
}

/**
 * `gains` eased toward 1 (each raised to the same power below 1, found by bisection: ΔE grows with the power)
 * until they move colour `c` at most `bound` ΔE; as they are when they already do.
 */
function easedGains(
  c: readonly number[],
  gains: [number, number, number],
  bound: number,
): [number, number, number] {
  const base = linearToLab(c[0], c[1], c[2]);
  if (flushDistance(c, gains, base) <= bound) return gains;
  let lo = 0, hi = 1;
  for (let k = 0; k < 12; k++) {
    const e = (lo + hi) / 2;
    if (flushDistance(c, gains.map((v) => v ** e), base) > bound) hi = e;
    else lo = e;
  }
  return gains.map((v) => v ** lo) as [number, number, number];
}

/**
 * A cheek pixel whose every channel is at least WHITE_FROM (sRGB) is lit white, or clipped: its colour
 * says nothing of the light's. From there to WHITE_FULL it is flushed to the flushed skin's colour at its
 * own luminance rather than through the skin's gains (see flushEffect). A pixel lit by a coloured light
 * (sample3@1005's cheek under blue light: channels 168-211) keeps the gains, and so that light's colour.
 */
const WHITE_FROM = 190;
const WHITE_FULL = 225;

/**
 * The blush's colour per pixel: multiplied by the gains that turn the skin's mean (`skin`, linear) into the
 * flushed skin. A white highlight kept its blue through the gains, taken from the skin: Berry Flush lowers
 * green only, so a near-white cheek came out lilac beside a berry one on the shaded cheek (sample5@1045). A
 * white pixel (see WHITE_FROM) takes the flushed skin's colour at its own luminance (the skin's is `skinY`)
 * instead, each channel no lighter than it was: pigment over a highlight reads as a lit flush of the same hue.
 */
function flushEffect(gains: readonly number[], skin: readonly number[], skinY: number): Effect {
  const [gr, gg, gb] = gains, fr = skin[0] * gr, fg = skin[1] * gg, fb = skin[2] * gb;
  const from = SRGB_TO_LINEAR[WHITE_FROM], span = SRGB_TO_LINEAR[WHITE_FULL] - from;
  return (px) => {
    const r = px[0], g = px[1], b = px[2];
    px[0] = r * gr, px[1] = g * gg, px[2] = b * gb;
    const w = Math.min(1, (Math.min(r, g, b) - from) / span);
    if (w > 0) {
      const s = luminance(r, g, b) / skinY;
      px[0] += (Math.min(r, fr * s) - px[0]) * w;
      px[1] += (Math.min(g, fg * s) - px[1]) * w;
      px[2] += (Math.min(b, fb * s) - px[2]) * w;
    }
  };
}

/**
 * Highlighter: a luminance lift with a little sheen (brighter where the skin
 * already catches light), on the cheekbone tops, the nose bridge and the
 * cupid's bow only. It keeps the skin's colour and texture (a multiplied lift,
 * bounded), so it reads as product catching light, not white paint.
 */
export function highlighterLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const skin = skinMeanLinear(img, g);
  const warm = [1, 0.97, 0.9];
  // At most ~+10 L* on mid-toned skin at full strength: a lift, not a white layer.
  const lut = channelLut((v, k) =>
    Math.min(v * 1.5, v * 1.24 + 0.45 * warm[k] * Math.max(0, v - 0.85 * skin[k]))
  );
  const bow = p[0];
  const shapes: { pts: Point[]; fill: (m: Mask) => void }[] = [
    ...SIDES.map((side) => {
      const band = bandPolygon(side.bone.map((i) => p[i]), (u) => fw * (0.016 - 0.006 * u));
      return { pts: band, fill: (m: Mask) => fillPolygon(m, band) };
    }),
    (() => {
      const band = bandPolygon(pick(g, [6, 197, 195]), (u) => fw * (0.006 + 0.002 * u));
      return { pts: band, fill: (m: Mask) => fillPolygon(m, band, 0.8) };
    })(),
    {
      pts: [bow],
      fill: (m: Mask) =>
        fillEllipse(
          m,
          bow[0] + g.up[0] * 0.012 * fw,
          bow[1] + g.up[1] * 0.012 * fw,
          0.02 * fw,
          0.007 * fw,
          0,
          0.8,
        ),
    },
  ];
  // Each shape on its own small rectangle (a face-sized full-resolution mask costs 10x more).
  for (const shape of shapes) {
    const m = createMask(boundsOf(shape.pts, 0.04 * fw, img.width, img.height));
    shape.fill(m);
    feather(m, 0.01 * fw);
    subtract(m, eyeZone(g, m));
    clipToFace(img, g, m, 1);
    skinGate(img, g, m, 1);
    blendLut(img, m, 0.9 * t, lut);
  }
}

/**
 * Where a blush may lie, on the SOFT_STEP grid over the face: 1 on the cheeks, fading to 0 at the face
 * outline (over about BLUSH_OUTLINE_FADE inside it), beside the nose (see noseZone) and toward the eyes (over
 * about BLUSH_EYE_FADE outside them). Cut at those edges instead, a far cheek's flush, moved toward the face's
 * middle (see bandInsideFace), was a wedge with straight sides: along the outline, the nose and the lower lid
 * (sample6@587, sample2@1370 under Evening Glam at 100). Made once per face.
 */
function blushRoom(img: Canvas, g: FaceGeometry): Mask {
  const known = blushRooms.get(g);
  if (known) return known;
  const q = SOFT_STEP;
  // 0 at the outline (where the blur is a half), 1 about BLUSH_OUTLINE_FADE inside it.
  const m = outlineRamp(img, g, { pad: 0, sigma: BLUSH_OUTLINE_FADE / 2, from: 0.5, span: 0.5 });
  subtract(m, noseZone(g, q));
  const eyes = createMask(m);
  for (const idx of [EYE_R, EYE_L]) fillPolygon(eyes, toGrid(pick(g, idx), q));
  feather(eyes, BLUSH_EYE_FADE / 2 * g.fw / q);
  subtract(m, boost(eyes, 2));
  blushRooms.set(g, m);
  return m;
}
const blushRooms = new WeakMap<FaceGeometry, Mask>();
/** The blush room's fades, in face widths: inward from the outline, outward from the eyes (see blushRoom). */
const BLUSH_OUTLINE_FADE = 0.05, BLUSH_EYE_FADE = 0.04;

/**
 * The nose (its bridge, sides and wings) on a 1/`step` grid: 1 over it, falling to 0 over NOSE_FADE face
 * widths outside its outline (smoothstep), so a blush kept off it fades in from the nose's outline and none
 * lies on the nose. (The eyes' fade in blushRoom is a blur: its Gaussian tail, fading the same reach, left the
 * far cheek's flush at the nose's outline at 0.04-0.07 of its peak against 0.00-0.01.)
 */
function noseZone(g: FaceGeometry, step: number): Mask {
  const nose = toGrid(pick(g, NOSE_OUTLINE), step);
  const fade = NOSE_FADE * g.fw / step;
  // The nose's bounding box grown by the fade: the zone is 0 beyond.
  const xs = nose.map((p) => p[0]), ys = nose.map((p) => p[1]);
  const x0 = Math.floor(Math.min(...xs) - fade), y0 = Math.floor(Math.min(...ys) - fade);
  const m = createMask({
    x: x0,
    y: y0,
    w: Math.ceil(Math.max(...xs) + fade) - x0,
    h: Math.ceil(Math.max(...ys) + fade) - y0,
  });
  fillPolygon(m, nose);
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] >= 0.5) {
        m.data[k] = 1;
        continue;
      }
      const x = m.x + c + 0.5, y = m.y + r + 0.5;
      let d2 = Infinity;
      for (let i = 0, j = nose.length - 1; i < nose.length; j = i++) {
        d2 = Math.min(d2, segmentDistance2(x, y, nose[j], nose[i]));
      }
      m.data[k] = Math.max(m.data[k], 1 - smoothstep(0, fade, Math.sqrt(d2)));
    }
  }
  return m;
}

/** Squared distance from (x, y) to the segment a-b. */
function segmentDistance2(x: number, y: number, a: Point, b: Point): number {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const t = Math.max(0, Math.min(1, ((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy || 1)));
  const ex = x - a[0] - t * dx, ey = y - a[1] - t * dy;
  return ex * ex + ey * ey;
}

/**
 * The nose's fade outward. Feathered both ways (0.03 face widths, lifted 1.3), the zone left a far cheek's
 * flush at 0.2-0.36 of its peak right at the nose's outline and some on the nose's edge: a straight edge along
 * the nose (sample6@587, sample2@1370 under Evening Glam). Faded outward only, it is at 0.00-0.01 there.
 */
const NOSE_FADE = 0.06;

/**
 * The eyes and, with `hollows`, the hollow under them (lower lid to the cheek's top ring), on a mask like
 * `rect` (on a 1/`step` grid): no highlighter in either, no blush, contour or bronzer in the eyes.
 */
function eyeZone(
  g: FaceGeometry,
  rect: { x: number; y: number; w: number; h: number },
  step = 1,
  hollows = true,
): Mask {
  const m = createMask(rect);
  for (const idx of hollows ? [EYE_R, EYE_L, UNDER_EYE_R, UNDER_EYE_L] : [EYE_R, EYE_L]) {
    fillPolygon(m, toGrid(pick(g, idx), step));
  }
  feather(m, 0.006 * g.fw / step);
  return boost(m, 2);
}

export function contourLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const q = SOFT_STEP;
  // Each band with its scale across the face: 1, or a turned head's foreshortened cheek (see sideScales).
  const bands: [Point[], number][] = [];
  const scales = sideScales(g);
  for (const [k, [ear, mouth]] of [[234, 61], [454, 291]].entries()) {
    const a: Point = [p[ear][0] - g.up[0] * 0.06 * fw, p[ear][1] - g.up[1] * 0.06 * fw];
    const b = mid(a, p[mouth], 0.45);
    const f = scales[k];
    bands.push([bandPolygon([a, mid(a, b), b], (u) => f * 0.035 * fw * (1 - 0.6 * u)), f]);
  }
  // Sides of the nose.
  for (const [top, bottom] of [[193, 129], [417, 358]]) {
    if (p[top] && p[bottom]) bands.push([bandPolygon([p[top], p[bottom]], () => 0.008 * fw), 1]);
  }
  // Each band on its own small grid rectangle (they do not overlap, and a
  // face-sized mask is mostly empty cells to feather, clip and blend).
  const lut = multiplyLut(0.7, 0.62, 0.58);
  for (const [band, f] of bands) {
    const m = gridMask(img, band, 0.1 * fw, q);
    fillPolygon(m, toGrid(band, q));
    // The feather halves a band this narrow: the 1.7 lift brings its core back toward full.
    paintSoftArea(
      img,
      g,
      m,
      f * 0.03 * fw,
      1.7,
      f * f * 0.7 * t,
      (m, a) => blendLut(img, m, a, lut, SOFT_STEP),
    );
  }
}

/**
 * How much of each side of the face (subject's right, then left) a turned head shows: each side's width (from
 * the nose bridge, mesh point 168, across the face to the ear points 234 and 454) over the mean of the two,
 * against FRONTAL_SIDE, at most 1. A contour band is drawn that much narrower and, squared, that much weaker:
 * at its full width, on the far side of sample6@587's head (0.42 of the two sides' mean), the cheek hollow's
 * shade filled the strip of cheek between the outline and the nose, a dark streak beside the nose.
 */
export function sideScales(g: FaceGeometry): [number, number] {
  const across: Point = [-g.up[1], g.up[0]], c = g.pts[168];
  const side = (i: number) => Math.abs((g.pts[i][0] - c[0]) * across[0] + (g.pts[i][1] - c[1]) * across[1]);
  const r = side(234), l = side(454), mean = Math.max(1e-6, (r + l) / 2);
  return [Math.min(1, r / mean / FRONTAL_SIDE), Math.min(1, l / mean / FRONTAL_SIDE)];
}

/** A side at least this share of the two sides' mean width is drawn as on a frontal face (see sideScales). */
const FRONTAL_SIDE = 0.8;

export function bronzerLayer(img: Canvas, g: FaceGeometry, t: number): void {
  const p = g.pts, fw = g.fw;
  const q = SOFT_STEP;
  const m = gridMask(img, pick(g, FACE_OVAL), 0.05 * fw, q);
  for (const i of [54, 284]) fillEllipse(m, p[i][0] / q, p[i][1] / q, 0.1 * fw / q, 0.07 * fw / q);
  for (const i of [123, 352]) fillEllipse(m, p[i][0] / q, p[i][1] / q, 0.09 * fw / q, 0.06 * fw / q);
  fillEllipse(m, p[4][0] / q, p[4][1] / q, 0.05 * fw / q, 0.04 * fw / q);
  const lut = multiplyLut(0.88, 0.72, 0.55);
  paintSoftArea(img, g, m, 0.05 * fw, 1.5, 0.65 * t, (m, a) => blendLut(img, m, a, lut, SOFT_STEP));
}

export function frecklesLayer(img: Canvas, g: FaceGeometry, t: number): void {
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
