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
import { clearThinLines } from "./hair-thin-lines.ts";
import { clearStuds, earLobes, type LobeZone } from "./hair-studs.ts";
import {
  hexToLab,
  hueDegrees,
  hueGap,
  type Lab,
  lightnessOf,
  linearToLabInto,
  luminance,
  SRGB_TO_LINEAR,
  wrapDegrees,
} from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import {
  type AxisStats,
  axisStats,
  cellOf,
  clusters,
  CN,
  hairSamples,
  nearestShares,
  noseSamples,
  OPACITY,
  separation,
  skinSamples,
} from "./hair-colour-samples.ts";
import {
  BodySkin,
  CLOTH_SMOOTH,
  CLOTH_SMOOTH_FACE,
  dropSmoothCloth,
  faceSkinPoints,
  fillEnclosed,
  hairShare,
  hairShareAt,
  HOLE_MAX,
  LENGTH_PERSON,
  LENGTH_SKIN_DEPTH,
  neckSkin,
  reachLengths,
  skinTexture,
  SOFT_CONTRAST,
  SOFT_FEATHER,
  SOFT_HALF_WIDTH,
  SOFT_REACH,
  softHairline,
  softStrength,
} from "./hair-lengths.ts";
import { clothModel, ColourModel } from "./hair-colour-model.ts";
import {
  dropFaceMarks,
  dropLashLines,
  EYE_LASH_RUN,
  eyeZones,
  featherBox,
  featureMask,
  hasBeard,
  LASH_PIECE,
  LASH_RUN,
  MARK_AREA_SIDE,
  MARK_SIDE,
  ovalBox,
  reachStrands,
} from "./hair-on-face.ts";
import { depositDarkening, hairLightness } from "./hair-deposit.ts";
import {
  dyeStrengths,
  type EdgeRefine,
  hairlineTable,
  liftedTable,
  type MaskGrid,
  paintStrengths,
  type Strengths,
} from "./lab-shift.ts";
import { FACE_CORE_WIDTH, FACE_STEP, lowerFace } from "./lower-face-mask.ts";
import {
  blurPlane,
  boxOver,
  feather,
  fillPolygon,
  type Mask,
  maskAt,
  maxNear,
  type Point,
  sampleGrid,
  slidingExtreme,
} from "./masks.ts";
import { FACE_OVAL } from "./landmarks.ts";
import { centreOf, eyeContours } from "./eye-contour.ts";
import { personAt, type PersonMask } from "./person-mask.ts";
import { atCanvasScale } from "./output-scale.ts";
import { litShade, photoExposure } from "./photo-exposure.ts";

export interface HairResult {
  applied: boolean;
  /** Why not, for the result notes. */
  reason?: string;
  confidence: number;
}

/**
 * Where the dye stops, its strength is smoothed by a guided filter on the photo's luma (see dyeStrengths):
 * over about EDGE_SMOOTH_RADIUS pixels (at the output's size) where the photo is smooth, kept where
 * it has an edge (local luma variance well over EDGE_SMOOTH_EPS, luma in 0..1). The mask's 4-pixel grid and the
 * per-pixel edge decision left stepped and ragged dye edges in soft photos: a staircase where lengths' growth
 * stopped in a shadow (sample5@1045), blocky grey patches in dyed lengths (sample2@805). A strand against a
 * bright backdrop or skin keeps its edge.
 */
const EDGE_SMOOTH_RADIUS = 3, EDGE_SMOOTH_EPS = 0.01;

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

/**
 * Roots: near the scalp (the crown down to the hairline) the recolour is held
 * back by up to this share, as dye shows on hair near the scalp, so that the
 * hair shades from slightly darker roots to the lengths.
 */
export const ROOT_HOLD = 0.22;

/**
 * Face heights above the chin over which the clothes' colours fade out of the lengths' growth (see
 * reachLengths), as below the chin the hair-likeness gain fades out and the clothes' weight fades in.
 */
const CLOTH_FADE = 0.15;

/**
 * Face heights above eye level over which the lengths' room (see reachLengths) fades in. Lengths lie beside
 * and below the face; starting at full room on the eyes' row, hair the colour model half took above it (in a
 * coloured light) and the lengths grown below met along a straight line across the hair: sample2@805's
 * lilac-lit hair, looking down, went from barely dyed to fully dyed within 8 px at her eyes' row (a jump of
 * 7.2 in the rows' mean ΔE; faded in, 1.5).
 */
const LENGTH_RISE = 0.35;

/** Half the neck's width, in face widths (the neck is kept out of the hair mask). */
const NECK_HALF_WIDTH = 0.25;
/**
 * Face heights below the chin over which the neck's column is kept out of the lengths' growth, and the span
 * over which it then fades: below, on the chest, a lock falling in front of the body is grown into like the
 * lengths beside it (sample6@587's lock over her top was left grey down to the frame's bottom).
 */
const NECK_DEPTH = 0.35, NECK_DEPTH_FADE = 0.15;
/**
 * A node in the neck's column whose colour is hair to the colour model, not the clothes', and whose L* is under
 * NECK_HAIR_BELOW of the face skin's is hair lying in front of the neck, not the neck: the column does not apply
 * to it (fully; not at all from NECK_HAIR_FADE above that share, half the face's L*, below which the neck's own
 * skin samples are not taken either: see neckSkin). Down to the chest only (NECK_DEPTH and its fade): there a
 * black top's lit edge in the column took the dye. Kept out, sample1@773's near-black hair falling in front of
 * her neck was left black in a block under her chin, between dyed hair on both sides.
 */
const NECK_HAIR_BELOW = 0.35, NECK_HAIR_FADE = 0.15;

/**
 * How far below the chin (face heights, along the face's own axis) the neck is also kept out of the mask
 * along that axis, fading out over the next 0.1: on a tilted head the shade under the jaw lies beside the
 * chin in the image (dyed copper on sample1@1438), while further down the neck hangs straight and long
 * hair falls beside it (sample6@1402's curls).
 */
const JAW_SHADE = 0.15;

/** Sines of the head's tilt from which that axis's neck fades in (10 degrees) and is full (20 degrees). */
const TILT_FROM = Math.sin(Math.PI / 18), TILT_FULL = Math.sin(Math.PI / 9);

/**
 * What the hair recolour learns from one framed photo: the shade-free analysis (skin and hair colour samples,
 * their clusters) and the masks built for each kind of shade (see planKey). The renderer keeps it with the
 * framing, so that restyling a photo (another lip colour, another hair shade of the same kind) repaints the hair
 * without measuring it again: everything in it depends on the unpainted canvas, the face and the person mask
 * alone. Hair is the first stage to paint, so the canvas it sees is the framed photo's every time.
 */
export interface HairCache {
  analysis?: HairAnalysis | HairResult;
  /** The photo's exposure, which lights every shade (see photoExposure). */
  exposure?: number;
  plans: Map<string, HairPlan | HairResult>;
}

export const newHairCache = (): HairCache => ({ plans: new Map() });

/** Bytes a HairCache holds (its plans' masks and colour tables). */
export function hairCacheBytes(cache: HairCache): number {
  let n = 0;
  for (const p of cache.plans.values()) if ("mask" in p) n += p.bytes;
  return n;
}

/** The hair's colour clusters sampled on the photo, before any shade is chosen (see analyseHair). */
interface HairAnalysis {
  skinLab: Lab[];
  skin: AxisStats;
  /** The skin sampled on the face, then skin in other light (see litSkin). */
  skins: AxisStats[];
  confidence: number;
  found: { s: AxisStats; pale: boolean; sep: number; blonde: boolean }[];
  light: number;
  paleCount: number;
  counted: number;
}

/**
 * The hair's masks for one kind of shade (see planKey), on their grid (see MaskGrid), and what painting them
 * needs: everything but the shade's own colour table.
 */
interface HairPlan extends MaskGrid {
  confidence: number;
  lightHair: boolean;
  /** The hair's mean colour, which the shade replaces. */
  mean: Lab;
  /** Light hair found by place dyed on both sides of the head (see placeCoverage); always true otherwise. */
  coverageOk: boolean;
  /** Light hair dyed darker: per node, the share of `amount` L* added to the recolour (see liftDarks). */
  lift?: { data: Float32Array; amount: number };
  /** Per node, the hair's lightness about it (see hairLightness), for a darker dye's deposit. */
  baseL: Float32Array;
  /** The grid row (fractional) at eye level. */
  eyeRow: number;
  /** Dark hair over lighter skin: per node, the weight of the blends' table (see hairlineZone). */
  hairline?: Float32Array;
  skinL: number;
  /** What the dye's strengths are made from, until they are (see strengthsOf). */
  measure?: PlanMeasure;
  /** The dye's strength per pixel, once painted or prepared (see strengthsOf). */
  strengths?: Strengths;
  /** Bytes it holds (see hairCacheBytes). */
  bytes: number;
}

/**
 * What a plan's per-pixel edge refinement reads (see strengthsOf), and nothing else does: once the strengths
 * are made it is dropped, most of a plan's bytes (the colour tables, the lengths' node colours): a plan on the
 * bench portrait at 1080x1920 holds 2.8 MB after, 8.3 MB before.
 */
interface PlanMeasure {
  /** Per node, for the edge refinement (see strengthsOf). */
  ovalAt: Float32Array;
  filled: Float32Array;
  grown: Float32Array;
  /** Holes the hair encloses, filled (see fillEnclosed): per node, the strength each pixel takes, skin or not. */
  enclosed?: Float32Array;
  soft?: Float32Array;
  colour: ColourModel;
  body: BodySkin;
  like: (r: number, g: number, b: number, k: number) => number;
  chinY: number;
  /** The face's width (pixels). */
  fw: number;
  /** Where the ear lobes hang (see earLobes): studs there are kept out of the dye. */
  lobes: LobeZone[];
  /** Bytes it holds. */
  bytes: number;
}

/**
 * Recolours the hair toward `hex`; skips (and says why) when hair cannot be separated from skin. With `cache`
 * (one per framed canvas, person mask and face), what an earlier call on the same canvas measured is reused:
 * the result is byte-identical to a call without it.
 */
export function recolorHair(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  hex: string,
  cache: HairCache = newHairCache(),
  cast?: readonly number[],
): HairResult {
  // The shade as this photo's light shows it (a dim photo's dye no lighter than its light allows), in the light
  // `cast` when a scene's relight will take the photo's cast out (see relightCast).
  const target = litShade(hexToLab(hex), cache.exposure ??= photoExposure(img, g), cast);
  const chosen = cachedPlan(img, g, person, target, cache);
  if (!("plan" in chosen)) return chosen;
  const { plan, deeper } = chosen, confidence = plan.confidence;
  // Bleaching dark hair (platinum on near-black) cannot be faked by a colour shift: it turns the
  // strands grey and whitens every skin pixel the mask touches. Say so instead.
  if (target[0] - plan.mean[0] > MAX_LIGHTENING) {
    return { applied: false, confidence, reason: "lightening dark hair this much needs a generative model" };
  }
  // Light hair found by place, dyed on one side of the head only (her shaded side, as skin-hued as her face,
  // left blonde beside a dyed one): a botched dye, worse than the note.
  if (!plan.coverageOk) {
    return { applied: false, confidence, reason: "hair could not be told apart from skin in this light" };
  }
  applyPlan(img, plan, target, deeper);
  return { applied: true, confidence };
}

/**
 * As light as a shade goes: it darkens no hair, so its plan serves every shade that darkens no light hair (see
 * prepareHair).
 */
export const LIGHTER_SHADES: readonly Lab[] = [[100, 0, 0]];
/**
 * As dark as one goes: where light hair was found, its plan serves every shade that darkens it (see planKey); on
 * other hair, every shade far darker than it (see DEEPER_BY), or on black hair the lighter shades' plan.
 * Unprepared, a blonde's first darker shade measured for 390-430 ms; the far darker shades' plan adds 60-140 ms
 * to a light brown photo's preparation at upload (sample3@1005, sample4@908, sample5@1045).
 */
const DARKER_SHADES: readonly Lab[] = [[0, 0, 0]];

/**
 * Measures the hair for the plans `shades` need (by default, every shade's), without painting: a photo prepared
 * at upload has its hair measured before its owner picks a shade. Light hair found by place (where no hair
 * colour was told from the skin) is looked for against the chosen shade's lightness, so it waits for the shade.
 */
export function prepareHair(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  cache: HairCache,
  shades: readonly Lab[] = [...LIGHTER_SHADES, ...DARKER_SHADES],
): void {
  const analysis = cache.analysis ??= analyseHair(img, g, person);
  if (!("found" in analysis)) return;
  cache.exposure ??= photoExposure(img, g);
  for (const shade of shades) {
    if (chooseHair(analysis, shade).hair.length === 0) continue;
    const chosen = cachedPlan(img, g, person, shade, cache);
    if ("plan" in chosen) strengthsOf(img, chosen.plan);
  }
}

/**
 * The masks for `target`'s kind of shade (see planKey), measured once per cache, and whether the shade is far
 * darker than the hair (see DEEPER_BY); or why it cannot be dyed.
 */
function cachedPlan(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  target: Lab,
  cache: HairCache,
): { plan: HairPlan; deeper: boolean } | HairResult {
  const analysis = cache.analysis ??= analyseHair(img, g, person);
  if (!("found" in analysis)) return analysis;
  const { hair, lightHair, deeper } = chooseHair(analysis, target);
  const key = planKey(hair.length > 0, lightHair, deeper, target);
  let plan = cache.plans.get(key);
  if (!plan) cache.plans.set(key, plan = planHair(img, g, person, analysis, hair, lightHair, deeper, target));
  return "mask" in plan ? { plan, deeper } : plan;
}

/**
 * Names the masks a shade needs. A shade changes them only through its lightness: light hair dyed darker is
 * masked and painted differently (see lightHair), a shade far darker than other hair has its half-dyed hair
 * closed up (see DEEPER_CLOSE_FROM), and light hair found by place is looked for against the shade's L* (see
 * lightByPlace). Every other shade shares one plan.
 */
function planKey(hairFound: boolean, lightHair: boolean, deeper: boolean, target: Lab): string {
  return hairFound ? (lightHair ? "darkening" : deeper ? "deeper" : "other") : `place:${target[0]}`;
}

/** The skin and hair colours sampled on the photo and the hair's clusters, before any shade is chosen. */
function analyseHair(img: Canvas, g: FaceGeometry, person: PersonMask): HairAnalysis | HairResult {
  // Hair over one eye lies over that side of the face too: the skin is sampled on the other (see skinSamples).
  const eyes = eyeContours(img, g), covered = [eyes.right, eyes.left].find((e) => e.covered);
  const skinLab = skinSamples(img, g, covered && centreOf(covered.upper));
  const candidates = hairSamples(img, g, person);
  if (candidates.length < 60) {
    return { applied: false, confidence: 0, reason: "too little hair is visible" };
  }
  const skin = axisStats(skinLab);
  // Hair colours: clusters of the candidates that are not skin (forehead skin
  // under a high hairline, or two-tone hair, give several clusters).
  let confidence = 0;
  const skins = [skin];
  // A few thousand samples describe the colours as well as all of them (and cluster 5x faster).
  const every = Math.ceil(candidates.length / 1000);
  const pool = every > 1 ? candidates.filter((_, i) => i % every === 0) : candidates;
  let light = 0, paleCount = 0, counted = 0;
  const found: { s: AxisStats; pale: boolean; sep: number; blonde: boolean }[] = [];
  const groups = clusters(pool, 3), groupStats = groups.map(axisStats);
  // Each cluster's share of the nose, against the other clusters and the skin (see NOSE_SKIN).
  const onNose = nearestShares(noseSamples(img, g), [...groupStats.map((s) => s.mean), skin.mean]);
  for (const [i, group] of groups.entries()) {
    const s = groupStats[i];
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
    // Light, neither pale nor blonde, and the nose's own colour: skin in a second light (see NOSE_SKIN).
    const nose = isLight && !pale && !isBlonde && onNose[i] >= NOSE_SKIN;
    if (lit || nose) skins.push(s);
    else if (sep >= MIN_SEPARATION && far >= MIN_SKIN_DISTANCE && group.length >= 0.12 * pool.length) {
      found.push({ s, pale, sep, blonde: isBlonde });
    }
  }
  return { skinLab, skin, skins, confidence, found, light, paleCount, counted };
}

/**
 * The hair colours a shade dyes, whether it darkens light hair (see LIGHT_HAIR_GAIN), and whether it is far
 * darker than other hair (see DEEPER_BY).
 */
function chooseHair(
  { found, light, paleCount, counted }: HairAnalysis,
  target: Lab,
): { hair: AxisStats[]; lightHair: boolean; deeper: boolean } {
  const hair: AxisStats[] = [];
  let lightHair = false;
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
  const darkest = Math.min(...hair.map((s) => s.mean[0]));
  const deeper = !lightHair && hair.length > 0 && target[0] < darkest - DEEPER_BY;
  return { hair, lightHair, deeper };
}

/** The hair's masks for the kind of shade `target` is (see planKey), or why it cannot be dyed. */
function planHair(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  analysis: HairAnalysis,
  hair: AxisStats[],
  lightHair: boolean,
  deeper: boolean,
  target: Lab,
): HairPlan | HairResult {
  const { skinLab, skin, confidence } = analysis;
  const skins = analysis.skins.slice();
  // Light hair as pale as the skin, dyed darker: found by where it is (off the forehead's skin) and its hue.
  let forehead: Forehead | undefined;
  if (hair.length === 0) {
    const byPlace = lightByPlace(img, g, person, skinLab, skin, target);
    if (byPlace) {
      hair.push(...byPlace.hair);
      skins.push(...byPlace.skins);
      forehead = byPlace.forehead;
      lightHair = true;
    }
  }
  if (hair.length === 0) {
    return { applied: false, confidence, reason: "hair could not be told apart from skin in this light" };
  }
  const fw = g.fw, fh = g.fh;
  const cx = g.center[0], eyeY = g.eyeCenter[1], chinY = g.pts[152][1], topY = g.pts[10][1];
  const x0 = Math.max(0, Math.floor(cx - 1.45 * fw)), x1 = Math.min(img.width, Math.ceil(cx + 1.45 * fw));
  const y0 = Math.max(0, Math.floor(topY - fh)), y1 = Math.min(img.height, Math.ceil(chinY + 1.6 * fh));
  if (x1 <= x0 || y1 <= y0) return { applied: false, confidence, reason: "too little hair is visible" };
  // The neck's skin below the chin. Where none shows, long lengths fall in front of it: a clothes colour like
  // the hair's below the chin is then more likely the lengths themselves (their shadows) than a garment, and
  // it does not fade out of the mask (see ColourModel); hair-coloured clothes are told from the lengths by
  // their smoothness instead (see dropSmoothCloth). Faded, sample1@773's black lengths were left undyed
  // below a line across her hair at the chin.
  const neck = neckSkin(img, g, person, skin.mean);
  const cloth = clothModel(img, g, person, hair[0]);
  const lengthsInFront = !lightHair && neck.points.length === 0 && cloth.some((k) => k.likeHair);
  const colour = new ColourModel(
    hair,
    skins,
    lengthsInFront ? cloth.filter((k) => !k.likeHair) : cloth,
    forehead ? skin.mean : undefined,
  );

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
  // Per node: how surely its colour is hair and not the clothes' (see keepConnected).
  const sureAt = new Float32Array(mw * mh);
  // Per node: where hair may be regardless of colour, and the face (see closeHighlights).
  const place = new Float32Array(mw * mh), faceAt = new Uint8Array(mw * mh);
  // Per node: in the face oval below the brows' line (see dropLashLines).
  const inOvalAt = new Uint8Array(mw * mh);
  // Per node: where a pale strand may join the hair (see reachPale), and where a grey one may (see GREY_PASSES).
  const palePlace = new Float32Array(mw * mh), greyPlace = new Float32Array(mw * mh);
  // Strands lying across the face (see reachStrands): how hair-like a node's
  // colour is, off the eyes, brows, nose and lips; the room hair has there; how skin-like it is.
  const strandAt = new Float32Array(mw * mh), strandRoom = new Float32Array(mw * mh);
  const strandSkin = new Float32Array(mw * mh);
  // Everything about strands across the face happens in the face oval's box on the grid (a quarter of it).
  const faceBox = ovalBox(g, mw, mh, x0, y0, step);
  const features = featureMask(g, faceBox, x0, y0, step, (x, y) => {
    if (x < 0 || y < 0 || x >= img.width || y >= img.height) return 0;
    const o = (y * img.width + x) * 3, d = img.data;
    const c = cellOf(d[o], d[o + 1], d[o + 2]) * 4;
    if (colour.cells[c] !== colour.cells[c]) colour.fill(c);
    return colour.cells[c] * (1 - colour.cells[c + 3]);
  });
  // Fading out toward the chin, or, with a beard or moustache (not the hair's to dye), from the nose's base
  // to the mouth corners.
  const mouthY = Math.min(g.pts[61][1], g.pts[291][1]);
  const bearded = hasBeard(img, g, skin.mean[0], faceBox, x0, y0, step);
  const strandBelow = bearded ? mouthY : chinY,
    strandFade = Math.max(1, bearded ? mouthY - g.pts[2][1] : chinY - mouthY);
  // Light hair dyed darker: each node's L* (see liftDarks).
  const nodeL = lightHair ? new Float32Array(mw * mh) : undefined;
  // The face oval, grown by FACE_ZONE_GROW (the forehead up to the mesh's top is skin, to the temples).
  const faceZone: Mask = { x: 0, y: 0, w: mw, h: mh, data: new Float32Array(mw * mh) };
  fillPolygon(
    faceZone,
    pick(g, FACE_OVAL).map(([x, y]): Point => [
      (cx + (x - cx) * FACE_ZONE_GROW - x0) / step + 0.5,
      (g.center[1] + (y - g.center[1]) * FACE_ZONE_GROW - y0) / step + 0.5,
    ]),
  );
  // Light hair darkened: a node's hair-likeness counts this much more (see LIGHT_HAIR_GAIN).
  const gain = lightHair ? LIGHT_HAIR_GAIN : HAIR_GAIN;
  const crown = topY - 0.5 * fh, neckY = chinY, fadeY = 0.3 * fh;
  // Long hair's band fades out from 1.0 to 1.5 face heights below the chin, where lengths end. A frame that ends
  // inside that fade cut the lengths off, not the hair: the fade moves down by as much as the frame cuts into
  // it (up to half a face height), so lengths that leave the frame are dyed to its edge. Faded there,
  // sample1@1438's and sample6@587's lengths paled out of the dye over the frame's last 40-60 px.
  const fallEnd = chinY + 1.5 * fh + Math.max(0, Math.min(0.5 * fh, chinY + 1.5 * fh - img.height));
  // The neck lies below the chin in the image, and just under the jaw along the face's own axis (its top to its
  // chin; see JAW_SHADE).
  const chin = g.pts[152], axis = Math.hypot(chin[0] - g.pts[10][0], chin[1] - topY);
  const faceDown = [(chin[0] - g.pts[10][0]) / axis, (chin[1] - topY) / axis];
  // An upright head keeps the neck below the chin only (10-20 degrees of tilt fade the axis's neck in).
  const tilted = Math.max(0, Math.min(1, (Math.abs(faceDown[0]) - TILT_FROM) / (TILT_FULL - TILT_FROM)));
  // How much a point `down` below the chin and `across` from the neck's axis is neck (pixels).
  const neckAt = (down: number, across: number) =>
    down <= 0 ? 0 : Math.min(1, down / (0.1 * fh)) *
      Math.max(0, Math.min(1, (NECK_HALF_WIDTH * fw - across) / (0.06 * fw)));
  // The room hair has, per node: beside and below the face from just above eye level down (see reachLengths
  // and LENGTH_RISE), and over the forehead above the brows (see softHairline).
  const lengthRoom = new Float32Array(mw * mh), softRoom = new Float32Array(mw * mh);
  // Light hair found by place: where her hair is visible by place alone, 1 left of the face's centre, 2 right
  // (see placeCoverage).
  const visible = forehead ? new Uint8Array(mw * mh) : undefined;
  // Per colour table cell (as the colour model's): whether its colour may be light hair (see lightHairColour).
  const hairColour = forehead ? new Int8Array(CN * CN * CN).fill(-1) : undefined;
  const browTop = Math.min(g.pts[105][1], g.pts[334][1]) - 0.03 * fh;
  // The lengths' room fades in over the rows above the eyes (see LENGTH_RISE).
  const riseSpan = LENGTH_RISE * fh, lengthTop = eyeY - riseSpan;
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
        const fall = Math.max(0, Math.min(1, (fallEnd - y) / (0.5 * fh)));
        prior = Math.max(prior, band * fall);
      }
      // The neck under the chin: long hair falls beside it, not over it, and
      // shaded neck skin is as dark and warm as blonde or brown hair.
      let inNeck = neckAt(y - neckY, Math.abs(x - cx));
      if (tilted > 0) {
        const down = (x - chin[0]) * faceDown[0] + (y - chin[1]) * faceDown[1];
        const jaw = neckAt(down, Math.abs((y - chin[1]) * faceDown[0] - (x - chin[0]) * faceDown[1])) *
          tilted *
          Math.max(0, Math.min(1, (JAW_SHADE + 0.1 - down / fh) / 0.1));
        if (jaw > inNeck) inNeck = jaw;
      }
      // Below the neck (the chest), lengths falling in front of the body may grow (see reachLengths, which
      // never enters the body's skin); the colour model's mask still keeps out of the neck's column there.
      const chest = Math.max(0, Math.min(1, (y - neckY - NECK_DEPTH * fh) / (NECK_DEPTH_FADE * fh)));
      // The node's pixel and its colour table cell.
      const o = (y * W + x) * 3;
      const c = cellOf(d[o], d[o + 1], d[o + 2]) * 4;
      // Hair lying in front of the neck is not the neck (see NECK_HAIR_BELOW); on the chest, clothes are.
      if (inNeck > 0 && chest < 1) {
        if (cells[c] !== cells[c]) colour.fill(c);
        if (cells[c] >= 0.5 && cells[c + 2] < 0.5) {
          inNeck *= Math.max(
            0,
            Math.min(1, (colour.cellL[c >> 2] / skin.mean[0] - NECK_HAIR_BELOW) / NECK_HAIR_FADE),
          );
        }
      }
      const lengthPrior = prior * Math.max(1 - inNeck, chest);
      prior *= 1 - inNeck;
      if (lengthPrior <= 0) continue;
      const k = j * mw + i;
      if (lightHair && faceZone.data[k] > 0.3) faceAt[k] = 1;
      // The forehead's skin above the mesh (light hair found by place only): never hair.
      const brow = forehead ? forehead.at(x, y) : 0;
      if (brow > 0.3) faceAt[k] = 1;
      const notFace = 1 - Math.min(1, sampleGrid(core, FACE_STEP, x, y));
      const inOval = Math.min(1, sampleGrid(ovalMask, FACE_STEP, x, y));
      if (notFace < 1 || inOval > 0.05) {
        if (cells[c] !== cells[c]) colour.fill(c);
        // A strand across the face (see reachStrands): hair-like, not skin-like, off the features, fading
        // out toward the chin (see strandBelow).
        const fade = Math.max(0, Math.min(1, (strandBelow - y) / strandFade));
        strandAt[k] = fade * (1 - maskAt(features, i, j)) * cells[c] * (1 - cells[c + 3]);
        strandRoom[k] = Math.min(1, 1.25 * p) * prior * hold;
        strandSkin[k] = cells[c + 3];
      }
      if (notFace <= 0) {
        gate[k] = 0;
        // Where a strand's edge meets the core, its pixels count only colours the model is sure of (see refine).
        ovalAt[k] = 1;
        continue;
      }
      if (inOval > 0.05) faceAt[k] = inOvalAt[k] = 1;
      if (cells[c] !== cells[c]) colour.fill(c);
      // Inside the (widened) face oval: hair only where the colour model is sure.
      gate[k] = notFace * (1 - inOval * (1 - cells[c + 1])) * (1 - brow);
      // A brow's tail outside the face core is as dark as dark hair (the mesh's brow lay 0.05 face widths
      // below sample6@1402's: its tail was dyed copper) and as yellow as light hair found by place. In the
      // face oval, off the brows' boxes (those keep only columns with no hair above: a fringe over the
      // brows is dyed).
      if (forehead || inOval > 0.05) gate[k] *= 1 - maskAt(features, i, j);
      // Light hair: on the forehead (the face oval grown, above the brows) too, only colours the model is sure of.
      if (lightHair) gate[k] *= 1 - Math.min(1, faceZone.data[k]) * (1 - cells[c + 1]);
      place[k] = inNeck > 0 ? 0 : Math.min(1, 1.25 * p) * prior * hold * (1 - below);
      // Never on the face and forehead (the face oval grown) nor under the chin:
      // skin in a coloured light (a forehead lit blue, a neck lit cyan) is as far
      // from the skin sampled on the cheeks as a strand is.
      const onFace = faceZone.data[k] > 0.3 || brow > 0.3;
      if (visible && hairColour && !onFace && inOval <= 0.05 && inNeck === 0 && p >= 0.8 && prior >= 0.5) {
        const cell = c >> 2;
        if (hairColour[cell] < 0) hairColour[cell] = lightHairColour(cell, skin.mean);
        if (y <= chinY && hairColour[cell]) visible[k] = x < cx ? 1 : 2;
      }
      const room = Math.min(1, 1.25 * p) * prior * hold;
      // (Lengths only well inside the person: its outline is often a neighbour's arm or the backdrop.)
      if (!onFace && y > lengthTop && 1.25 * p >= LENGTH_PERSON) {
        lengthRoom[k] = Math.min(1, 1.25 * p) * lengthPrior * hold * Math.min(1, (y - lengthTop) / riseSpan);
      }
      // (Off the brows: dark like hair, and near it at the temples.)
      // Faded in over SOFT_FEATHER at its sides and its bottom: cut along straight lines, the room's rectangle
      // showed in lighter hair as a straight-edged patch dyed as blends (see hairlineZone).
      const side = Math.min(1, (SOFT_HALF_WIDTH * fw - Math.abs(x - cx)) / (SOFT_FEATHER * fw) + 0.5);
      const top = Math.min(1, (browTop - y) / (SOFT_FEATHER * fw));
      if (side > 0 && top > 0) softRoom[k] = room * (1 - maskAt(features, i, j)) * side * top;
      palePlace[k] = onFace || y > chinY ? 0 : place[k] * colour.pale[c >> 2];
      greyPlace[k] = onFace || y > eyeY ? 0 : place[k] * colour.greyPale[c >> 2];
      // Off the face only, and fading out below the chin with the clothes' weight (`below`): the forehead and
      // the neck keep the colour model's doubt. (For dark hair only colours not like the skin either: the ear's
      // rim and a lit temple are between.) Cut at the chin's row, lengths of middling likeness were dyed above
      // it and left below, along a straight line (sample3@1005).
      const likeness = faceAt[k] || (!lightHair && (cells[c + 3] > 0.15 || onFace))
        ? cells[c]
        : Math.min(1, (1 + (gain - 1) * (1 - below)) * cells[c]);
      mask.data[k] = Math.min(1, 1.25 * p) * prior * hold * likeness * (1 - below * cells[c + 2]);
      skinLike[k] = cells[c + 3] * (1 - colour.pale[c >> 2]);
      sureAt[k] = cells[c + 1] * (1 - cells[c + 2]);
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
  // Pale strands, sheen and the parting beside hair (see reachPale), which
  // the colour model left out (lighter than every hair colour it found): each
  // pixel of what they add is then kept unless it is clearly skin (see refine).
  const before = mask.data.slice();
  // One pixel per node decides its likeness: smoothed, a strand is not dotted with nodes left out.
  feather({ x: 0, y: 0, w: mw, h: mh, data: palePlace }, 1);
  const paleReach = Math.max(1, Math.round(PALE_REACH * fw / step));
  reachPale(mask, palePlace, paleReach);
  // Grey strands go on from there, each pass as far again (see GREY_PASSES).
  feather({ x: 0, y: 0, w: mw, h: mh, data: greyPlace }, 1);
  for (let pass = 0; pass < GREY_PASSES; pass++) reachPale(mask, greyPlace, paleReach);
  const filled = new Float32Array(mw * mh);
  for (let k = 0; k < filled.length; k++) filled[k] = Math.max(0, mask.data[k] - before[k]);
  for (let k = 0; k < gate.length; k++) mask.data[k] *= gate[k];
  const headRow = Math.ceil((eyeY - y0) / step);
  keepConnected(
    mask,
    Math.max(0, Math.ceil((chinY - DETACHED_ABOVE * fh - y0) / step)),
    headRow,
    sureAt,
    faceZone.data,
  );
  // Light hair, or dark lengths in front of the neck: clothes of the hair's colour below the chin are smooth,
  // the lengths are not (see dropSmoothCloth).
  const smooth = lightHair
    ? CLOTH_SMOOTH * skinTexture(img, neck.points)
    : lengthsInFront
    ? CLOTH_SMOOTH_FACE * skinTexture(img, faceSkinPoints(g))
    : 0;
  if (smooth > 0) {
    const clothRow = Math.max(0, Math.ceil((chinY - y0) / step));
    if (dropSmoothCloth(mask, lengthRoom, img, x0, y0, step, clothRow, smooth, fw)) {
      keepConnected(mask, clothRow, headRow, sureAt, faceZone.data);
    }
  }
  // A strand is a run of hair-coloured nodes: smoothed, scattered nodes between hair and skin (grey strands in
  // a strong light) fall below the threshold instead of leaving specks with a ragged edge.
  featherBox(strandAt, mw, faceBox, 1);
  reachStrands(mask, faceBox, strandAt, strandRoom, strandSkin, ovalAt, Math.ceil((eyeY - y0) / step));
  const mean: Lab = [sumL / sumW, sumA / sumW, sumB / sumW];
  // Lighter lengths the colour model left out (see reachLengths), and the soft hairline (see softHairline).
  const body = new BodySkin(skins, neck.skin);
  const lengths = reachLengths(
    mask,
    lengthRoom,
    img,
    x0,
    y0,
    step,
    body,
    colour,
    neck.points,
    faceSkinPoints(g),
    Math.ceil((chinY - y0) / step),
    Math.round((cx - x0) / step),
    Math.round(CLOTH_FADE * fh / step),
    Math.round(LENGTH_SKIN_DEPTH * fh / step),
  );
  const grown = lengths.grown, skinL = skin.mean[0];
  if (!lightHair) {
    bridgeSheen(mask, lengthRoom, img, x0, y0, step, colour, body, Math.round(SHEEN_BRIDGE * fw / step));
  }
  // Highlights in a coloured light, and light locks the colour model reads as skin, inside dyed hair (see
  // fillEnclosed).
  const locks = { colourAt: lengths.colourAt, skin: skin.mean };
  const enclosed = fillEnclosed(
    mask,
    grown,
    gate,
    faceAt,
    skinLike,
    place,
    lengthRoom,
    HOLE_MAX * fw / step,
    locks,
  );
  // Light hair found by place, dyed on one side of the head only (see recolorHair).
  const coverageOk = !visible || placeCoverage(mask.data, visible) >= PLACE_COVERAGE;
  const soft = !lightHair && skinL - mean[0] >= SOFT_CONTRAST
    ? softHairline(
      mask,
      softRoom,
      img,
      x0,
      y0,
      step,
      skinL,
      mean[0],
      Math.max(1, Math.round(SOFT_REACH * fw / step)),
    )
    : undefined;
  const lift = nodeL ? liftDarks(mask, nodeL, mean[0], LIFT_SPAN * fw / step) : undefined;
  const hairline = soft
    ? hairlineZone(faceZone, offHair(person, mask, grown, x0, y0, step), soft, HAIRLINE_REACH * fw / step)
    : undefined;
  // Lashes and brows the mesh missed, reached by a strand or the oval's fringe; then lashes past the mesh's eye
  // corners, outside the oval, reached from the hair at the face's edge (see eyeZones).
  dropLashLines(
    mask,
    skinLike,
    inOvalAt,
    Math.max(2, Math.round(LASH_RUN * fw / step)),
    (LASH_PIECE * fw / step) ** 2,
  );
  dropLashLines(
    mask,
    skinLike,
    eyeZones(g, mw, mh, x0, y0, step),
    Math.max(2, Math.round(EYE_LASH_RUN * fw / step)),
    (LASH_PIECE * fw / step) ** 2,
  );
  // Dark marks on the face that the hair reached only through the cheek's doubtful nodes (see dropFaceMarks).
  dropFaceMarks(
    mask,
    skinLike,
    headRow,
    Math.round(MARK_SIDE * fw / step),
    (MARK_AREA_SIDE * fw / step) ** 2,
  );
  // A shade far darker than the hair (see DEEPER_BY): hair the colour model half knew is closed up with the hair
  // about it (see DEEPER_CLOSE_FROM).
  if (deeper) {
    const onFace = new Uint8Array(mw * mh);
    for (let k = 0; k < onFace.length; k++) onFace[k] = faceZone.data[k] > 0.3 ? 1 : 0;
    closeHighlights(
      mask,
      place,
      onFace,
      Math.max(1, Math.round(HIGHLIGHT_CLOSE * fw / step)),
      (k) => Math.max(0, Math.min(1, (mask.data[k] - DEEPER_CLOSE_FROM) / DEEPER_CLOSE_FADE)),
    );
  }
  // The hair's lightness about each node, for a darker dye's deposit (see hair-deposit.ts).
  const baseL = hairLightness(img, mask, grown, x0, y0, step, fw);
  if (hairline) litHairApart(hairline, baseL, mean[0], skinL);
  const measure: PlanMeasure = {
    ovalAt,
    filled,
    grown,
    enclosed,
    soft,
    colour,
    body,
    like: lengths.like,
    chinY,
    fw,
    lobes: earLobes(g.pts, fw),
    // (The lengths' bytes count `grown`.)
    bytes: ovalAt.byteLength + filled.byteLength + (soft?.byteLength ?? 0) + (enclosed?.byteLength ?? 0) +
      colour.bytes + body.bytes + lengths.bytes,
  };
  return {
    confidence,
    lightHair,
    mask,
    step,
    x0,
    y0,
    x1,
    y1,
    mean,
    coverageOk,
    lift,
    baseL,
    eyeRow: (eyeY - y0) / step,
    hairline,
    skinL,
    measure,
    bytes: mask.data.byteLength + baseL.byteLength + (lift?.data.byteLength ?? 0) +
      (hairline?.byteLength ?? 0) +
      measure.bytes,
  };
}

/** Paints `plan`'s hair toward `target`. */
/**
 * The plan's dye strength per pixel on this canvas (see dyeStrengths), made once and kept with the plan: it
 * depends on the photo and the masks, not on the shade, so a restyle in another shade only paints.
 */
function strengthsOf(img: Canvas, plan: HairPlan): Strengths {
  if (plan.strengths) return plan.strengths;
  const { mask, step, y0, mean, skinL, measure } = plan, eyeY = y0 + plan.eyeRow * step;
  const { ovalAt, filled, grown, enclosed, soft, colour, body, chinY, like, lobes, fw } = measure!;
  const cells = colour.cells, d = img.data, W = img.width, mw = mask.w;
  // Light hair dyed darker at full strength (no roots held back: see planHair).
  const opacity = plan.lightHair ? 1 : OPACITY;
  // Where a grid cell straddles the hair's edge (the face, the scalp, the outline), each pixel's own colour
  // decides: hair up to the cell's strongest node, skin down to nothing (inside the hair, to its weakest node:
  // see INSIDE_HAIR). The grid alone left a 2-4 px band of half-dyed hair along the face.
  // A per-node plane down node column q at fraction fy of the way to the next node row (0 for a plane the
  // plan does not hold).
  const down = (p: Float32Array | undefined, q: number, fy: number) => p ? p[q] + (p[q + mw] - p[q]) * fy : 0;
  const refine: EdgeRefine = (row, from, x, y, n, hi, k, lo) => {
    // The planes at the pixel row: the face oval's weight (see ovalAt), the pale strands', the grown lengths',
    // the soft hairline's and the enclosed holes' strengths, at the cell's left and right node columns.
    const fy = (y - y0) / step - Math.floor((y - y0) / step);
    const ovL = down(ovalAt, k, fy), ovR = down(ovalAt, k + 1, fy);
    const flL = down(filled, k, fy), flR = down(filled, k + 1, fy);
    const grL = down(grown, k, fy), grR = down(grown, k + 1, fy);
    const sfL = down(soft, k, fy), sfR = down(soft, k + 1, fy);
    const enL = down(enclosed, k, fy), enR = down(enclosed, k + 1, fy);
    // Inside the hair (every node of the cell INSIDE_HAIR or more), a pixel keeps the weakest node's strength.
    const floor = lo >= INSIDE_HAIR * opacity ? lo : 0;
    for (let t = 0, o = (y * W + x) * 3; t < n; t++, o += 3) {
      const c = cellOf(d[o], d[o + 1], d[o + 2]) * 4;
      if (cells[c] !== cells[c]) colour.fill(c);
      const ov = ovL + (ovR - ovL) * (t / step), fl = flL + (flR - flL) * (t / step);
      const gr = grL + (grR - grL) * (t / step), sf = sfL + (sfR - sfL) * (t / step);
      // Grown lengths (see reachLengths): every pixel like the hair about it but the body's skin. The soft
      // hairline (see softHairline): each pixel by its own share of hair.
      const bodySkin = gr > 0.01 ? body.at(c >> 2) : 0;
      const len = gr > 0.01 ? gr * (1 - bodySkin) * like(d[o], d[o + 1], d[o + 2], k) : 0;
      const mix = sf > 0.01 ? softStrength(hairShare(d[o], d[o + 1], d[o + 2], skinL, mean[0]), sf) : 0;
      // In the oval's fringe above the chin, only colours the model is sure of.
      const hairness = cells[c] * (1 - ov) + (y < chinY ? cells[c + 1] * ov : 0);
      // Where pale strands filled the grid (see reachPale), every pixel but clear
      // skin takes the fill (the likeness per pixel flickers with the colour
      // table's cells: olive specks were left in dyed strands). Grey strands count where the fill reached above the
      // eyes (see GREY_PASSES).
      const strand = Math.max(colour.pale[c >> 2], fl > 0.01 && y < eyeY ? colour.greyPale[c >> 2] : 0),
        skin = Math.max(cells[c + 3] * (1 - strand), bodySkin),
        pale = fl * (1 - skin);
      // A pale strand is not skin to the edge decision, whatever its distance to the skin colour; nor is a
      // hole the hair encloses (a highlight lit blue is as far from the hair as skin lit blue).
      const hole = enL + (enR - enL) * (t / step);
      row[from + t] = Math.min(
        hi,
        Math.max(floor, row[from + t] * (1 - skin), hi * hairness, pale, len, mix, hole),
      );
    }
  };
  const smooth = { radius: atCanvasScale(EDGE_SMOOTH_RADIUS, img.width), eps: EDGE_SMOOTH_EPS };
  // Out of the dye: studs by the ear lobes (see clearStuds), and straps and other thin dark lines over the
  // skin below the chin (see clearThinLines).
  const lines = (plane: Float32Array, px: number, py: number, bw: number, bh: number) => {
    clearStuds(img, plane, px, py, bw, bh, lobes, fw);
    return clearThinLines(img, plane, px, py, bw, bh, Math.round(chinY), fw, colour);
  };
  plan.strengths = dyeStrengths(img, plan, opacity, refine, smooth, lines);
  // Painting reads the strengths alone from now on: the measure they were made from goes.
  plan.bytes += plan.strengths.data.byteLength - measure!.bytes;
  plan.measure = undefined;
  return plan.strengths;
}

function applyPlan(img: Canvas, plan: HairPlan, target: Lab, deeper: boolean): void {
  const strengths = strengthsOf(img, plan), { mean, skinL } = plan;
  // A second table per node: light hair dyed darker is lifted (see liftDarks); the soft hairline's pixels,
  // blends of hair and skin, are dyed as blends (see hairlineTable). The two never meet: the soft
  // hairline is traced on dark hair only.
  const second = plan.lift
    ? { data: plan.lift.data, lut: liftedTable(mean, target, plan.lift.amount) }
    : plan.hairline
    ? { data: plan.hairline, lut: hairlineTable(mean, target, (L) => hairShareAt(L, skinL, mean[0])) }
    : undefined;
  // Lighter hair takes a darker shade (see hair-deposit.ts).
  const deposit = depositDarkening(plan.baseL, plan.mask.w, plan.eyeRow, mean, target);
  // Far darker: painted at full strength, not OPACITY's (the strengths serve every shade; see DEEPER_BY).
  paintStrengths(
    img,
    strengths,
    plan,
    mean,
    target,
    second,
    deposit,
    deeper && !plan.lightHair ? 1 / OPACITY : 1,
  );
}

/**
 * Skin in other light: a forehead lit brighter than the mesh points (hair
 * pulled back, a high hairline) is lighter and a little paler than the skin
 * sampled on the face, in the same hue. Blonde hair as light is yellower (its
 * hue 15-30 degrees from the skin's) and dark hair holds far less chroma.
 */
function litSkin(c: Lab, skin: Lab): boolean {
  const dHue = hueGap(Math.atan2(c[2], c[1]), Math.atan2(skin[2], skin[1]));
  const chroma = Math.hypot(c[1], c[2]) / Math.max(1, Math.hypot(skin[1], skin[2]));
  return dHue < 10 && chroma > 0.65 && chroma < 1.5 && c[0] > skin[0] - 15;
}

/**
 * A light hair cluster, neither pale nor blonde, that is the nearest colour on this share of the nose is skin
 * in other light, whatever its hue. Under two lights the skin sampled on the face can be two colours: a
 * brunette lit blue from the front and warm from above had the warm half of her skin (forehead, nose,
 * shoulder) taken for hair, 77 degrees of hue from the blue half, and her shoulder dyed pale peach. On the
 * 16 test faces the hair's clusters are the nearest on at most 0.23 of the nose; skin clusters on 0.41-0.80.
 */
const NOSE_SKIN = 0.5;

/** A shade this many L* darker than a blonde hair colour counts as dyeing it darker. */
const DARKER_BY = 15;
/**
 * A shade this many L* darker than every colour of other hair is painted at full strength, as light hair dyed
 * darker is, not at OPACITY: a dye far darker than the hair covers it. At OPACITY, 12 % of sample3@1005's light
 * brown crown showed through Jet Black.
 */
const DEEPER_BY = 15;

/**
 * Blonde: a hair colour lighter than the skin (as the "mostly light" rule
 * counts it) and as saturated, yellow (hue 55-100 degrees) and yellower than
 * the skin. Pale light clusters (a grey top, a lit wall beside dark braids)
 * are not blonde hair, nor the orange of dark hair's lit side under a warm
 * light (hue 51 degrees on a brunette whose skin took a blue light).
 */
function blonde(c: Lab, skin: Lab): boolean {
  if (c[0] <= Math.max(BLONDE_MIN_L, skin[0] - BLONDE_BELOW_SKIN)) return false;
  const hue = hueDegrees(c[1], c[2]), d = hue - hueDegrees(skin[1], skin[2]);
  const yellower = wrapDegrees(d);
  return Math.hypot(c[1], c[2]) >= 0.75 * Math.hypot(skin[1], skin[2]) && yellower >= 10 && hue >= 55 &&
    hue <= 100;
}

/**
 * Below row `fromRow`, keeps only the hair connected to the head's hair (the rows above `seedRow`, eye level),
 * and detached pieces that touch the face's outline (`face`, the face oval grown) and whose colour is surely
 * hair (`sure`, per node: see DETACHED_SURE). Lengths fall from the
 * head; a garment the colour of the hair (the grey of a patterned top under pulled-back braids, sample3@1005's
 * dark brown shoulder under her light brown hair) shows as patches apart from it. Hair the face hides
 * (sample3@1372's curls under her jaw) is detached too, but it is the hair's own colour. A patch touching the
 * lengths stays (a known limit).
 */
function keepConnected(
  m: Mask,
  fromRow: number,
  seedRow: number,
  sure: Float32Array,
  face: Float32Array,
): void {
  const { w, h, data } = m;
  if (fromRow >= h) return;
  const seen = new Uint8Array(w * h);
  const flood = (stack: number[], piece?: number[]) => {
    while (stack.length) {
      const k = stack.pop()!, i = k % w;
      piece?.push(k);
      for (const n of [k - w, k + w, i > 0 ? k - 1 : -1, i < w - 1 ? k + 1 : -1]) {
        if (n >= 0 && n < w * h && !seen[n] && data[n] > LINK) seen[n] = 1, stack.push(n);
      }
    }
  };
  const heads: number[] = [];
  for (let k = 0; k < Math.min(seedRow, fromRow) * w; k++) if (data[k] > LINK) seen[k] = 1, heads.push(k);
  flood(heads);
  for (let k = fromRow * w; k < w * h; k++) {
    if (seen[k] || data[k] <= LINK) continue;
    seen[k] = 1;
    const piece: number[] = [];
    flood([k], piece);
    let s = 0, sw = 0, touches = false;
    for (const q of piece) s += sure[q] * data[q], sw += data[q], touches ||= face[q] > 0;
    if (touches && s >= DETACHED_SURE * sw) continue;
    for (const q of piece) if (q >= fromRow * w) data[q] = 0;
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

/**
 * Any other hair: hair-likeness off the face and above the chin counts this
 * much more (capped at 1). Strands between the hair's colour and the skin's
 * (olive or grey lights) had a likeness of 0.3-0.5 and were dyed at that
 * strength: the original showed through as a green or grey tint.
 */
const HAIR_GAIN = 1.4;

/**
 * A grid cell whose four nodes are all this strong lies inside the hair: its pixels' own colours refine its
 * strength down to its weakest node's, no further (see strengthsOf).
 */
const INSIDE_HAIR = 0.5;

/** The face oval's growth about the face centre where highlights are never filled in (see closeHighlights). */
const FACE_ZONE_GROW = 1.06;

/** Radius of the closing that fills highlight gaps in light hair, in face widths (see closeHighlights). */
const HIGHLIGHT_CLOSE = 0.1;

/**
 * A shade far darker than the hair (see DEEPER_BY) is painted at full strength, so hair the colour model half
 * knew shows as the photo's colour through the dye: sample1@1438's lit strawberry-blonde crown, half like her
 * skin, came out in brown blotches with the grid's edges under Jet Black. For such a shade the mask is closed
 * as light hair's is (see closeHighlights), but a node takes the closing's fill only as far as it is hair
 * itself: none at DEEPER_CLOSE_FROM or under, all of it from DEEPER_CLOSE_FROM + DEEPER_CLOSE_FADE. Filled
 * whole, the closing also dyed sample4@908's ear and sample3@1005's temples between her hair.
 */
const DEEPER_CLOSE_FROM = 0.3, DEEPER_CLOSE_FADE = 0.2;

/**
 * Light hair: highlight gaps narrower than 2r nodes (curls catching the light
 * between darker strands, at the hair's outline too) are filled by a closing
 * of the mask (dilate, then erode), softened over r/2 nodes (a square
 * closing's corners showed) and kept to where hair may be, off the face. With `share`, a node takes that
 * share (0-1) of what the closing adds to it.
 */
function closeHighlights(
  m: Mask,
  place: Float32Array,
  face: Uint8Array,
  r: number,
  share?: (k: number) => number,
): void {
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
      const raise = Math.min(v, place[k]) * fade - data[k], part = share ? share(k) : 1;
      if (raise > 0 && part > 0) data[k] += raise * part;
    }
  }
}

/**
 * Sheen across the lengths, in face widths: a gap between hair nodes up to twice this wide is bridged (see
 * bridgeSheen).
 */
const SHEEN_BRIDGE = 0.03;

/** A node this many L* lighter than the lightest hair colour is not the hair's sheen (an earring, the backdrop). */
const SHEEN_ABOVE = 30;

/**
 * The mask value the hair on each side of a bridged gap needs: hair, not the scattered partial nodes on clothes
 * (bridged from any value, the dyed dots on sample4@908's patterned top, sample5@1319's neighbour's navy dress
 * and sample3@1005's dark shoulder were filled in).
 */
const SHEEN_SIDES = 0.6;

/**
 * Sheen across the lengths: a light band where straight lengths catch the light lies far from every hair
 * colour sampled above the forehead (L* 45-50 over hair of L* 22 on sample6@1402) and, grey-olive, nearer the
 * skin than the hair by colour. Its nodes were left out of the mask one by one and its pixels were dyed or
 * not by the colour table cell they fell in: dyed lengths speckled with the original's grey-olive. A node in
 * the lengths' room with hair (SHEEN_SIDES) on both sides of it along a row, a column or a diagonal, within r
 * nodes, takes the weaker side's value, up to the room. A node is not bridged when any of four pixels of its
 * cell is lighter than the lightest hair colour by SHEEN_ABOVE (the node's own pixel alone: sample6@1402's
 * hoop earring, between bridged nodes, went white under Honey Blonde) or in the body's skin colours. Gaps
 * that open onto the outline are not bridged: it needs hair on both sides (a closing, tried first, grew the
 * outline onto the neck and straps).
 */
function bridgeSheen(
  m: Mask,
  room: Float32Array,
  img: Canvas,
  x0: number,
  y0: number,
  step: number,
  colour: ColourModel,
  body: BodySkin,
  r: number,
): void {
  const { w, h } = m, src = m.data.slice(), data = m.data, d = img.data, W = img.width;
  const lightest = Math.max(...colour.hair.map((s) => s.mean[0]));
  // The four lines across a node (once, not an array per node: this runs over every node in the room).
  const lines = Int32Array.of(1, w, w + 1, w - 1);
  for (let j = r; j < h - r; j++) {
    for (let i = r; i < w - r; i++) {
      const k = j * w + i;
      if (!(room[k] > data[k])) continue;
      let across = 0;
      for (let l = 0; l < 4; l++) {
        const e = lines[l];
        let a = 0, b = 0;
        for (let t = 1; t <= r; t++) a = Math.max(a, src[k - t * e]), b = Math.max(b, src[k + t * e]);
        across = Math.max(across, Math.min(a, b));
      }
      if (across < SHEEN_SIDES || across <= data[k]) continue;
      let sheen = true;
      for (let q = 0; q < 4 && sheen; q++) {
        const x = Math.min(W - 1, x0 + i * step + (q & 1) * 2),
          y = Math.min(img.height - 1, y0 + j * step + (q >> 1) * 2);
        const o = (y * W + x) * 3, cell = cellOf(d[o], d[o + 1], d[o + 2]);
        if (colour.cells[cell * 4] !== colour.cells[cell * 4]) colour.fill(cell * 4);
        if (colour.cellL[cell] > lightest + SHEEN_ABOVE || body.at(cell) >= 0.5) sheen = false;
      }
      if (sheen) data[k] = Math.min(across, room[k]);
    }
  }
}

/**
 * How far from hair a pale strand is taken with it, in face widths: the
 * parting, grey, sheen or olive strands between and beside darker ones (left
 * as they were, they read as a green or grey seam in dyed hair).
 */
const PALE_REACH = 0.05;

/**
 * Pale strands (`pale`: where hair may be x the colour model's pale-strand
 * likeness) within r nodes of the hair take the hair's mask value, up to
 * their likeness: a running max over the mask (rows, then columns).
 */
function reachPale(m: Mask, pale: Float32Array, r: number): void {
  const { w, h, data } = m;
  // Only about the pale nodes (a grey pass's are a small patch above the eyes: see maxNear).
  const box = boxOver(pale, w, h, 0.05);
  if (!box) return;
  const { near, wx0, wy0, ww } = maxNear(data, w, h, r, box);
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0, k = y * w + x; x <= box.x1; x++, k++) {
      if (pale[k] > 0.05) data[k] = Math.max(data[k], Math.min(near[(y - wy0) * ww + x - wx0], pale[k]));
    }
  }
}

/**
 * Grey pale strands (far less chromatic than the skin: see ColourModel's greyPale), above the eyes and off the
 * face zone, are reached this many times more, each time PALE_REACH further from the hair: a tuft of dark hair lit
 * grey at the temple is wider than one reach (sample5@727: ~60 px at 1080x1920, left grey in copper hair). Skin
 * keeps its chroma, so a blonde's forehead, as pale as her hair, is not reached further.
 */
const GREY_PASSES = 2;

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
function liftDarks(m: Mask, nodeL: Float32Array, meanL: number, sigma: number): HairPlan["lift"] {
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

/** How far (Gaussian sigma, face widths) outside the face oval the hairline's blends are looked for. */
const HAIRLINE_REACH = 0.04;
/**
 * The soft hairline's plane counts as blends of hair and skin within this many HAIRLINE_REACH sigmas of
 * the skin (see hairlineZone): at 2, the band under sample6@1402's hairline lay 4.23 ΔE off the blend of
 * dyed hair and forehead (3.21 in the photo; 4.13 at 3).
 */
const SOFT_NEAR = 3;

/**
 * Where dark hair meets lighter skin (the forehead, the temples, the cheeks beside the hair, a shoulder or a
 * neck), the pixels between them blend the two: the (widened) face oval and the person off the hair (see
 * offHair), feathered by `sigma` nodes, and the soft hairline within SOFT_NEAR sigmas of them. The hairline
 * table (see hairlineTable in lab-shift.ts) dyes them as blends; a pixel of hair alone there takes the
 * strands' recolour as anywhere. Not the whole soft hairline: its plane reaches over all the hair above the
 * brows, whose lighter strands, dyed as blends, stayed greyer than the hair beside them, in a rectangle with
 * a straight edge at the brows' line (sample6@587). Not along the lengths' outline either: light lengths
 * there (blends of strands, not of hair and skin) were dyed pink.
 */
function hairlineZone(faceZone: Mask, person: Float32Array, soft: Float32Array, sigma: number): Float32Array {
  const zone: Mask = { ...faceZone, data: faceZone.data.slice() };
  for (let k = 0; k < zone.data.length; k++) zone.data[k] = Math.max(zone.data[k], person[k]);
  const near: Mask = { ...zone, data: zone.data.slice() };
  feather(zone, sigma);
  feather(near, SOFT_NEAR * sigma);
  const out = new Float32Array(zone.data.length);
  for (let k = 0; k < out.length; k++) {
    out[k] = Math.min(1, Math.max(2 * zone.data[k], soft[k] * Math.min(1, 4 * near.data[k])));
  }
  return out;
}

/**
 * Where the hair about a node (see hairLightness) is lit to within this share of the way from the hair's mean
 * lightness to the skin's, its pixels are not told apart from blends of hair and skin by their lightness: the
 * hairline's table (dyed as blends, by the hair's mean) is faded out from LIT_HAIR_FROM to LIT_HAIR_TO. Its lit
 * strands, dyed as blends, stayed light: under Jet Black, a light brown band along sample3@1005's hairline
 * (her hair there lies at 0.24-0.54 of the way; on the dark heads' soft hairlines at 0.2-0.5 on 0-190 nodes,
 * 0.5-1 on the rest).
 */
const LIT_HAIR_FROM = 0.6, LIT_HAIR_TO = 0.4;

/** Fades the hairline's table out where the hair about a node is lit (see LIT_HAIR_FROM), in place. */
function litHairApart(hairline: Float32Array, baseL: Float32Array, meanL: number, skinL: number): void {
  for (let k = 0; k < hairline.length; k++) {
    if (hairline[k] <= 0 || baseL[k] <= 0) continue;
    const gap = (skinL - baseL[k]) / (skinL - meanL);
    hairline[k] *= Math.max(0, Math.min(1, (gap - LIT_HAIR_TO) / (LIT_HAIR_FROM - LIT_HAIR_TO)));
  }
}

/**
 * The person off the hair on the mask grid (1 at nodes inside the person where neither `mask` nor `grown`
 * holds hair): the body's bare skin, and its clothes. Hair lying on a shoulder or a neck blends with it at
 * its edge as it does with the forehead; with dark clothes, the blends are as dark as the hair and take the
 * strands' recolour (see hairlineTable).
 */
function offHair(
  person: PersonMask,
  mask: Mask,
  grown: Float32Array,
  x0: number,
  y0: number,
  step: number,
): Float32Array {
  const out = new Float32Array(mask.w * mask.h);
  for (let j = 0; j < mask.h; j++) {
    for (let i = 0; i < mask.w; i++) {
      const k = j * mask.w + i;
      if (mask.data[k] <= 0.2 && grown[k] <= 0.2 && personAt(person, x0 + i * step, y0 + j * step) >= 0.5) {
        out[k] = 1;
      }
    }
  }
  return out;
}

/** Mask value above which neighbouring nodes count as one piece of hair (see keepConnected). */
const LINK = 0.15;

/**
 * A piece below the chin apart from the head's hair, touching the face's outline (hair the face hides), is kept
 * when its colour is this surely hair, weighted by its mask (see keepConnected). Measured (Auburn, 1080x1920):
 * sample3@1372's curls under her jaw 0.22; sample3@1005's dark brown shoulder 0.11; sample1@334's straps and
 * choker 0.03.
 */
const DETACHED_SURE = 0.2;

/**
 * Face heights above the chin from which pieces apart from the head's hair are dropped (see keepConnected): a
 * garment's lit edge beside the chin (sample3@1005's shoulder, 0.03 face heights above it) left there grew down
 * into the rest of the garment (see reachLengths).
 */
const DETACHED_ABOVE = 0.1;

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

/** A light hair colour found by place needs at least this separation from the skin (see lightByPlace). */
const PLACE_SEPARATION = 1;

/**
 * Light hair as pale as the skin, dyed darker (a blonde in a warm light on fair
 * skin, her high forehead blown out to the colour of her hair's highlights):
 * the colour samples above the forehead held as much forehead skin as hair, and
 * no hair colour stood MIN_SEPARATION from the skin. The forehead's own skin is
 * found first by place and texture (see foreheadZone) and left out of the
 * samples; a cluster of the rest is light hair when it is lighter than the skin
 * (as the "mostly light" rule counts it), not skin in other light, at least 10
 * degrees yellower than the skin in hue 55-100 (as blonde is: see blonde) with
 * at least half its chroma, separated from the skin by PLACE_SEPARATION, and
 * DARKER_BY L* or more lighter than the shade (only a darker shade: lightening
 * hair that cannot be told from skin stays refused). The forehead then never
 * takes the dye (see recolorHair).
 */
function lightByPlace(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  skinLab: Lab[],
  skin: AxisStats,
  target: Lab,
): { hair: AxisStats[]; skins: AxisStats[]; forehead: Forehead } | undefined {
  const forehead = foreheadZone(img, g);
  if (!forehead) return undefined;
  // The samples again, the forehead's skin out of the person (hairSamples keeps only what the person covers).
  const off: PersonMask = { ...person, data: person.data.slice() };
  for (let j = 0; j < off.h; j++) {
    for (let i = 0; i < off.w; i++) {
      if (forehead.at((i + 0.5) * off.step, (j + 0.5) * off.step) > 0.05) off.data[j * off.w + i] = 0;
    }
  }
  const samples = hairSamples(img, g, off);
  if (samples.length < 60) return undefined;
  const every = Math.ceil(samples.length / 1000);
  const pool = every > 1 ? samples.filter((_, i) => i % every === 0) : samples;
  const hair: AxisStats[] = [], skins: AxisStats[] = [];
  const skinHue = hueDegrees(skin.mean[1], skin.mean[2]);
  const skinC = Math.hypot(skin.mean[1], skin.mean[2]);
  for (const group of clusters(pool, 3)) {
    const s = axisStats(group), m = s.mean;
    if (litSkin(m, skin.mean)) {
      skins.push(s);
      continue;
    }
    const hue = hueDegrees(m[1], m[2]), yellower = wrapDegrees(hue - skinHue);
    const far = Math.hypot(m[0] - skin.mean[0], m[1] - skin.mean[1], m[2] - skin.mean[2]);
    if (
      m[0] > Math.max(BLONDE_MIN_L, skin.mean[0] - BLONDE_BELOW_SKIN) && yellower >= 10 && hue >= 55 &&
      hue <= 100 && Math.hypot(m[1], m[2]) >= 0.5 * skinC && far >= MIN_SKIN_DISTANCE &&
      group.length >= 0.12 * pool.length && target[0] < m[0] - DARKER_BY &&
      separation(group, skinLab) >= PLACE_SEPARATION
    ) hair.push(s);
  }
  return hair.length ? { hair, skins, forehead } : undefined;
}

/**
 * Light hair found by place is dyed only when each side of the head dyes at least this share of the hair visible
 * there by place (see placeCoverage). sample4@1216, her shaded side left blonde: 0.10-0.17 on four shots. On
 * heads the ordinary colour model dyes whole (a curly blonde, brown hair lit above lightHairColour's floor), the
 * worse side measures 0.42-0.91 (the estimate counts ears, temples and lit skin too).
 */
const PLACE_COVERAGE = 0.3;
/** A side of the head is judged when it holds at least this share of the hair visible by place. */
const PLACE_SIDE = 0.05;

/**
 * Whether a colour table cell (CN levels per channel) may be light hair in any light: not far darker than the
 * skin (light hair in shade is L* 50-60 on fair skin at 72; a neighbour's dark hair, a black top and the
 * backdrop between strands are far darker), with hair's or skin's hue and at least 0.4 of the skin's chroma
 * (not a grey wall or a white top). With the place (see recolorHair: well inside the person matte, in the head
 * and long-hair prior, off the face oval, the forehead and the neck, above the chin: below it the shoulders,
 * chest and clothes lie in the prior), it marks the hair visible by place (see placeCoverage).
 */
function lightHairColour(cell: number, skin: Lab): number {
  const c = new Float64Array(3), r = cell >> 10, g = (cell >> 5) & 31, b = cell & 31;
  linearToLabInto(c, SRGB_TO_LINEAR[r * 8 + 4], SRGB_TO_LINEAR[g * 8 + 4], SRGB_TO_LINEAR[b * 8 + 4]);
  if (c[0] < Math.max(35, skin[0] - 35)) return 0;
  const hue = hueDegrees(c[1], c[2]), skinHue = hueDegrees(skin[1], skin[2]);
  const off = wrapDegrees(hue - skinHue);
  return Math.hypot(c[1], c[2]) >= 0.4 * Math.hypot(skin[1], skin[2]) && off >= -25 && off <= 40 ? 1 : 0;
}

/**
 * How evenly light hair found by place is dyed: of the nodes `visible` marks on each side of the face (1:
 * image-left, 2: image-right; see lightHairColour), the share whose dye `mask` reaches 0.5, the lower of the two
 * sides that hold at least PLACE_SIDE of them. A head dyed on one side is half-dyed whatever the total.
 */
function placeCoverage(mask: Float32Array, visible: Uint8Array): number {
  const n = [0, 0, 0], dyed = [0, 0, 0];
  for (let k = 0; k < visible.length; k++) {
    if (!visible[k]) continue;
    n[visible[k]]++;
    if (mask[k] >= 0.5) dyed[visible[k]]++;
  }
  let worst = 1;
  for (const side of [1, 2]) {
    if (n[side] >= PLACE_SIDE * (n[1] + n[2])) worst = Math.min(worst, dyed[side] / n[side]);
  }
  return worst;
}

/** The forehead's skin, the face mesh's top included (0-1 at a canvas pixel; see foreheadZone). */
interface Forehead {
  at(x: number, y: number): number;
}

/** foreheadZone's grid: this many cells per face width (a strand is a few cells wide). */
const FOREHEAD_CELLS = 200;
/** How far above the mesh's top a forehead may reach, in face heights (see foreheadZone). */
const FOREHEAD_REACH = 0.4;
/** Strand texture: band-pass lightness this many times the forehead skin's median (in amplitude). */
const FOREHEAD_TEXTURE = 2;
/** A strand or a parting: this many L* darker than the forehead skin below it. */
const FOREHEAD_DARKER = 12;
/** The forehead's top is smooth across columns: the span (either side, in face widths) of its filter. */
const FOREHEAD_SPAN = 0.1;

/**
 * The skin of the forehead above the face mesh's top. On a high or strongly
 * lit forehead the mesh's oval stops well below the hairline (sample4@1216:
 * 0.3 face heights), and skin blown out to near white there has the colour of
 * light hair's highlights. Per column of a grid over the forehead, the skin is
 * followed up from just inside the oval's top until hair shows by something
 * other than its colour: strand texture (the lightness between 1 and 2.5
 * cells of scale, pooled, above FOREHEAD_TEXTURE times the forehead skin's
 * inside the oval: skin, even lit, is smooth there) or a strand or parting
 * darker than the skin below it; at most FOREHEAD_REACH above the mesh's top.
 * Hue is no evidence here: the blown-out skin near the hairline is as yellow as
 * the hair. A column that slipped up between strands is cut back to the 70th
 * percentile of its neighbours' reach (within FOREHEAD_SPAN).
 */
function foreheadZone(img: Canvas, g: FaceGeometry): Forehead | undefined {
  const s = Math.max(1, Math.round(g.fw / FOREHEAD_CELLS));
  const oval = pick(g, FACE_OVAL), xs = oval.map((p) => p[0]);
  const browY = Math.min(g.pts[105][1], g.pts[334][1]), topY = g.pts[10][1];
  const x0 = Math.max(0, Math.floor(Math.min(...xs) - 0.05 * g.fw)),
    y0 = Math.max(0, Math.floor(topY - FOREHEAD_REACH * g.fh));
  const gw = Math.floor((Math.min(img.width, Math.max(...xs) + 0.05 * g.fw) - x0) / s),
    gh = Math.floor((Math.min(img.height, browY) - y0) / s);
  if (gw < 8 || gh < 8) return undefined;
  // Each cell's L* (of its mean linear luminance).
  const L = new Float32Array(gw * gh), d = img.data, W = img.width, n = s * s;
  for (let j = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++) {
      let sum = 0;
      for (let y = y0 + j * s; y < y0 + j * s + s; y++) {
        for (let x = x0 + i * s, o = (y * W + x) * 3; x < x0 + i * s + s; x++, o += 3) {
          sum += luminance(SRGB_TO_LINEAR[d[o]], SRGB_TO_LINEAR[d[o + 1]], SRGB_TO_LINEAR[d[o + 2]]);
        }
      }
      const Y = sum / n;
      L[j * gw + i] = lightnessOf(Y);
    }
  }
  const fine = L.slice(), coarse = L.slice();
  blurPlane(fine, gw, gh, 1);
  blurPlane(coarse, gw, gh, 2.5);
  const E = new Float32Array(gw * gh);
  for (let k = 0; k < E.length; k++) E[k] = (fine[k] - coarse[k]) ** 2;
  blurPlane(E, gw, gh, 1.5);
  const inOval: Mask = { x: 0, y: 0, w: gw, h: gh, data: new Float32Array(gw * gh) };
  fillPolygon(inOval, oval.map(([x, y]): Point => [(x - x0) / s, (y - y0) / s]));
  const skinE: number[] = [];
  for (let k = 0; k < E.length; k++) if (inOval.data[k] > 0.5) skinE.push(E[k]);
  if (skinE.length < 20) return undefined;
  skinE.sort((a, b) => a - b);
  const smooth = FOREHEAD_TEXTURE ** 2 * Math.max(skinE[skinE.length >> 1], 0.05);
  // Per column: the oval's top row (-1: none) and the highest row the forehead's skin reaches.
  const ovalTop = new Int32Array(gw).fill(-1), reach = new Float32Array(gw).fill(NaN);
  for (let i = 0; i < gw; i++) {
    let r0 = -1;
    for (let j = 0; j < gh && r0 < 0; j++) if (inOval.data[j * gw + i] > 0.5) r0 = j;
    if (r0 < 0) continue;
    ovalTop[i] = r0;
    const start = Math.min(gh - 1, r0 + 3);
    // The skin's lightness, followed as the light changes up the forehead.
    let ref = L[start * gw + i], last = start + 1;
    for (let j = start; j >= 0; j--) {
      const k = j * gw + i;
      if (E[k] > smooth || L[k] < ref - FOREHEAD_DARKER) break;
      last = j;
      ref += (L[k] - ref) * 0.2;
    }
    reach[i] = last;
  }
  const half = Math.max(1, Math.round(FOREHEAD_SPAN * g.fw / s));
  const zone: Mask = { x: 0, y: 0, w: gw, h: gh, data: new Float32Array(gw * gh) };
  const near: number[] = [];
  for (let i = 0; i < gw; i++) {
    if (ovalTop[i] < 0) continue;
    near.length = 0;
    for (let q = Math.max(0, i - half); q < Math.min(gw, i + half + 1); q++) {
      if (reach[q] === reach[q]) near.push(reach[q]);
    }
    near.sort((a, b) => a - b);
    const top = Math.round(Math.max(near[Math.floor(0.7 * (near.length - 1))], reach[i]));
    for (let j = top; j <= Math.min(gh - 1, ovalTop[i] + 3); j++) zone.data[j * gw + i] = 1;
  }
  // Above the brows the face oval is the forehead's (on a turned head the mesh's brows lie below the real ones,
  // whose tails, as yellow as light hair and half dyed in the oval's fringe, showed as a pale blotch).
  for (let k = 0; k < zone.data.length; k++) if (inOval.data[k] > 0.5) zone.data[k] = 1;
  feather(zone, 1);
  return { at: (x, y) => maskAt(zone, Math.floor((x - x0) / s), Math.floor((y - y0) / s)) };
}
