/**
 * The hair recolour's colour model: per cell of a table over RGB (see CN), how like the hair, how surely hair,
 * how like the clothes below the chin and how clearly skin a colour is, from the hair's, the skin's and the
 * clothes' colour clusters (sampled on the photo by hair-colour-samples.ts, clustered by analyseHair in
 * hair-recolor.ts).
 */
import type { Canvas } from "./blend.ts";
import { hueGap, type Lab, linearToLabInto, SRGB_TO_LINEAR, wrapDegrees } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { type AxisStats, clothSamples, CN, palette, sigmoid } from "./hair-colour-samples.ts";
import type { PersonMask } from "./person-mask.ts";
import { ramp } from "./ramps.ts";

/** Clothing colour clusters below the chin, each with its spread and whether it looks like the hair. */
export interface ClothClass {
  mean: Lab;
  s: number;
  likeHair: boolean;
}

export function clothModel(img: Canvas, g: FaceGeometry, person: PersonMask, hair: AxisStats): ClothClass[] {
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

/**
 * The colour model over RGB (CN^3 cells, each evaluated at its centre colour
 * the first time a pixel needs it: a head holds a few thousand distinct cells).
 * Four values per cell:
 * - hair-likeness: nearer the hair than the skin, and not far from a hair colour;
 * - sureness: clearly nearer the hair (what counts inside the face oval, where
 *   shaded skin at the face's edge is nearly as dark as hair);
 * - clothing-likeness below the chin. A garment the colour of the hair (black
 *   hair, black top) cannot be told apart by colour: that colour fades out of
 *   the mask below the chin instead of dyeing the clothes. A colour of none of
 *   the hair's hues counts as clothes too (see offHairHue);
 * - skin-likeness: clearly nearer the skin than the hair.
 */
export class ColourModel {
  /** Per cell: hair-likeness, sureness, clothing-likeness, skin-likeness (NaN until filled). */
  readonly cells = new Float32Array(CN * CN * CN * 4).fill(NaN);
  /** Per cell: the L* of its centre colour (filled with the cell). */
  readonly cellL = new Float32Array(CN * CN * CN);
  /** Per cell: likeness to a pale strand (see fill; filled with the cell). */
  readonly pale = new Float32Array(CN * CN * CN);
  /**
   * Per cell: likeness to a grey pale strand, up to GREY_REACH L* lighter than `pale` allows (see GREY_FROM; filled
   * with the cell): 0 for colours as chromatic as the skin.
   */
  readonly greyPale = new Float32Array(CN * CN * CN);
  readonly #lab = new Float64Array(3);
  /** Bytes its tables hold. */
  get bytes(): number {
    return this.cells.byteLength + this.cellL.byteLength + this.pale.byteLength + this.greyPale.byteLength;
  }
  /** `skins`: the skin sampled on the face first, then skin in other light (see litSkin). */
  /**
   * `byHue`: light hair found by place (see lightByPlace): a colour yellower than the skin (`skin`, sampled on the
   * face) counts as hair by its hue too (see fill).
   */
  constructor(
    readonly hair: AxisStats[],
    readonly skins: AxisStats[],
    readonly cloth: ClothClass[],
    readonly byHue?: Lab,
  ) {
    const hueOf = (s: AxisStats) => Math.atan2(s.mean[2], s.mean[1]);
    const skinHues = skins.map(hueOf);
    const colouredLight = skinHues.some((a) => skinHues.some((b) => hueGap(a, b) > COLOURED_LIGHT_SPREAD));
    const greyHair = hair.some((h) => Math.hypot(h.mean[1], h.mean[2]) < OFF_HUE_CHROMA);
    this.#hairHues = colouredLight || greyHair ? undefined : hair.map(hueOf);
  }
  /**
   * The hair classes' hues (radians) offHairHue compares with; undefined where it rules nothing out: a hair
   * class near grey (its hue is noise) or a coloured light, which moves hair across hues as skin (see
   * COLOURED_LIGHT_SPREAD).
   */
  readonly #hairHues: number[] | undefined;

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
    const chroma = Math.hypot(lab[1], lab[2]), hue = Math.atan2(lab[2], lab[1]);
    // (At least 1: a grey's share stays a number on a photo with grey skin.)
    const skinChroma = Math.max(1, Math.hypot(this.skins[0].mean[1], this.skins[0].mean[2]));
    const grey = Math.max(
      0,
      Math.min(1, (GREY_FROM * skinChroma - chroma) / ((GREY_FROM - GREY_FULL) * skinChroma)),
    );
    for (const k of this.cloth) {
      if (!k.likeHair && otherHue(chroma, hue, k.mean)) continue;
      const dc = Math.hypot(lab[0] - k.mean[0], lab[1] - k.mean[1], lab[2] - k.mean[2]) / k.s;
      keep *= 1 - (k.likeHair ? sigmoid((1.5 - dc) * 3) : sigmoid((dh - dc) * 1.6));
    }
    // A colour of none of the hair's hues is clothes below the chin too, sampled there or not (see offHairHue).
    m[c + 2] = Math.max(1 - keep, this.#offHairHue(chroma, hue));
    // Clearly skin: what the feather must not spread hair onto.
    m[c + 3] = sigmoid((dh - ds - 1) * 2.5);
    if (this.byHue) {
      // Light hair as light as the skin: its hue (blonde 20-30 degrees yellower than the skin; skin in any light,
      // shaded or lit, within about 10-15) where its lightness and tight clusters leave the colour in doubt.
      const sk = this.byHue;
      const dHue = (Math.atan2(lab[2], lab[1]) - Math.atan2(sk[2], sk[1])) * 180 / Math.PI;
      const yellower = wrapDegrees(dHue), skinC = Math.hypot(sk[1], sk[2]);
      const light = ramp(Math.hypot(lab[1], lab[2]), 0.4 * skinC, 0.55 * skinC) *
        ramp(lab[0], sk[0] - 15, sk[0] - 5);
      const like = ramp(yellower, HUE_HAIR - 4, HUE_HAIR + 2) * light;
      m[c] = Math.max(m[c], like);
      m[c + 1] = Math.max(m[c + 1], ramp(yellower, HUE_HAIR, HUE_HAIR + 6) * light);
      m[c + 3] *= 1 - like;
    }
    // A pale strand: lighter than a hair colour, with its a*b* (grey, sheen,
    // scalp seen through the parting), not the skin's. Only where it fills a
    // gap beside hair (see reachPale): a grey wall or top is as pale.
    let pa = Infinity;
    for (const h of this.hair) {
      if (lab[0] < h.mean[0] - 4) continue;
      const da = (lab[1] - h.mean[1]) / Math.max(3, h.sd[1]),
        db = (lab[2] - h.mean[2]) / Math.max(3, h.sd[2]);
      pa = Math.min(pa, Math.sqrt((da * da + db * db) / 2));
    }
    let sa = Infinity;
    for (const s of this.skins) {
      const da = (lab[1] - s.mean[1]) / Math.max(5, s.sd[1]),
        db = (lab[2] - s.mean[2]) / Math.max(5, s.sd[2]);
      sa = Math.min(sa, Math.sqrt((da * da + db * db) / 2));
    }
    // Lighter strands of the same hair carry more chroma in its hue (olive
    // lights in olive-brown hair: L* 30-38 at chroma 20 on hair of L* 20,
    // chroma 12). What tells them from skin is the hue: skin in any light keeps
    // its hue within about 10 degrees (see litSkin), shaded skin included,
    // while these strands lie 20 degrees or more from it, toward the hair's.
    let strand = 0, greyStrand = 0;
    if (pa !== Infinity) {
      const off = (m: Lab) => hueGap(hue, Math.atan2(m[2], m[1]));
      let hh = Infinity, hs = Infinity, lightest = 0, nearest = this.hair[0];
      for (const h of this.hair) {
        if (off(h.mean) < hh) hh = off(h.mean), nearest = h;
        lightest = Math.max(lightest, h.mean[0]);
      }
      // The hue between the nearest hair colour's and the skin's: a strand lies
      // at the hair's or beyond it, a hair-and-skin mix at the face edge between.
      let apart = Infinity;
      const hairHue = Math.atan2(nearest.mean[2], nearest.mean[1]);
      for (const s of this.skins) {
        hs = Math.min(hs, off(s.mean));
        apart = Math.min(apart, hueGap(hairHue, Math.atan2(s.mean[2], s.mean[1])));
      }
      // A grey's hue is noise: a grey is a strand by its a*b* only (below).
      const byHue = ramp(hs, 10, 16) * ramp(hs, apart - 10, apart - 4) * ramp(hh, 35, 25) *
        ramp(chroma, 4, 8);
      // Sheen, grey and olive strands and a parting lie within 30 L* of the
      // lightest hair colour; a temple's skin paled by the light (as grey as
      // the hair in a*b*) lies beyond.
      const like = Math.max(sigmoid((sa - pa - 0.5) * 2.5) * Math.max(0, Math.min(1, 2.5 - pa)), byHue);
      strand = ramp(lab[0], lightest + 35, lightest + 25) * like;
      // A grey far less chromatic than the skin is no skin at a lightness the skin's own light gives (see
      // GREY_FROM): lit grey hair at the temple lies up to GREY_REACH L* further, short of a blown-out highlight.
      const skinL = this.skins[0].mean[0];
      greyStrand = grey * like * ramp(
        lab[0],
        Math.max(lightest + 35, Math.min(lightest + 35 + GREY_REACH, skinL + GREY_ABOVE_SKIN)),
        Math.max(lightest + 25, Math.min(lightest + 25 + GREY_REACH, skinL + GREY_ABOVE_SKIN - 8)),
      );
    }
    this.pale[cell] = strand;
    this.greyPale[cell] = greyStrand;
  }

  /**
   * How surely a colour is of none of the hair's hues, 0 to 1: about OFF_HUE_CHROMA in chroma or more, and
   * OFF_HUE_FROM to OFF_HUE_FULL degrees or more from every hair class's hue. The colour model weighs a colour's
   * distance to the hair per Lab axis, averaged over the three, so a dark colour near the hair's L* and a* passes
   * for hair however far off in b*: sample5@1319's neighbour's navy top (L* 14, chroma 8, hue -30 to -60
   * degrees) lay 2-3 spreads from her dark brown hair (hue 45) in b* alone, and its lighter folds were dyed gold
   * or copper beside her lengths. Hair in one light keeps its hue within about 15 degrees (her three classes:
   * 45-58). It rules nothing out when a hair class is near grey or in a coloured light (see hairHues).
   */
  #offHairHue(chroma: number, hue: number): number {
    if (!this.#hairHues) return 0;
    let gap = Infinity;
    for (const h of this.#hairHues) gap = Math.min(gap, hueGap(hue, h));
    return ramp(gap, OFF_HUE_FROM, OFF_HUE_FULL) * ramp(chroma, OFF_HUE_CHROMA - 2, OFF_HUE_CHROMA + 1);
  }
}

/**
 * See ColourModel's offHairHue: degrees from every hair class's hue, and the chroma a hue means something from
 * (the rule fades in from 2 under it to 1 over it; a hair class under it rules nothing out).
 */
const OFF_HUE_FROM = 50, OFF_HUE_FULL = 70, OFF_HUE_CHROMA = 6;

/**
 * Skin classes more than this many degrees apart in hue mean a coloured light on part of the person (sample3@1372:
 * her cheeks lit blue, hue -28, her skin beside the head in a warm light, 50; the other fifteen frontal faces 8 at
 * most). Her dark hair in the blue light is as blue as sample5@1319's neighbour's navy top; ruled out by its hue,
 * it was left undyed beside her cheek.
 */
const COLOURED_LIGHT_SPREAD = 25;

/**
 * A colour and a clothes class both at least CLOTH_CHROMA in chroma and more than CLOTH_HUE degrees apart in
 * hue are not the same garment's, however near the class's spread puts them: a class the clothes' samples
 * mixed (sample6@1402's green top with its white strap and the skin between: a* spread 13.5) claimed her
 * brown lengths behind the shoulder (hue 77 degrees against the class's 153) as clothes, and they were never
 * dyed.
 */
const CLOTH_CHROMA = 8, CLOTH_HUE = 60;

function otherHue(chroma: number, hue: number, cloth: Lab): boolean {
  return chroma > CLOTH_CHROMA && Math.hypot(cloth[1], cloth[2]) > CLOTH_CHROMA &&
    hueGap(hue, Math.atan2(cloth[2], cloth[1])) > CLOTH_HUE;
}

/**
 * A colour at or under GREY_FULL of the skin's chroma is grey, none over GREY_FROM: skin keeps its chroma in any
 * light short of blowing out (sample5@727: skin L* 67-79 at chroma 21-37, lit grey hair at her temple L* 77 at
 * chroma 6).
 */
const GREY_FROM = 0.4, GREY_FULL = 0.2;
/**
 * A grey pale strand reaches GREY_REACH L* above the other strands' limit (lightest hair + 35), but stops
 * GREY_ABOVE_SKIN above the skin's L*: a blown-out highlight on the forehead (L* 87-93 at chroma 3-6 on sample5@727)
 * is as grey.
 */
const GREY_REACH = 10, GREY_ABOVE_SKIN = 18;

/** Light hair found by place: a colour this many degrees yellower than the skin is hair by its hue (see ColourModel). */
const HUE_HAIR = 18;
