/**
 * Hair recolour. The hair mask is person matte x a head prior x (not the face
 * below the brows) x a hair-vs-skin colour model in Lab (skin sampled at mesh
 * points, hair sampled above the forehead). When hair and skin colours overlap
 * (blonde hair in mixed light) the model has no confidence and the recolour is
 * skipped and reported, rather than painting skin.
 */
import type { Canvas } from "./blend.ts";
import { hexToLab, type Lab, linearToLabInto, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { clothSamples, hairSamples, palette, skinSamples, stats } from "./hair-colour-samples.ts";
import { applyLabShift } from "./lab-shift.ts";
import { FACE_CORE_WIDTH, FACE_STEP, lowerFace } from "./lower-face-mask.ts";
import { feather, type Mask, sampleGrid } from "./masks.ts";
import { personAt, type PersonMask } from "./person-mask.ts";

export interface HairResult {
  applied: boolean;
  /** Why not, for the result notes. */
  reason?: string;
  confidence: number;
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
      linearToLabInto(lab, SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]);
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
