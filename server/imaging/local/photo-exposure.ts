/**
 * How much light a photo got, against a well-exposed one: a dye's or a lipstick's shade is a colour in a well-lit
 * photo, and painted at that lightness on a dim one it glows (Auburn on a dim, warm photo came out lighter than
 * the face it framed, and pink against the scene's dark amber; pink lipstick 12-27 L* lighter than the skin).
 * The hair and beard dyes and a light eye shadow's soft light (eye-makeup.ts) are lit by photoExposure, lipstick by
 * photoLight in lips.ts (from the same measures).
 */
import type { Canvas } from "./blend.ts";
import { type Lab, labToLinear, linearToLab, luminance, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { skinMeanLinear } from "./skin-tone.ts";

/** Linear luminance a well-lit, mid-toned face's skin has (lipstick is lit relative to it too: see lips.ts). */
const REFERENCE_SKIN_Y = 0.36;
/**
 * Linear luminance of a well-exposed photo's highlights (its 99.9th percentile): 0.79-1.0 on the well-exposed
 * test portraits, 0.31-0.34 on the two shot in a dim room, 0.07-0.23 on those darkened to a dim, warm light.
 */
const HIGHLIGHT_Y = 0.8;
/** Share of the canvas's pixels whose luminance is measured for the highlights (every HIGHLIGHT_STEP-th). */
const HIGHLIGHT_STEP = 7;
/** The skin's ratio of luminance is softened by this power (half the light reads as 0.66 of it, not 0.5). */
export const SKIN_SOFTEN = 0.6;
/** The least exposure a shade is lit at. */
export const MIN_EXPOSURE = 0.2;

/**
 * What the face's skin says of the exposure: its mean linear colour's luminance (see skinMeanLinear) against
 * REFERENCE_SKIN_Y, softened (SKIN_SOFTEN).
 */
export function skinExposure(skin: readonly number[]): number {
  return (luminance(skin[0], skin[1], skin[2]) / REFERENCE_SKIN_Y) ** SKIN_SOFTEN;
}

/** What the highlights say of the exposure: the canvas's 99.9th percentile of luminance against HIGHLIGHT_Y. */
export function highlightExposure(img: Canvas): number {
  // A histogram of luminance in 1/1024 steps.
  const bins = new Uint32Array(1025), d = img.data, n = img.width * img.height;
  let count = 0;
  for (let k = 0; k < n; k += HIGHLIGHT_STEP, count++) {
    const o = k * 3;
    const y = luminance(SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]);
    bins[Math.round(y * 1024)]++;
  }
  let above = count * 0.001, bin = 1024;
  while (bin > 0 && above > bins[bin]) above -= bins[bin--];
  return bin / 1024 / HIGHLIGHT_Y;
}

/**
 * The photo's exposure for a dye, MIN_EXPOSURE-1 (1: well exposed; a dye is never lit brighter): the larger of
 * what the face's skin says (skinExposure) and what the highlights say (highlightExposure). Either alone
 * misleads: deep skin in good light is as dark as pale skin in a dim room, and a portrait against a dark
 * backdrop in dark clothes has no highlights; a dim photo has neither bright skin nor bright highlights.
 */
export function photoExposure(img: Canvas, g: FaceGeometry): number {
  const bySkin = skinExposure(skinMeanLinear(img, g));
  if (bySkin >= 1) return 1;
  return Math.min(1, Math.max(MIN_EXPOSURE, bySkin, highlightExposure(img)));
}

/**
 * `shade` (Lab, as in a well-lit photo) as a photo exposed at `exposure` shows it: its luminance scaled. Under
 * `cast` (per-channel gains in linear light: see relightCast in scene.ts) also tinted by its light, its
 * luminance kept: a cast moves the shade's hue, never its L* (which decides whether dark hair would need
 * bleaching, and which of the hair's masks a shade takes).
 */
export function litShade(shade: Lab, exposure: number, cast?: readonly number[]): Lab {
  if (exposure >= 1 && !cast) return shade;
  const [r, g, b] = labToLinear(shade[0], shade[1], shade[2]);
  const [cr, cg, cb] = cast ?? [1, 1, 1];
  const keep = cast ? luminance(r, g, b) / Math.max(1e-6, luminance(r * cr, g * cg, b * cb)) : 1;
  const e = Math.min(1, exposure) * keep;
  return linearToLab(r * e * cr, g * e * cg, b * e * cb);
}
