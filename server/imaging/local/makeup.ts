/**
 * Glam Studio makeup: resolves a look preset and the explicit choices into a
 * plan of layers, then paints them in order (base, contour/bronzer, blush,
 * freckles, highlighter, eyeshadow, brows, eyeliner, lashes, lipstick). Each
 * layer rasterises a polygon from the face mesh over the face's region only,
 * feathers it with a Gaussian scaled to the face width, and blends a
 * texture-preserving effect.
 */
import { CATALOG, type CatalogEntry, type LookStyleEntry } from "../../styling/catalog.ts";
import type { Intensity, SelectedOptions } from "../../styling/option-keys.ts";
import { baseLayer } from "./base-makeup.ts";
import type { Canvas } from "./blend.ts";
import {
  blushLayer,
  bronzerLayer,
  contourLayer,
  frecklesLayer,
  highlighterLayer,
} from "./cheeks-and-face.ts";
import { type EyeContours, eyeContours } from "./eye-contour.ts";
import { browLayer, eyeshadowLayer, lashLayer, linerLayer } from "./eye-makeup.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { lipsLayer, primeLips } from "./lips.ts";
import { clamp01 } from "./ramps.ts";
import { EXTRA_LAYERS, type ExtraLayer } from "./recipes.ts";

export interface MakeupPlan {
  base?: { entry: CatalogEntry; t: number };
  cheeks?: { entry: CatalogEntry; t: number };
  eyeshadow?: { entry: CatalogEntry; t: number };
  lips?: { entry: CatalogEntry; t: number };
  extras: { layer: ExtraLayer; t: number }[];
}

const byId = <T extends CatalogEntry>(list: readonly T[], id: string | undefined) =>
  id ? list.find((e) => e.id === id) : undefined;

/** Resolves the look preset and the explicit choices into layers (explicit choices win). */
export function planMakeup(
  options: SelectedOptions,
  intensity: Intensity,
): MakeupPlan {
  const m = CATALOG.makeup;
  const look = byId<LookStyleEntry>(m.lookStyles, options.lookStyle);
  const preset = look?.preset ?? {};
  const lookT = clamp01(intensity.lookStyle / 100);
  const choose = <T extends CatalogEntry>(
    list: readonly T[],
    key: "eyeshadow" | "lips" | "baseMakeup" | "cheeks" | "extras",
  ): { entry: T; t: number } | undefined => {
    const explicit = options[key];
    if (explicit && explicit !== list[0].id) {
      const entry = byId(list, explicit);
      if (entry) return { entry, t: clamp01(intensity[key] / 100) };
    }
    const fromPreset = byId(list, preset[key]);
    return fromPreset ? { entry: fromPreset, t: lookT } : undefined;
  };
  const extras = choose(m.extras, "extras");
  return {
    base: choose(m.baseMakeup, "baseMakeup"),
    cheeks: choose(m.cheeks, "cheeks"),
    eyeshadow: choose(m.eyeshadow, "eyeshadow"),
    lips: choose(m.lips, "lips"),
    extras: (extras ? EXTRA_LAYERS[extras.entry.id] ?? [] : []).map((layer) => ({
      layer,
      t: extras!.t,
    })),
  };
}

/**
 * The eye layers share one lid line found in the pixels (eyeContours, kept
 * with the geometry). Found here, on the photo as framed, before anything is
 * painted around the eyes (base, blush, highlighter, a hair colour on strands
 * near them): it compares the white of the eye with the skin's colour and
 * follows the lid above the corner. The renderer calls this before the hair
 * colour; applyMakeup calls it again (kept) for callers that do not.
 */
export function primeEyes(img: Canvas, g: FaceGeometry, plan: MakeupPlan): EyeContours | undefined {
  const has = (l: ExtraLayer) => plan.extras.find((e) => e.layer === l);
  const eyeLayers = [
    plan.eyeshadow?.entry.hex ? plan.eyeshadow : undefined,
    has("winged-eyeliner"),
    has("eyeliner"),
    has("lashes"),
  ];
  return eyeLayers.some((l) => l && l.t > 0) ? eyeContours(img, g) : undefined;
}

/**
 * Paints the plan's layers on `img`, in painting order. Answers how many eyes the eye layers
 * (shadow, liner, lashes) left bare because the mesh put them where the photo
 * shows only skin (EyeContour.onEye), and how many because hair covers them
 * (EyeContour.covered): 0 when no eye layer is planned; and
 * whether anything was painted (false when the plan has no layer above 0, or
 * only eye layers and both eyes were left bare). On a tilted head `g` is the
 * mesh measured upright (DetectedFace.uprightMesh) and `lipsG` the mesh as
 * found: the colour search that corrects a lip outline off the lips
 * (lips.ts) was tuned on that mesh, and on the upright one it did not
 * trigger where the outline stops inside a full lower lip (sample1@1438: 76%
 * of the lips painted against 95%). `exposure` lights a light eye shadow (see eyeshadowLayer) and sets the
 * blush's strength (see blushLayer): the photo's, as the renderer measured it before anything was painted;
 * measured by each layer when not given.
 */
export function applyMakeup(
  img: Canvas,
  g: FaceGeometry,
  plan: MakeupPlan,
  lipsG: FaceGeometry = g,
  exposure?: number,
): { bareEyes: number; coveredEyes: number; painted: boolean } {
  const has = (l: ExtraLayer) => plan.extras.find((e) => e.layer === l);
  const wing = has("winged-eyeliner"), liner = has("eyeliner"), lashes = has("lashes");
  const eyes = primeEyes(img, g, plan);
  // The lips are found on the photo too, before the base, contour or blush paint around them.
  if (plan.lips && plan.lips.t > 0) primeLips(img, lipsG);
  if (plan.base && plan.base.t > 0) baseLayer(img, g, plan.base.entry, plan.base.t);
  const contour = has("contour");
  if (contour) contourLayer(img, g, contour.t);
  const bronzer = has("bronzer");
  if (bronzer) bronzerLayer(img, g, bronzer.t);
  if (plan.cheeks?.entry.hex) blushLayer(img, g, plan.cheeks.entry.hex, plan.cheeks.t, exposure);
  const freckles = has("freckles");
  if (freckles) frecklesLayer(img, g, freckles.t);
  const hl = has("highlighter");
  if (hl) highlighterLayer(img, g, hl.t);
  if (plan.eyeshadow?.entry.hex) {
    eyeshadowLayer(img, g, plan.eyeshadow.entry.hex, plan.eyeshadow.t, exposure);
  }
  const brows = has("brows");
  if (brows) browLayer(img, g, brows.t);
  if (wing || liner) linerLayer(img, g, (wing ?? liner)!.t, !!wing);
  if (lashes) lashLayer(img, g, lashes.t);
  if (plan.lips && plan.lips.t > 0) lipsLayer(img, lipsG, plan.lips.entry, plan.lips.t);
  const bareEyes = eyes ? [eyes.right, eyes.left].filter((e) => !e.onEye).length : 0;
  const coveredEyes = eyes ? [eyes.right, eyes.left].filter((e) => e.covered).length : 0;
  const on = (l: { t: number } | undefined) => !!l && l.t > 0;
  const faceLayers = [
    plan.base,
    plan.cheeks?.entry.hex ? plan.cheeks : undefined,
    plan.lips,
    contour,
    bronzer,
    freckles,
    hl,
    brows,
  ];
  // `eyes` is found exactly when an eye layer is planned above 0 (primeEyes).
  const painted = faceLayers.some(on) || (!!eyes && bareEyes + coveredEyes < 2);
  return { bareEyes, coveredEyes, painted };
}
