/** Facial-hair recolour: beard and moustache zones, a beard-vs-skin colour model, then the Lab shift. */
import type { Canvas } from "./blend.ts";
import { hexToLab, type Lab } from "./color.ts";
import { litShade, photoExposure } from "./photo-exposure.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { labAt, skinSamples, stats } from "./hair-colour-samples.ts";
import type { HairResult } from "./hair-recolor.ts";
import { applyLabShift } from "./lab-shift.ts";
import { CHIN_ZONE, FACE_OVAL, LIPS_OUTER, MOUSTACHE_ZONE } from "./landmarks.ts";
import { boost, createMask, feather, fillPolygon } from "./masks.ts";
import { personAt, type PersonMask } from "./person-mask.ts";

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
 * the person where a matte exists. The shade is lit at `exposure` (see photoExposure: the renderer measures it
 * on the photo before anything is painted).
 */
export function recolorFacialHair(
  img: Canvas,
  g: FaceGeometry,
  hex: string,
  person?: PersonMask,
  exposure = photoExposure(img, g),
  cast?: readonly number[],
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
  // The shade as this photo's light shows it (and in the light `cast`: see recolorHair).
  const target = litShade(hexToLab(hex), exposure, cast);
  applyLabShift(img, region, 1, x0, y0, x1, y1, [sL / sw, sA / sw, sB / sw], target, 0.85);
  return { applied: true, confidence };
}
