/**
 * Hair recolour, the dye's reach beyond the colour model (see hair-recolor.ts): lighter lengths grown
 * from the dyed hair (reachLengths), never into the body's skin (BodySkin, sampled on the face and the
 * neck) nor into smooth cloth of the hair's colour below the chin (dropSmoothCloth), the soft
 * hairline over the forehead, dyed by each pixel's share of hair (softHairline), and highlights in a
 * coloured light enclosed by dyed hair (fillEnclosed).
 */
import type { Canvas } from "./blend.ts";
import {
  hueDegrees,
  hueGap,
  type Lab,
  lightnessOf,
  linearToLabInto,
  luminance,
  SRGB_TO_LINEAR,
} from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { SKIN_SAMPLES } from "./landmarks.ts";
import { type AxisStats, cellOf, CN, OPACITY, sigmoid } from "./hair-colour-samples.ts";
import type { ColourModel } from "./hair-colour-model.ts";
import { boxOver, type Mask, maxNear } from "./masks.ts";
import { personAt, type PersonMask } from "./person-mask.ts";
import { atCanvasScale } from "./output-scale.ts";

/** Half the width of the soft hairline's zone over the forehead, in face widths (see softHairline). */
export const SOFT_HALF_WIDTH = 0.6;
/** Face widths over which the soft hairline's zone fades in at its sides (about SOFT_HALF_WIDTH) and bottom. */
export const SOFT_FEATHER = 0.1;
/** How far below and beside dyed hair the soft hairline reaches, in face widths. */
export const SOFT_REACH = 0.03;
/** The soft hairline is traced only where the skin is this many L* lighter than the hair. */
export const SOFT_CONTRAST = 25;
/** L* under the skin's that still counts as skin (forehead shading), see hairShare. */
const SOFT_DEAD = 2;
/**
 * A pixel's share of hair is dyed this much more: the dye moves the hair's
 * share of a blended pixel from the hair's old colour to the new one, a
 * shift the recolour of the whole pixel (toward the shade at the pixel's own
 * lightness) makes about 1/1.3 as large per unit of strength.
 */
const SOFT_GAIN = 1.3;
/** Recolour strengths at or under this are dropped when painted (see paintRow in lab-shift.ts). */
const PAINT_FRINGE = 0.1;

/** The painted strength (opacity included) of the soft hairline for a pixel's hair share at hair strength v. */
export function softStrength(share: number, v: number): number {
  return share > 0 ? PAINT_FRINGE + (1 - PAINT_FRINGE) * Math.min(1, SOFT_GAIN * share) * v * OPACITY : 0;
}

/**
 * A pixel's share of hair where it lies between the hair and the skin in
 * lightness (a soft hairline: fine hairs over skin, or the photo's blur).
 */
export function hairShare(r: number, g: number, b: number, skinL: number, hairL: number): number {
  return hairShareAt(
    lightnessOf(luminance(SRGB_TO_LINEAR[r], SRGB_TO_LINEAR[g], SRGB_TO_LINEAR[b])),
    skinL,
    hairL,
  );
}

/** hairShare of a pixel of lightness L*. */
export function hairShareAt(L: number, skinL: number, hairL: number): number {
  return Math.max(0, Math.min(1, (skinL - SOFT_DEAD - L) / (skinL - SOFT_DEAD - hairL)));
}

/**
 * The soft hairline over the forehead: the colour model, asked whether each
 * pixel is hair or skin, stopped the dye where the hairline's blur (a band
 * of pixels between the hair's colour and the skin's, 10-20 px wide on an
 * enlarged photo) turned skin-like, and that band kept the hair's old colour:
 * grey-green under auburn hair. Nodes within r of dyed hair, in `room` (over
 * the forehead), take the dye at the hair's strength near them times their
 * share of hair (see hairShare); the plane returned holds that strength, each
 * pixel's own share deciding at the edge (see refine).
 */
export function softHairline(
  m: Mask,
  room: Float32Array,
  img: Canvas,
  x0: number,
  y0: number,
  step: number,
  skinL: number,
  hairL: number,
  r: number,
): Float32Array {
  const { w, h, data } = m, d = img.data, W = img.width;
  const out = new Float32Array(w * h);
  // Only about the room (the forehead: see maxNear).
  const box = boxOver(room, w, h, 0);
  if (!box) return out;
  const { near: nearBox, wx0, wy0, ww } = maxNear(data, w, h, r, box);
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0, k = y * w + x; x <= box.x1; x++, k++) {
      const near = nearBox[(y - wy0) * ww + x - wx0];
      if (room[k] <= 0 || near <= 0.3) continue;
      const o = ((y0 + y * step) * W + x0 + x * step) * 3;
      const v = Math.min(near, room[k]);
      out[k] = v;
      // In mask units (the paint scales the mask by the opacity: see dyeStrengths).
      const add = softStrength(hairShare(d[o], d[o + 1], d[o + 2], skinL, hairL), v) / OPACITY;
      if (add > data[k]) data[k] = add;
    }
  }
  return out;
}

/**
 * Strand texture a length's node needs without the hair's own colour (see
 * reachLengths): the larger eigenvalue of the luma structure tensor, in sRGB
 * levels, at least; at least twice the neck skin's too. Lengths on the demo
 * portraits measure 8-20, skin 2-8.
 */
const LENGTH_TEXTURE = 8;
/**
 * Person mask (x 1.25) a node needs to be a length: not the person's soft outline. Its room (person x head
 * prior) must be above LENGTH_ROOM: the lengths fade out with the prior (a cut where it fell under 0.95
 * showed as a line across long lengths).
 */
export const LENGTH_PERSON = 0.95, LENGTH_ROOM = 0.05;
/**
 * Under dark hair, the skin's own texture the lengths are judged against (see reachLengths) is the neck's, but
 * at most this many times the face's. The neck's box takes what lies below the chin in the skin's colours: a
 * collar's edge, strands, a necklace. It read 2.2 times the face's on sample6@587 (her locks over the chest,
 * texture 10-11, then fell under the bar of twice the neck's, 14: dark undyed blocks in dyed locks) and 9.6
 * times on sample5@1319; 0.3-1.4 on the other dark heads. Light hair keeps the neck's: its lengths continue
 * into mid-tone clothes whose pattern is as textured (with the face's bar, 11.7 for 16.8, the growth dyed
 * the browns of sample4@908's patterned top beside her chest: 46,000 px), and its smooth lit strands are
 * continued by colour instead (see continueLengthColour).
 */
const NECK_TEXTURE_FACE = 1.5;
/** L* under the body's skin at which a length needs no strand texture (see reachLengths). */
const LENGTH_DARKER = 15;
/**
 * Shaded skin, by its colour: in a skin's hue (within LENGTH_DARK_SKIN_HUE degrees of a class of the body's
 * skin) with more chroma than the hair's colours and the body's skin have (their most, plus
 * LENGTH_DARK_CHROMA). From LENGTH_SKIN_DEPTH face heights below the chin down, a node of that colour is no
 * length that grows without strand texture (far darker than the skin, see LENGTH_DARKER): it is as dark and as
 * smooth as such a length, and there it is a limb. On sample2@805 (ash hair and grey-lit skin: chroma 1-12,
 * skin hues 58-68 degrees) the growth ran down her neighbour's shaded arm (L* 35-39, chroma 21-24, hue 43-47)
 * and the gap beside it to the frame's bottom, and dyed them in every shade. Above that depth her lengths over
 * the neighbour's shoulder are of the same colour, and are hair: ruled out there too, a third of them was left
 * undyed (the arm stays out from 0.3 to 0.7 face heights). Chroma alone is no tell: sample2@1370's lengths lit
 * purple beside a cushion are as chromatic (bounded so, they were left purple in bays along her dyed lengths).
 */
const LENGTH_DARK_CHROMA = 8, LENGTH_DARK_SKIN_HUE = 25;
/** Face heights below the chin from which shaded skin's colour needs strand texture (see LENGTH_DARK_CHROMA). */
export const LENGTH_SKIN_DEPTH = 0.5;
/** Colour difference (ΔE) from the colour a length has been continuing that still continues it. */
const LENGTH_STEP = 10;
/** Degrees beyond the hair's and the skin's hues that lengths may lie (see reachLengths). */
const LENGTH_HUE = 25;
/**
 * Striped lengths (see reachLengths): the share of a grown patch's nodes and border that are smooth nodes
 * continuing its colour at which the patch is left undyed, the span under it over which it fades, and the
 * L* of the hair's darkest colour from which the rule applies. At 1080x1920, sample1@1438's bands
 * measured 0.19-0.36 (most 0.2-0.27) before her lengths' own colour was continued (see
 * continueLengthColour: they are now one patch, dyed whole); the largest patches of other light or brown heads
 * 0.04-0.24 (sample3's and sample4's 0.23-0.24, partly faded; on them the rule still leaves 3,000-39,000 px
 * undyed); the rule does not apply to the bench portrait, sample6@1402 and sample6@587 (near-black hair,
 * patches 0.04-0.1 and some small ones up to 0.3).
 */
const STRIPE_SHARE = 0.26, STRIPE_FADE = 0.08, STRIPE_HAIR_L = 30;
/** How much of each node's colour the continued colour takes (see reachLengths). */
const LENGTH_FOLLOW = 0.5;
/**
 * Lengths of one colour (see continueLengthColour): the most the grown lengths' colours may spread (a robust
 * standard deviation per Lab axis: L*, a*, b*) to count as one colour; how far from it (the axis distance, see
 * lengthColourDistance) a node still is that colour; the least chroma such a node needs; and the least hue
 * angle (degrees) it keeps from every class of the body's skin. At 1080x1920, sample1@1438's lengths spread
 * 5.7 / 3.0 / 6.4 (light golden lengths beside shaded ones); sample5@1045's 7.6 / 3.8 / 6.3, sample3@1005's
 * 5.6 / 3.0 / 5.7; sample4@908's (her patterned top's browns among them) 26.4 / 3.3 / 5.8 and sample3@515's
 * 19.9 / 8.5 / 16.6 do not count. Her lit chest lies 4-6 degrees from sample3@515's face skin, golden
 * lengths 20-25.
 */
const LENGTH_COLOUR_SPREAD: Lab = [10, 6, 8],
  LENGTH_COLOUR_REACH = 2,
  LENGTH_COLOUR_CHROMA = 10,
  LENGTH_SKIN_HUE = 12;

/**
 * A colour no lighter than a skin class's mean with under this share of its chroma (fading in over
 * SKIN_CHROMA_FADE more) is not that class, however near its L*, a* and b* are to the class's spread: skin in
 * shade keeps its chroma (the neck's skin kept on the 16 frontal portraits holds 0.5-1.4 of the face's; see
 * NECK_CHROMA). sample6@587's face skin in the window's light spreads 9 in b*, and the grey lit strands of her
 * near-black lock over her chest (L* 50-60, chroma 3: 0.18 of the class's 17) read as that skin: left grey
 * among dyed strands. Lighter colours keep the class's likeness (skin lit to a shine is paler). At a share of
 * 0.3, a grey strap beside sample2@1370's lengths (chroma 3 against her neutral skin's 7-10) took more of the
 * dye's pink.
 */
const SKIN_CHROMA_SHARE = 0.2, SKIN_CHROMA_FADE = 0.1;

/**
 * Skin of the body, for the lengths (see reachLengths): the face's skin
 * classes and the neck's, and how like them a colour table cell is.
 */
export class BodySkin {
  readonly #cells = new Float32Array(CN * CN * CN).fill(NaN);
  readonly #lab = new Float64Array(3);
  readonly #labs = new Float32Array(CN * CN * CN * 3).fill(NaN);
  readonly classes: AxisStats[];
  /** Each class's hue (radians). */
  readonly #hues: number[];
  /** Bytes its colour tables hold. */
  get bytes(): number {
    return this.#cells.byteLength + this.#labs.byteLength;
  }
  constructor(skins: AxisStats[], readonly neck: AxisStats | undefined) {
    this.classes = neck ? [...skins, neck] : skins;
    this.#hues = this.classes.map((s) => Math.atan2(s.mean[2], s.mean[1]));
  }
  /** Whether hue `hue` (radians) lies within `degrees` of a class's hue. */
  nearHue(hue: number, degrees: number): boolean {
    return this.#hues.some((s) => hueGap(hue, s) < degrees);
  }
  /** Likeness (0..1) of cell `cell` to the body's skin. */
  at(cell: number): number {
    const v = this.#cells[cell];
    return v === v ? v : (this.#cells[cell] = this.of(this.labOf(cell)));
  }
  /** The Lab colour of cell `cell`'s centre (a view, valid until the next call). */
  labOf(cell: number): Float32Array {
    const lab = this.#labs.subarray(cell * 3, cell * 3 + 3);
    if (lab[0] !== lab[0]) {
      const r = cell >> 10, g = (cell >> 5) & 31, b = cell & 31, t = this.#lab;
      linearToLabInto(t, SRGB_TO_LINEAR[r * 8 + 4], SRGB_TO_LINEAR[g * 8 + 4], SRGB_TO_LINEAR[b * 8 + 4]);
      lab[0] = t[0], lab[1] = t[1], lab[2] = t[2];
    }
    return lab;
  }
  /** Likeness (0..1) of a colour to the body's skin. */
  of(lab: ArrayLike<number>): number {
    let best = 0;
    const chroma = Math.hypot(lab[1], lab[2]);
    for (const s of this.classes) {
      // Skin in other light mostly changes L: weigh L half.
      const dL = 0.5 * (lab[0] - s.mean[0]) / Math.max(6, s.sd[0]),
        dA = (lab[1] - s.mean[1]) / Math.max(3, s.sd[1]),
        dB = (lab[2] - s.mean[2]) / Math.max(3, s.sd[2]);
      // Skin in shade keeps some of its chroma (see SKIN_CHROMA_SHARE); skin lit to a shine is lighter and paler.
      const share = chroma / Math.max(1, Math.hypot(s.mean[1], s.mean[2]));
      const chromatic = lab[0] > s.mean[0]
        ? 1
        : Math.max(0, Math.min(1, (share - SKIN_CHROMA_SHARE) / SKIN_CHROMA_FADE));
      best = Math.max(best, chromatic * sigmoid((1.2 - Math.sqrt((dL * dL + dA * dA + dB * dB) / 3)) * 5));
    }
    return best;
  }
}

/**
 * A neck pixel darker than this share of the face skin's L*, with less than NECK_CHROMA of its chroma, or
 * more than NECK_HUE degrees off its hue is not the neck's skin: long dark hair or its shadow fills the box
 * under the chin on many portraits. Counted in, sample1@773's and sample1@334's neck classes were black
 * (L* 1): near-black lengths read as the body's skin and never grew (see reachLengths), and strands in
 * sample6@587's box raised the skin texture the lengths had to beat by 40 %. The necks kept on the 16
 * frontal demo portraits measure 0.6-1.3 of the face's L* and 0.5-1.4 of its chroma.
 */
const NECK_DARKER = 0.5, NECK_CHROMA = 0.4, NECK_HUE = 35;

/**
 * The neck's skin below the chin (a box 0.24 face widths wide), when the
 * person mask holds enough of it, and where it was sampled (x, y pairs):
 * only pixels that could be the face's skin `face` in shade (see NECK_DARKER).
 */
export function neckSkin(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  face: Lab,
): { skin?: AxisStats; points: number[] } {
  const chin = g.pts[152], d = img.data, W = img.width, lab = new Float64Array(3);
  const px: Lab[] = [], points: number[] = [];
  const faceChroma = Math.hypot(face[1], face[2]), faceHue = Math.atan2(face[2], face[1]);
  for (let y = Math.round(chin[1] + 0.1 * g.fh); y < Math.min(img.height, chin[1] + 0.35 * g.fh); y += 3) {
    for (
      let x = Math.max(0, Math.round(chin[0] - 0.12 * g.fw));
      x < Math.min(W, chin[0] + 0.12 * g.fw);
      x += 3
    ) {
      if (personAt(person, x, y) < 0.5) continue;
      const o = (y * W + x) * 3;
      linearToLabInto(lab, SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]);
      const chroma = Math.hypot(lab[1], lab[2]);
      if (lab[0] < NECK_DARKER * face[0] || chroma < NECK_CHROMA * faceChroma) continue;
      if (hueGap(Math.atan2(lab[2], lab[1]), faceHue) > NECK_HUE) continue;
      px.push([lab[0], lab[1], lab[2]]);
      points.push(x, y);
    }
  }
  if (px.length < 40) return { points: [] };
  // Robust: the median and the median absolute deviation (a strand or a necklace in the box).
  const mean = [0, 1, 2].map((c) => px.map((p) => p[c]).sort((a, b) => a - b)[px.length >> 1]) as Lab;
  const sd = [0, 1, 2].map((c) =>
    1.4826 * px.map((p) => Math.abs(p[c] - mean[c])).sort((a, b) => a - b)[px.length >> 1]
  ) as Lab;
  return { skin: { mean, sd } as AxisStats, points };
}

/**
 * Lighter lengths: hair that lightens toward its ends (ombre, sun-lightened or
 * warmer lengths) lies outside the hair colours sampled above the forehead and
 * beside the temples, and was left undyed below dyed hair (a botched dye).
 * From the dyed hair (mask above 0.5), the dye grows through neighbouring nodes
 * in `room` (beside and below the face from just above eye level down) that continue the
 * hair: a colour step under LENGTH_STEP from the node it comes from, strand
 * texture (LENGTH_TEXTURE) or a hair-like colour, and not the body's skin
 * (the face's and the neck's, see BodySkin). Grown nodes take the room hair has
 * there; each pixel at their edge is kept unless it is the body's skin (see
 * refine). From row `clothRow` (the chin) down, a node in the clothes' colours
 * needs strand texture to grow; over the `clothFade` rows above that row such a
 * node takes a falling share of the room. From `skinDepth` rows below the chin,
 * so does a node in shaded skin's colour (see LENGTH_DARK_CHROMA). Returns what
 * was grown, per node.
 */
export function reachLengths(
  m: Mask,
  room: Float32Array,
  img: Canvas,
  x0: number,
  y0: number,
  step: number,
  body: BodySkin,
  colour: ColourModel,
  neckPoints: number[],
  facePoints: number[],
  clothRow: number,
  centre: number,
  clothFade = 0,
  skinDepth = Infinity,
): Lengths {
  const { w, h, data } = m, W = img.width, H = img.height, d = img.data;
  const grown = new Float32Array(w * h);
  let like: Lengths["like"] = () => 0;
  const bodyL = Math.min(...body.classes.map((s) => s.mean[0]));
  // Lengths are no lighter than the lightest skin (lighter hair is the colour model's: blonde) and lie in the
  // hues between the hair's and the skin's (a green top or a blue backdrop beside them do not).
  const maxL = Math.max(...body.classes.map((s) => s.mean[0])) + 2;
  const hues = [...colour.hair, ...body.classes].map((s) => hueDegrees(s.mean[1], s.mean[2]));
  const hueLo = Math.min(...hues) - LENGTH_HUE, hueHi = Math.max(...hues) + LENGTH_HUE;
  const darkChroma =
    Math.max(...[...colour.hair, ...body.classes].map((s) => Math.hypot(s.mean[1], s.mean[2]))) +
    LENGTH_DARK_CHROMA;
  const labs = new Float32Array(w * h * 3).fill(NaN), lab = new Float64Array(3);
  // Shaded skin by its colour (see LENGTH_DARK_CHROMA): a skin's hue, more chroma than hair and skin have.
  const shadedSkin = (b: number) =>
    Math.hypot(labs[b + 1], labs[b + 2]) > darkChroma &&
    body.nearHue(Math.atan2(labs[b + 2], labs[b + 1]), LENGTH_DARK_SKIN_HUE);
  // A node's colour: the mean over the 8x8 pixels about it (every other one), in Lab: the strands' light
  // and dark averaged.
  const labAt = (k: number) => {
    if (labs[k * 3] === labs[k * 3]) return k * 3;
    const x = Math.min(W - 4, Math.max(4, x0 + (k % w) * step)),
      y = Math.min(H - 4, Math.max(4, y0 + Math.floor(k / w) * step));
    let r = 0, gg = 0, b = 0;
    for (let dy = -4; dy < 4; dy += 2) {
      for (let o = ((y + dy) * W + x - 4) * 3, e = o + 24; o < e; o += 6) {
        r += SRGB_TO_LINEAR[d[o]], gg += SRGB_TO_LINEAR[d[o + 1]], b += SRGB_TO_LINEAR[d[o + 2]];
      }
    }
    linearToLabInto(lab, r / 16, gg / 16, b / 16);
    labs[k * 3] = lab[0], labs[k * 3 + 1] = lab[1], labs[k * 3 + 2] = lab[2];
    return k * 3;
  };
  // Per node, once (a node is a candidate from each of its neighbours): its texture and whether it is not
  // a length by its colour alone (the body's skin, lighter than any skin, or off the hues).
  const tex = new Float32Array(w * h).fill(-1), ruledOut = new Int8Array(w * h).fill(-1);
  const isRuledOut = (n: number, b: number) => {
    if (ruledOut[n] < 0) {
      const hue = hueDegrees(labs[b + 1], labs[b + 2]);
      ruledOut[n] = body.of(labs.subarray(b, b + 3)) > 0.5 || labs[b] > maxL ||
          (Math.hypot(labs[b + 1], labs[b + 2]) > 6 && (hue < hueLo || hue > hueHi))
        ? 1
        : 0;
    }
    return ruledOut[n] === 1;
  };
  const texture = (k: number) =>
    tex[k] >= 0 ? tex[k] : (tex[k] = textureAt(x0 + (k % w) * step, y0 + Math.floor(k / w) * step));
  // On the preview (a canvas under three quarters of the output's width: see atCanvasScale) a node spans the
  // stretch of face that four of the result's nodes do. The lengths grow through textured nodes, and a chain the
  // result's grid followed down a lock broke on the preview's (sample6@587's lock over her chest: 4 % dyed in
  // the preview, 63 % in the result). There a node's texture is the second highest of the four result-node
  // places it spans: a lock textured at two of them carries the chain on; one textured spot does not make a
  // smooth node textured (the highest of the four dyed pieces of sample4@908's patterned top in the preview
  // only).
  const fine = step * atCanvasScale(1, W);
  const textureAt = fine < step
    ? (xc: number, yc: number) =>
      secondHighest(
        strandTexture(img, xc, yc),
        strandTexture(img, xc + fine, yc),
        strandTexture(img, xc, yc + fine),
        strandTexture(img, xc + fine, yc + fine),
      )
    : (xc: number, yc: number) => strandTexture(img, xc, yc);
  // Strand texture is judged against the skin's own (noise, pores, an enlarged photo's JPEG blocks): the
  // median over the neck's nodes; under dark hair, at most NECK_TEXTURE_FACE times the face's (see there).
  const neckTexture = skinTexture(img, neckPoints);
  // Light hair (its darkest colour at STRIPE_HAIR_L or more) and dark hair grow differently below.
  const lightLengths = Math.min(...colour.hair.map((s) => s.mean[0])) >= STRIPE_HAIR_L;
  const skinOwn = lightLengths
    ? neckTexture
    : Math.min(neckTexture, NECK_TEXTURE_FACE * skinTexture(img, facePoints));
  const minTexture = Math.max(LENGTH_TEXTURE, 2 * skinOwn);
  const seen = new Uint8Array(w * h), stack: number[] = [];
  // Nodes that continue a length's colour but were left out for want of strand texture (see below).
  const smooth = new Uint8Array(w * h);
  // Per node reached: the colour the length has been continuing (a running mean along the way), so that a
  // blurred edge, each step small, does not lead from the hair into a strap or a neighbour's arm.
  const ref = new Float32Array(w * h * 3);
  // Nodes grown at a falling share above the clothes' row (see clothFade).
  const faded: number[] = [];
  // (Indexed loops over `around` here and below, not for-of or some(): these run over every node of a fresh
  // measure, and the iterators and closures were a third of this function's time.)
  const around = Int32Array.of(-1, 1, -w, w, -w - 1, -w + 1, w - 1, w + 1);
  for (let k = w + 1; k < w * (h - 1) - 1; k++) {
    if (data[k] <= 0.5) continue;
    seen[k] = 1;
    // Only hair at the edge of where lengths may be grows.
    let edge = false;
    for (let u = 0; u < 8 && !edge; u++) {
      edge = data[k + around[u]] <= 0.5 && room[k + around[u]] > LENGTH_ROOM;
    }
    if (!edge) continue;
    stack.push(k);
    const a = labAt(k);
    ref[a] = labs[a], ref[a + 1] = labs[a + 1], ref[a + 2] = labs[a + 2];
  }
  while (stack.length) {
    const k = stack.pop()!, i = k % w;
    if (i === 0 || i === w - 1 || k < w || k >= w * (h - 1)) continue;
    const a = labAt(k);
    for (let u = 0; u < 8; u++) {
      const e = around[u];
      const n = k + e;
      if (seen[n] || room[n] <= LENGTH_ROOM) continue;
      const b = labAt(n);
      const o = ((y0 + Math.floor(n / w) * step) * W + x0 + (n % w) * step) * 3;
      const c = cellOf(d[o], d[o + 1], d[o + 2]) * 4;
      if (colour.cells[c] !== colour.cells[c]) colour.fill(c);
      if (isRuledOut(n, b)) continue;
      // (The clothes' colours are sampled below the chin only, where long lengths are among them: a black top
      // under black hair is not hair.)
      const notCloth = !(n >= clothRow * w && colour.cells[c + 2] >= 0.5);
      // The hair's own colours are hair; any other node must continue the length, with strand texture or,
      // far darker than the skin, without (sleek hair on an enlarged photo is as smooth as skin).
      if (!(colour.cells[c] >= 0.5 && notCloth)) {
        const dE = Math.hypot(labs[b] - ref[a], labs[b + 1] - ref[a + 1], labs[b + 2] - ref[a + 2]);
        if (dE > LENGTH_STEP) continue;
        const dark = labs[b] < bodyL - LENGTH_DARKER && !(n >= (clothRow + skinDepth) * w && shadedSkin(b));
        if (!(dark && notCloth) && texture(n) < minTexture) {
          smooth[n] = 1;
          continue;
        }
      }
      seen[n] = 1;
      stack.push(n);
      for (let q = 0; q < 3; q++) ref[b + q] = ref[a + q] + (labs[b + q] - ref[a + q]) * LENGTH_FOLLOW;
      // Clothes' colours fade out of the growth over the rows above the clothes' (clothFade): stopped at that
      // row, lengths of such a colour were dyed down to a straight line across them (sample3@1005).
      const row = Math.floor(n / w);
      const fade = row >= clothRow - clothFade && row < clothRow
        ? 1 - colour.cells[c + 2] * (row - (clothRow - clothFade) + 1) / (clothFade + 1)
        : 1;
      if (room[n] * fade > data[n]) grown[n] = room[n] * fade;
      if (fade < 1) faded.push(n);
    }
  }
  // Light lengths of one colour: their lit strands, as smooth as skin out of focus and often in the colours the
  // clothes' samples took from the lengths lying over them, were left undyed below dyed hair (sample1@1438's
  // golden lengths under auburn roots). Where the lengths grown so far agree on one colour, that colour is
  // the lengths' (see continueLengthColour).
  if (lightLengths) {
    continueLengthColour(grown, data, room, labs, labAt, isRuledOut, body, w, h);
  }
  // The fade is for lengths that stop at the clothes' row. Where the growth went on below it in the same
  // column (or the next), the length continues past the chin and is dyed whole: faded there, sample6@1402's
  // lengths (sheen the colour of her clothes) were dyed at half strength in a band above the chin, an olive
  // tint between fully dyed lengths above and below.
  const goesOn = new Uint8Array(w);
  for (let row = clothRow; row <= Math.min(h - 1, clothRow + clothFade); row++) {
    for (let i = 0; i < w; i++) {
      if (grown[row * w + i] > 0) {
        goesOn[Math.max(0, i - 1)] = goesOn[i] = goesOn[Math.min(w - 1, i + 1)] = 1;
      }
    }
  }
  for (const n of faded) if (goesOn[n % w]) grown[n] = Math.max(grown[n], room[n]);
  // Holes: a node of smooth strands among grown ones, its colour like most of theirs.
  const fill: number[] = [];
  for (let k = w + 1; k < w * (h - 1) - 1; k++) {
    if (grown[k] > 0 || data[k] >= room[k] || room[k] <= LENGTH_ROOM) continue;
    let hair = 0, any = false;
    for (let u = 0; u < 8; u++) {
      const e = around[u];
      const q = k + e;
      if (grown[q] > 0) any = true, hair++;
      else if (data[q] > 0.5) hair++;
    }
    if (!any || hair < 5) continue;
    let n = 0;
    const a = labAt(k);
    for (let u = 0; u < 8; u++) {
      const e = around[u];
      const q = k + e;
      if (!(grown[q] > 0 || data[q] > 0.5)) continue;
      const b = labAt(q);
      if (
        Math.hypot(labs[a] - labs[b], labs[a + 1] - labs[b + 1], labs[a + 2] - labs[b + 2]) <= LENGTH_STEP
      ) n++;
    }
    if (n >= 5 && body.of(labs.subarray(a, a + 3)) <= 0.5) fill.push(k);
  }
  for (const k of fill) grown[k] = room[k];
  // An opening (erode twice, then grow back twice within what was grown): a band of nodes up to four wide is
  // an edge the growth crept along (a chest's outline against a brown door, a top's neckline), not lengths.
  let core = new Uint8Array(w * h);
  for (let k = 0; k < w * h; k++) core[k] = grown[k] > 0 || data[k] > 0.5 ? 1 : 0;
  const hairAt = core.slice();
  for (let pass = 0; pass < 2; pass++) {
    const next = new Uint8Array(w * h);
    for (let k = w + 1; k < w * (h - 1) - 1; k++) {
      next[k] = core[k] && core[k - 1] && core[k + 1] && core[k - w] && core[k + w] ? 1 : 0;
    }
    core = next;
  }
  for (let pass = 0; pass < 2; pass++) {
    const next = core.slice();
    for (let k = w + 1; k < w * (h - 1) - 1; k++) {
      if (core[k] || !hairAt[k]) continue;
      for (let u = 0; u < 8; u++) {
        if (core[k + around[u]]) {
          next[k] = 1;
          break;
        }
      }
    }
    core = next;
  }
  // The grid's last row has no row below it to be eroded against: lengths that leave the frame there keep what
  // the row above kept. (Opened as the rest, they were dropped: a strip of the old colour along the frame's
  // bottom under lengths dyed down to it.)
  for (let k = w * (h - 1); k < w * h; k++) if (hairAt[k] && core[k - w]) core[k] = 1;
  // What stays is only what the opened growth still connects to the dyed hair: a patch reached through a
  // neck of up to four nodes is an edge the growth crept along onto a wider area (the bench portrait's curl
  // tip onto her lit shoulder and her top's neckline), not the lengths.
  const linked = new Uint8Array(w * h), queue: number[] = [];
  for (let k = 0; k < w * h; k++) if (data[k] > 0.5) linked[k] = 1, queue.push(k);
  for (let t = 0; t < queue.length; t++) {
    const k = queue[t], i = k % w;
    if (i === 0 || i === w - 1 || k < w || k >= w * (h - 1)) continue;
    for (let u = 0; u < 8; u++) {
      const e = around[u];
      const n = k + e;
      if (!linked[n] && core[n] && grown[n] > 0) linked[n] = 1, queue.push(n);
    }
  }
  for (let k = 0; k < w * h; k++) if (grown[k] > 0 && !(core[k] && linked[k])) grown[k] = 0;
  // Striped lengths: light or brown hair's darker strands grow without strand texture (far darker than the
  // skin), its lighter ones, as smooth as skin out of focus, do not: lengths dyed in pink bands between
  // golden strands (sample1@1438). A grown patch whose border is largely such smooth nodes that continued its
  // colour (STRIPE_SHARE of the patch and that border, fading over STRIPE_FADE) is one of those bands and
  // is left undyed: the lengths dyed evenly or not at all. (Near-black hair's smooth border is its sheen or
  // skin beside it, not lighter strands of the same lengths: its patches are kept.)
  if (lightLengths) {
    const label = new Uint8Array(w * h), members: number[] = [], total = [0, 0], gone = [0, 0];
    for (let k0 = 0; k0 < w * h; k0++) {
      if (!(grown[k0] > 0) || label[k0]) continue;
      members.length = 0;
      members.push(k0);
      label[k0] = 1;
      const border: number[] = [];
      for (let t = 0; t < members.length; t++) {
        const k = members[t], i = k % w;
        if (i === 0 || i === w - 1 || k < w || k >= w * (h - 1)) continue;
        for (let u = 0; u < 8; u++) {
          const e = around[u];
          const n = k + e;
          if (grown[n] > 0) {
            if (!label[n]) label[n] = 1, members.push(n);
          } else if (smooth[n] === 1) smooth[n] = 2, border.push(n);
        }
      }
      for (const n of border) smooth[n] = 1;
      const share = border.length / (members.length + border.length);
      const keep = Math.max(0, Math.min(1, (STRIPE_SHARE - share) / STRIPE_FADE));
      for (const k of members) {
        const side = k % w < centre ? 0 : 1;
        total[side] += grown[k], gone[side] += grown[k] * (1 - keep), grown[k] *= keep;
      }
    }
    // The patches left between bands are bands too (dyed patches among golden lengths): on a side of the
    // head where most of the growth was bands, none of it stays.
    for (let k = 0; k < w * h; k++) {
      if (gone[k % w < centre ? 0 : 1] > 0.5 * total[k % w < centre ? 0 : 1]) grown[k] = 0;
    }
  }
  // Seams between the lengths (see closeSeams).
  closeSeams(grown, data, w, h);
  for (let k = 0; k < w * h; k++) if (grown[k] > data[k]) data[k] = grown[k];
  // A pixel at the grown lengths' edge: how like the colour of the nearest hair node of its grid cell (a
  // white strap or the backdrop beside the lengths is not the body's skin either). The pixel's colour is its
  // colour table cell's (within 3 ΔE).
  const corner = Int32Array.of(0, 1, w, w + 1);
  like = (r: number, g: number, b: number, k: number) => {
    const pixelLab = body.labOf(cellOf(r, g, b));
    let near = Infinity;
    for (let u = 0; u < 4; u++) {
      const q = k + corner[u];
      if (!(grown[q] > 0 || data[q] > 0.5) || labs[q * 3] !== labs[q * 3]) continue;
      near = Math.min(
        near,
        Math.hypot(pixelLab[0] - labs[q * 3], pixelLab[1] - labs[q * 3 + 1], pixelLab[2] - labs[q * 3 + 2]),
      );
    }
    return Math.max(0, Math.min(1, (LENGTH_STEP - near) / 6));
  };
  const colourAt = (k: number) => {
    const a = labAt(k);
    return labs.subarray(a, a + 3);
  };
  return { grown, like, colourAt, bytes: grown.byteLength + labs.byteLength };
}

/**
 * Grows `grown` on from every grown node through neighbours (8-connected, in `room`, not ruled out by colour, not
 * already hair in `data`) that have the lengths' own colour: the median of the grown nodes' Lab colours, when
 * their robust spread (1.4826 x the median absolute deviation, at least 3 per axis) is within
 * LENGTH_COLOUR_SPREAD. Such a node is a length whatever its strand texture and however like the clothes its
 * colour is, provided its chroma is at least LENGTH_COLOUR_CHROMA and its hue LENGTH_SKIN_HUE degrees from
 * every skin class of the body's (the body's skin in another light keeps its hue; golden lengths do not share
 * it). Lengths of mixed colours (a patterned top's browns grown among them) do not agree, and nothing grows.
 */
function continueLengthColour(
  grown: Float32Array,
  data: Float32Array,
  room: Float32Array,
  labs: Float32Array,
  labAt: (k: number) => number,
  isRuledOut: (n: number, b: number) => boolean,
  body: BodySkin,
  w: number,
  h: number,
): void {
  const axes: number[][] = [[], [], []];
  for (let k = 0; k < w * h; k++) {
    if (!(grown[k] > 0)) continue;
    const b = labAt(k);
    for (let q = 0; q < 3; q++) axes[q].push(labs[b + q]);
  }
  if (axes[0].length < LENGTH_COLOUR_MIN_NODES) return;
  const median = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1];
  const mid = axes.map((v) => median(v.slice())) as Lab;
  const spread = axes.map((v, q) => Math.max(3, 1.4826 * median(v.map((x) => Math.abs(x - mid[q]))))) as Lab;
  if (spread.some((s, q) => s > LENGTH_COLOUR_SPREAD[q])) return;
  const around = [-1, 1, -w, w, -w - 1, -w + 1, w - 1, w + 1];
  const stack: number[] = [];
  for (let k = 0; k < w * h; k++) if (grown[k] > 0) stack.push(k);
  while (stack.length) {
    const k = stack.pop()!, i = k % w;
    if (i === 0 || i === w - 1 || k < w || k >= w * (h - 1)) continue;
    for (const e of around) {
      const n = k + e;
      if (grown[n] > 0 || data[n] > 0.5 || room[n] <= LENGTH_ROOM) continue;
      const b = labAt(n);
      if (isRuledOut(n, b)) continue;
      const chroma = Math.hypot(labs[b + 1], labs[b + 2]), hue = Math.atan2(labs[b + 2], labs[b + 1]);
      if (chroma < LENGTH_COLOUR_CHROMA || body.nearHue(hue, LENGTH_SKIN_HUE)) continue;
      if (lengthColourDistance(labs, b, mid, spread) > LENGTH_COLOUR_REACH) continue;
      grown[n] = room[n];
      stack.push(n);
    }
  }
}

/** Nodes the lengths grown so far need to give their colour (see continueLengthColour). */
const LENGTH_COLOUR_MIN_NODES = 30;

/**
 * The distance of the Lab colour at `labs[b]` from `mid` in units of `spread` per axis (root mean square over the
 * three): lighter than `mid`, L* counts at half weight (lit strands of the same lengths range far in L*).
 */
function lengthColourDistance(labs: Float32Array, b: number, mid: Lab, spread: Lab): number {
  const dL = (labs[b] - mid[0]) / spread[0] * (labs[b] > mid[0] ? 0.5 : 1);
  const dA = (labs[b + 1] - mid[1]) / spread[1], dB = (labs[b + 2] - mid[2]) / spread[2];
  return Math.sqrt((dL * dL + dA * dA + dB * dB) / 3);
}

/** The second highest of four values. */
function secondHighest(a: number, b: number, c: number, d: number): number {
  const hi1 = Math.max(a, b), lo1 = Math.min(a, b), hi2 = Math.max(c, d), lo2 = Math.min(c, d);
  return hi1 >= hi2 ? Math.max(lo1, hi2) : Math.max(hi1, lo2);
}

/**
 * Strand texture at a pixel: the larger eigenvalue of the luma structure tensor over 8x8 pixels (2 px
 * differences). With `above`, stops (returning at least `above`) as soon as the texture is sure to be above it
 * (the larger eigenvalue is at least half the tensor's trace, which only grows). Measured in pixels on the
 * 540x960 preview, the neck's skin read 1.4-2.7x its texture at the output's size on the frontal test faces, the
 * strands 1.4x: lengths needed more texture to grow in the preview than in the result. At the preview's own
 * scale (atCanvasScale), the neck reads 0.77-1.09x.
 */
export function strandTexture(img: Canvas, xc: number, yc: number, above = Infinity): number {
  const W = img.width, d = img.data;
  if (xc < 6 || yc < 6 || xc > W - 7 || yc > img.height - 7) return 0;
  const stop = 32 * above * above;
  const luma = (o: number) => 0.299 * d[o] + 0.587 * d[o + 1] + 0.114 * d[o + 2];
  // The same stretch of the face at any render size (see atCanvasScale): every other pixel of the 8x8 with
  // 2-pixel differences at the output size, every pixel of the 4x4 with 1-pixel differences on the preview.
  const s = atCanvasScale(2, W), dx = 3 * s, dy = dx * W;
  let sxx = 0, syy = 0, sxy = 0;
  for (let y = yc - 2 * s; y < yc + 2 * s; y += s) {
    for (let x = xc - 2 * s; x < xc + 2 * s; x += s) {
      const o = (y * W + x) * 3;
      const gx = luma(o + dx) - luma(o - dx), gy = luma(o + dy) - luma(o - dy);
      sxx += gx * gx, syy += gy * gy, sxy += gx * gy;
    }
    if (sxx + syy > stop) return above;
  }
  const tr = (sxx + syy) / 16, det = (sxx * syy - sxy * sxy) / 256;
  return Math.sqrt(Math.max(0, tr / 2 + Math.sqrt(Math.max(0, tr * tr / 4 - det))));
}

/**
 * Hair-coloured clothes below the chin: the colour model's mask takes clothes of the hair's colour (a light
 * beige jacket under blonde curls, a black top under long black lengths; the clothes model cannot hold a
 * colour that is also the hair's). Lengths carry strand texture almost everywhere; cloth is smooth between
 * its folds. Each 4-connected region of smooth mask nodes below `fromRow` (strand texture under `limit`, see
 * skinTexture) as large as a square of CLOTH_SIDE face widths is cloth: it leaves the mask and the lengths'
 * room (see reachLengths). The smooth spots among strands are small and stay. Returns whether anything was
 * dropped.
 */
export function dropSmoothCloth(
  m: Mask,
  room: Float32Array,
  img: Canvas,
  x0: number,
  y0: number,
  step: number,
  fromRow: number,
  limit: number,
  fw: number,
): boolean {
  const { w, h, data } = m;
  if (fromRow >= h || !(limit > 0)) return false;
  // 0: not looked at, 1: smooth and in the mask, 2: anything else, 3: in a region already judged.
  const state = new Uint8Array(w * h);
  const smoothAt = (k: number) => {
    if (state[k] === 0) {
      state[k] = data[k] > CLOTH_MASK &&
          strandTexture(img, x0 + (k % w) * step, y0 + Math.floor(k / w) * step, limit) < limit
        ? 1
        : 2;
    }
    return state[k] === 1;
  };
  const minSize = (CLOTH_SIDE * fw / step) ** 2, region: number[] = [];
  // The nodes dropped as cloth.
  const cut = new Uint8Array(w * h), edge: number[] = [];
  for (let k0 = fromRow * w; k0 < w * h; k0++) {
    if (!smoothAt(k0)) continue;
    region.length = 0;
    region.push(k0);
    state[k0] = 3;
    for (let t = 0; t < region.length; t++) {
      const k = region[t], i = k % w;
      for (const n of [k - w, k + w, i > 0 ? k - 1 : -1, i < w - 1 ? k + 1 : -1]) {
        if (n >= fromRow * w && n < w * h && smoothAt(n)) state[n] = 3, region.push(n);
      }
    }
    if (region.length < minSize) continue;
    for (const k of region) cut[k] = 1, data[k] = 0, room[k] = 0, edge.push(k);
  }
  if (edge.length === 0) return false;
  // The mask fades into the cloth over a node (the share of cut nodes about it): cut on the grid, its edge
  // showed as blocks.
  const faded = new Uint8Array(w * h);
  for (const k of edge) {
    for (let b = -w; b <= w; b += w) {
      for (let a = -1; a <= 1; a++) {
        const n = k + a + b;
        if (n < 0 || n >= w * h || cut[n] || faded[n] || data[n] === 0) continue;
        faded[n] = 1;
        let c = 0;
        for (let bb = -w; bb <= w; bb += w) for (let aa = -1; aa <= 1; aa++) c += cut[n + aa + bb] ?? 0;
        data[n] *= 1 - c / 9;
      }
    }
  }
  return true;
}

/**
 * A smooth node's strand texture is under this many times the neck skin's median (see dropSmoothCloth), or,
 * where long dark lengths hide the neck, under CLOTH_SMOOTH_FACE times the face skin's: the shadows between
 * dark lengths are nearly as smooth as cloth (sample1@773: their regions' median texture 1.0-2.7, her face's
 * skin 4.0, a black top 1.1 on sample1@334).
 */
export const CLOTH_SMOOTH = 1, CLOTH_SMOOTH_FACE = 0.5;

/** The median strand texture (see strandTexture) at every fourth of `points` (x, y pairs); 0 with none. */
export function skinTexture(img: Canvas, points: number[]): number {
  const tex: number[] = [];
  for (let q = 0; q < points.length; q += 8) tex.push(strandTexture(img, points[q], points[q + 1]));
  tex.sort((a, b) => a - b);
  return tex[tex.length >> 1] ?? 0;
}

/** Points (x, y pairs) on the face's plain skin: 3 x 3, 2 px apart, about each of SKIN_SAMPLES. */
export function faceSkinPoints(g: FaceGeometry): number[] {
  return SKIN_SAMPLES.flatMap((i) => {
    const x = Math.round(g.pts[i][0]), y = Math.round(g.pts[i][1]);
    return [-2, 0, 2].flatMap((dy) => [-2, 0, 2].flatMap((dx) => [x + dx, y + dy]));
  });
}

/** A smooth region below the chin this large (the side of a square, in face widths) is cloth. */
const CLOTH_SIDE = 0.15;

/** Mask value from which a node below the chin counts toward a smooth region (see dropSmoothCloth). */
const CLOTH_MASK = 0.05;

/** What reachLengths grew per node, and how like a pixel (sRGB, in cell k) is to the hair nodes about it. */
export interface Lengths {
  grown: Float32Array;
  like: (r: number, g: number, b: number, k: number) => number;
  /** A node's colour: the Lab mean over the 8x8 pixels about it (see reachLengths), made when first asked. */
  colourAt: (k: number) => Float32Array;
  /** Bytes the answer holds (grown and the nodes' colours that `like` reads). */
  bytes: number;
}

/**
 * Largest hole fillEnclosed fills, as the side of a square of the same area, in face widths: a lock's
 * highlight, not a patch of clothes or an ear seen through the hair.
 */
export const HOLE_MAX = 0.15;
/** The four neighbours of a node: column and row offsets. */
const NEIGHBOUR = [-1, 1, 0, 0], NEIGHBOUR_ROW = [0, 0, -1, 1];
/** A hole whose nodes are on average at least this like the skin (an ear, a shoulder between locks) stays... */
const HOLE_SKIN = 0.5;
/**
 * ...unless it is a lock of the hair about it: its mean colour within this ΔE of its dyed rim's (see
 * fillEnclosed), with at least LOCK_CHROMA of the skin's chroma.
 */
const LOCK_RIM = 6;
/** A lock's least chroma, as a share of the skin's (a grey top or a white backdrop between locks is not one). */
const LOCK_CHROMA = 0.4;

/** What isLock reads: each node's colour (see Lengths.colourAt) and the skin's. */
interface LockColours {
  colourAt: (k: number) => ArrayLike<number>;
  skin: Lab;
}

/**
 * Highlights in a coloured light: dark hair lit blue or purple from the side (a screen, a neon sign) has
 * highlights of a hue far from every hair colour sampled, so the colour model left them out, and they stayed
 * blue blotches in copper hair (sample3@1372: two, each about 0.1 face widths long; sample1@1438: olive
 * patches among her lower lengths; sample2@1370: grey ones). A hole in the dyed hair (mask above 0.5, or
 * grown lengths) that the hair encloses on every side (4-connected; not touching the grid's edge, the face,
 * or a node where hair has no room: outside the person, the backdrop between locks), no larger than HOLE_MAX,
 * and not on average skin (HOLE_SKIN) is hair: it takes the mean strength of the dyed nodes around it. The
 * plane returned holds that strength (undefined when no hole was filled); each pixel in it is dyed at that
 * strength, clear skin or not (see refine in hair-recolor.ts): a blue-lit highlight is as far from the hair
 * as the skin lit blue is.
 * With `locks` (each node's colour, and the skin's), a hole read as skin is hair too when its colour continues
 * the dyed hair about it (see isLock): light ombré ends in the skin's hue, darker than it, lying across a curl
 * of sample6@1081's lengths, stayed golden among auburn (40 % of their pixels, 7 % now). A hoop earring's gap,
 * skin between locks or a grey top between them differ from the hair about them and stay.
 */
export function fillEnclosed(
  m: Mask,
  grown: Float32Array,
  gate: Float32Array,
  face: Uint8Array,
  skinLike: Float32Array,
  place: Float32Array,
  lengthRoom: Float32Array,
  maxSide: number,
  locks?: LockColours,
): Float32Array | undefined {
  const { w, h, data } = m, n = w * h;
  // Per node: HAIR, a hole's node that cannot be enclosed (OPEN: the face, no room; EDGE: the grid's edge,
  // whose neighbours past the edge are not visited), or 0.
  const HAIR = 1, OPEN = 2, EDGE = 3, kind = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    const i = k % w;
    if (data[k] > 0.5 || grown[k] > 0.5) kind[k] = HAIR;
    else if (i === 0 || i === w - 1 || k < w || k >= n - w) kind[k] = EDGE;
    else if (gate[k] === 0 || face[k] || (place[k] <= 0 && lengthRoom[k] <= 0)) kind[k] = OPEN;
  }
  const seen = new Uint8Array(n), hole = new Int32Array(n);
  // The rim's nodes of the hole being filled (each once: `rimOf` holds the hole's first node + 1).
  const rimOf = new Int32Array(n), rimNodes: number[] = [];
  let plane: Float32Array | undefined;
  for (let k0 = 0; k0 < n; k0++) {
    if (seen[k0] || kind[k0] === HAIR) continue;
    // The hole's nodes are collected in `hole` (the queue of the fill as well), 4-connected.
    seen[k0] = 1;
    hole[0] = k0;
    let size = 1, open = false, skin = 0, rim = 0, rimSum = 0;
    rimNodes.length = 0;
    for (let t = 0; t < size; t++) {
      const k = hole[t];
      if (kind[k] >= OPEN) open = true;
      skin += skinLike[k];
      if (kind[k] === EDGE) continue;
      for (let e = 0; e < 4; e++) {
        const q = k + NEIGHBOUR[e] + NEIGHBOUR_ROW[e] * w;
        if (kind[q] === HAIR) {
          rim++, rimSum += Math.max(data[q], grown[q]);
          if (rimOf[q] !== k0 + 1) rimOf[q] = k0 + 1, rimNodes.push(q);
        } else if (!seen[q]) seen[q] = 1, hole[size++] = q;
      }
    }
    if (open || size > maxSide * maxSide) continue;
    if (skin >= HOLE_SKIN * size && !(locks && isLock(hole.subarray(0, size), rimNodes, locks))) continue;
    const v = Math.min(1, rimSum / rim);
    plane ??= new Float32Array(n);
    for (let t = 0; t < size; t++) {
      const k = hole[t];
      if (v > data[k]) data[k] = v;
      plane[k] = v;
    }
  }
  return plane;
}

/**
 * Whether a hole the colour model reads as skin is a lock of the dyed hair about it (see fillEnclosed): its
 * nodes' mean colour within LOCK_RIM of its rim's, and no greyer than LOCK_CHROMA of the skin.
 */
function isLock(
  hole: Int32Array,
  rim: readonly number[],
  { colourAt, skin }: LockColours,
): boolean {
  if (rim.length === 0) return false;
  const mean = (nodes: ArrayLike<number>) => {
    const m = [0, 0, 0];
    for (let t = 0; t < nodes.length; t++) {
      const c = colourAt(nodes[t]);
      m[0] += c[0], m[1] += c[1], m[2] += c[2];
    }
    return m.map((v) => v / nodes.length);
  };
  const inside = mean(hole), around = mean(rim);
  return Math.hypot(inside[0] - around[0], inside[1] - around[1], inside[2] - around[2]) <= LOCK_RIM &&
    Math.hypot(inside[1], inside[2]) >= LOCK_CHROMA * Math.hypot(skin[1], skin[2]);
}

/** Longest run of nodes (along a row or a column) that closeSeams fills between grown lengths. */
const SEAM_NODES = 6;

/**
 * Seams in the lengths: the growth starts from the dyed hair (mask over 0.5) and leaves it as it is, so hair the
 * colour model half knew (mask 0.5-0.9) between lengths grown whole stayed at its own strength, a streak dyed
 * at half strength down the lengths (sample1@1438 under Jet Black: a lighter seam, and a row of orange dots
 * where the refinement judged its pixels one by one). A run of such nodes along a row or a column, at most
 * SEAM_NODES long, with a grown node at both ends, takes the lower of the two ends' grown strengths.
 */
export function closeSeams(grown: Float32Array, data: Float32Array, w: number, h: number): void {
  const add = new Float32Array(w * h);
  const scan = (start: number, stride: number, n: number) => {
    let from = -1;
    for (let t = 0; t < n; t++) {
      const k = start + t * stride;
      if (grown[k] > 0) {
        if (from >= 0 && t - from - 1 > 0 && t - from - 1 <= SEAM_NODES) {
          const v = Math.min(grown[start + from * stride], grown[k]);
          for (let q = from + 1; q < t; q++) {
            const n = start + q * stride;
            if (v > data[n]) add[n] = Math.max(add[n], v);
          }
        }
        from = t;
      } else if (!(data[k] > 0.5)) from = -1;
    }
  };
  for (let j = 0; j < h; j++) scan(j * w, 1, w);
  for (let i = 0; i < w; i++) scan(i, w, h);
  for (let k = 0; k < w * h; k++) if (add[k] > grown[k]) grown[k] = add[k];
}
