/**
 * Red eyes from a flash: a camera's flash lit the retina through a wide-open pupil, and the pupil glows red
 * or pink instead of dark. A retoucher darkens and neutralises it before anything else, and so does every
 * render here: the result is a photo of the person styled, and no look, backdrop or light hides a pupil
 * that glows (a studio backdrop behind the face makes it stand out more).
 *
 * Where: the iris the face mesh found (its centre and four points on its rim), inside the eye's opening.
 * What: pixels redder than an iris is, and lit (a flash's red glows at 40-80 L*; a red-brown iris in a
 * warm light is darker). A brown or amber iris is orange (its b* near or above its a*); a
 * flash's red is red to pink (a* well above b*). Measured on the test portraits (sRGB crops, discs of
 * half the iris's radius): the flash-red pupils of sample6@1402 have a* 19-34 at hue 30-40° and their
 * pink glints a* 15 at hue 6°; sample6@587's pink pupil a* 15-17 at hue -20 to 30°; the warmest brown
 * iris (sample5@727, a warm photo) a* 15-18 at hue 36-55°. The excess red, a* - 0.6 max(b*, 0), is 10-16
 * on the first two and at most 8.3 on every brown, hazel, blue or grey iris of the sixteen faces. An eye is
 * red when such red fills a quarter of its pupil or more: 0.39-0.51 on the three red eyes of the test
 * portraits, at most 0.03 on the 29 others. Its pupil is then darkened and given the light's cast (as the
 * white of the eye shows it), its glint kept, and its red rim taken in (a looser measure, within 1.5 iris
 * radii). An eye under a pink or purple light is not red: the sure red's middle is looked for inside the
 * iris (the white beside it is pink too) and purple hues do not count.
 */
import type { Canvas } from "./blend.ts";
import { hueDegrees, labToLinear, linearToSrgb, srgbToLab } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { EYE_L, EYE_R, IRIS_L, IRIS_R } from "./landmarks.ts";
import { ramp } from "./ramps.ts";
import { createMask, dist, fillPolygon, type Point } from "./masks.ts";

/**
 * A flash's red, as excess red (a* - 0.6 max(b*, 0)): where a pixel starts to count for the test whether
 * the eye is red at all, and where it fully counts...
 */
const SURE_FROM = 9, SURE_TO = 14;
/** ...and, once it is, where a pixel starts to be corrected and is corrected whole (the red pupil's rim). */
const FIX_FROM = 1, FIX_TO = 7;
/** Hues (degrees) from which a pixel can be a flash's red, and at which it fully can (purple and blue cannot). */
const HUE_FROM = -35, HUE_TO = -20;
/**
 * The sure red's middle is looked for within this share of the iris's radius (inside the iris: the white of
 * the eye beside it is not the pupil).
 */
const SEARCH = 0.7;
/** The white of the eye: its pixels this many iris radii or more from the iris's centre, this light or more. */
const WHITE_FROM = 1.4, WHITE_MIN_L = 40;
/** The pupil: within this share of the iris's radius. */
const PUPIL = 0.6;
/**
 * The mesh's lid lines lie a pixel or two inside the opening on a small eye (the red pupil's rim under the
 * lid was left): the opening is widened by this share of the iris's radius.
 */
const OPENING_MARGIN = 0.35;
/** A flash's red glows: the lightness from which a red pixel counts as one, and fully counts. */
const GLOW_FROM = 28, GLOW_TO = 40;
/**
 * An eye is red when sure red weighs at least this share of its pupil's visible pixels: a flash's red
 * fills the pupil; a warm iris's flecks, a pink lid's margin or a reflection weigh less.
 */
const MIN_SHARE = 0.25;
/** A pupil with fewer visible pixels than this (a closed or turned-away eye) is left as it is. */
const MIN_PUPIL = 4;
/** Within this share of the iris's radius a red eye is corrected whole; beyond, less, to none at REACH. */
const CORE = 1.1, REACH = 1.5;
/**
 * The share of a red pupil's lightness kept (a flash's red is 40-80 L*; a pupil is dark); a glint from
 * HIGHLIGHT_FROM L* up keeps more of it, and from HIGHLIGHT_TO all.
 */
const DARKEN = 0.45, HIGHLIGHT_FROM = 55, HIGHLIGHT_TO = 72;
/** The largest chroma of the light's cast a corrected pupil takes. */
const CAST = 6;

/** The irises' centres (each followed by four points on its rim) and the eyes' openings. */
const IRISES = [IRIS_R, IRIS_L], OPENINGS = [EYE_R, EYE_L];

/**
 * Darkens and neutralises a flash's red in the pupils of the face `g`, in place. Returns the number of eyes
 * corrected (0 on a photo without red eyes: nothing is touched then).
 */
export function correctRedEyes(img: Canvas, g: FaceGeometry): number {
  let corrected = 0;
  for (const centre of IRISES) {
    const c = g.pts[centre];
    if (!c || !g.pts[centre + 4]) continue;
    const radius = [1, 2, 3, 4].reduce((s, k) => s + dist(c, g.pts[centre + k]), 0) / 4;
    // An iris under 1.5 px shows no pupil worth correcting (and its rim points are noise).
    if (!(radius >= 1.5)) continue;
    // The opening around this iris (the mesh's iris numbering and its eyes' sides do not follow one
    // convention: the nearer outline's middle is this iris's eye).
    const eye = eyePixels(img, c, radius, widened(nearestOpening(g, c), OPENING_MARGIN * radius));
    if (!eye || !(eye.pupil >= MIN_PUPIL) || eye.sure < MIN_SHARE * eye.pupil) continue;
    const { x0, y0, w, fix } = eye;
    // The pupil takes the light's cast as the white of the eye shows it, at most CAST in chroma (the white's
    // measure may hold a lid's skin).
    const chroma = Math.hypot(eye.white[0], eye.white[1]), k = chroma > CAST ? CAST / chroma : 1;
    const white = [eye.white[0] * k, eye.white[1] * k];
    for (let q = 0; q < fix.length; q++) {
      const v = fix[q];
      if (v <= 0) continue;
      const i = ((y0 + Math.floor(q / w)) * img.width + x0 + (q % w)) * 3;
      const [L, a, b] = srgbToLab(img.data[i], img.data[i + 1], img.data[i + 2]);
      const lit = ramp(L, HIGHLIGHT_FROM, HIGHLIGHT_TO);
      const rgb = labToLinear(
        L * (1 - v * (1 - DARKEN) * (1 - lit)),
        a + v * (white[0] - a),
        b + v * (white[1] - b),
      );
      for (let ch = 0; ch < 3; ch++) img.data[i + ch] = linearToSrgb(Math.max(0, rgb[ch]));
    }
    corrected++;
  }
  return corrected;
}

/** The outline `o` moved `by` pixels outward from its middle. */
function widened(o: Point[], by: number): Point[] {
  const m = middle(o);
  return o.map((p) => {
    const d = dist(p, m) || 1;
    return [p[0] + ((p[0] - m[0]) / d) * by, p[1] + ((p[1] - m[1]) / d) * by];
  });
}

/** The mean of the outline's points. */
function middle(o: Point[]): Point {
  return [o.reduce((s, p) => s + p[0], 0) / o.length, o.reduce((s, p) => s + p[1], 0) / o.length];
}

/** The eye opening (its outline's points) whose middle lies nearest `c`. */
function nearestOpening(g: FaceGeometry, c: Point): Point[] {
  const outlines = OPENINGS.map((o) => o.map((i) => g.pts[i]));
  return dist(middle(outlines[0]), c) <= dist(middle(outlines[1]), c) ? outlines[0] : outlines[1];
}

/**
 * The iris at `c` (radius `radius`) inside the eye's opening (`outline`), on the canvas's rectangle from
 * (x0, y0), w wide: each pixel's correction should the eye be red (`fix`), the pupil's visible pixels
 * (`pupil`, coverage summed), the sure red among them (`sure`) and the white of the eye's a* and b*
 * (`white`). The pupil is found where the sure red is (its weighted middle within SEARCH radii of `c`): the
 * mesh's iris centre may be a few pixels off it. Undefined when the rectangle is off the canvas.
 */
function eyePixels(
  img: Canvas,
  c: Point,
  radius: number,
  outline: Point[],
):
  | {
    x0: number;
    y0: number;
    w: number;
    fix: Float32Array;
    pupil: number;
    sure: number;
    white: [number, number];
  }
  | undefined {
  // The rectangle holds a pupil found up to REACH from `c` and its correction's reach around it.
  const span = 2 * REACH * radius;
  const x0 = Math.max(0, Math.floor(c[0] - span)), y0 = Math.max(0, Math.floor(c[1] - span));
  const x1 = Math.min(img.width, Math.ceil(c[0] + span) + 1);
  const y1 = Math.min(img.height, Math.ceil(c[1] + span) + 1);
  const w = x1 - x0, h = y1 - y0;
  if (w <= 0 || h <= 0) return undefined;
  const opening = createMask({ x: x0, y: y0, w, h });
  fillPolygon(opening, outline);
  // The white of the eye: its colour is the photo's light on something neutral, and the corrected pupil
  // takes its cast (a grey pupil beside a warm-lit white reads as blue).
  let wa = 0, wb = 0, wn = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const inside = opening.data[y * w + x];
      if (inside < 1 || Math.hypot(x0 + x + 0.5 - c[0], y0 + y + 0.5 - c[1]) < WHITE_FROM * radius) continue;
      const i = ((y0 + y) * img.width + x0 + x) * 3;
      const [L, a, b] = srgbToLab(img.data[i], img.data[i + 1], img.data[i + 2]);
      if (L < WHITE_MIN_L) continue;
      wa += a;
      wb += b;
      wn++;
    }
  }
  const white: [number, number] = wn ? [wa / wn, wb / wn] : [0, 0];
  // Per pixel: how surely it is a flash's red, and how much of one (see SURE_*, FIX_*).
  const sureRed = new Float32Array(w * h), fix = new Float32Array(w * h);
  let sx = 0, sy = 0, st = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const inside = opening.data[y * w + x];
      if (inside <= 0) continue;
      const i = ((y0 + y) * img.width + x0 + x) * 3;
      const [L, a, b] = srgbToLab(img.data[i], img.data[i + 1], img.data[i + 2]);
      const excess = a - 0.6 * Math.max(0, b);
      const hue = ramp(hueDegrees(a, b), HUE_FROM, HUE_TO);
      const q = y * w + x;
      sureRed[q] = inside * hue * ramp(excess, SURE_FROM, SURE_TO) * ramp(L, GLOW_FROM, GLOW_TO);
      fix[q] = inside * hue * ramp(excess, FIX_FROM, FIX_TO);
      if (Math.hypot(x0 + x + 0.5 - c[0], y0 + y + 0.5 - c[1]) < SEARCH * radius) {
        sx += sureRed[q] * (x0 + x + 0.5);
        sy += sureRed[q] * (y0 + y + 0.5);
        st += sureRed[q];
      }
    }
  }
  const p: Point = st > 0 ? [sx / st, sy / st] : c;
  let pupil = 0, sure = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const q = y * w + x, d = Math.hypot(x0 + x + 0.5 - p[0], y0 + y + 0.5 - p[1]) / radius;
      if (d < PUPIL) {
        pupil += opening.data[q];
        sure += sureRed[q];
      }
      fix[q] *= d <= CORE ? 1 : d >= REACH ? 0 : (REACH - d) / (REACH - CORE);
    }
  }
  return { x0, y0, w, fix, pupil, sure, white };
}
