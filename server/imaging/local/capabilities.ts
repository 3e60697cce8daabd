/**
 * What the local model honours, and the user-facing notes for what it did not
 * apply. Options that need a generative model (a new cut, length or texture,
 * a beard on a shaven face, outfits, poses...) are declared unsupported.
 */
import { optionList } from "../../styling/catalog.ts";
import { EVERY_OPTION_ID } from "../catalog-ids.ts";
import type { Intensity, OptionKey, SelectedOptions, StudioType } from "../../styling/option-keys.ts";
import {
  MAKEUP_CATEGORIES,
  type MakeupCategory,
  OPTION_KEYS,
  OPTION_TITLES,
} from "../../styling/option-keys.ts";
import type { ModelCapabilities } from "../image-model.ts";

/** Why each option the local model keeps as photographed needs a generative model. */
const KEPT_AS_PHOTOGRAPHED: Partial<Record<OptionKey, string>> = {
  hairStyle: "A new haircut needs a generative image model; the local model keeps your own cut",
  hairLength: "A new hair length needs a generative image model; the local model keeps your own",
  hairTexture: "A new hair texture needs a generative image model; the local model keeps your own",
  facialHair: "A new beard style needs a generative image model; the local model only recolours facial hair",
  outfit: "Outfits need a generative image model; the local model keeps your clothes",
  shoesFootwear: "Shoes need a generative image model; the local model keeps the photo's framing",
  pose: "Poses need a generative image model; the local model keeps your pose",
  accessories: "Accessories need a generative image model",
  activity: "Activities need a generative image model",
};

/**
 * Every catalogue id of the options it renders; for the options it keeps as
 * photographed, only the list's first (no-op) entry.
 */
const SUPPORTED = Object.fromEntries(
  OPTION_KEYS.map((key) => {
    const all = EVERY_OPTION_ID[key];
    return [key, key in KEPT_AS_PHOTOGRAPHED ? all.slice(0, 1) : all];
  }),
) as Record<OptionKey, string[]>;

export const LOCAL_CAPABILITIES: ModelCapabilities = {
  angles: ["front"],
  supported: SUPPORTED,
  unavailable: {
    options: KEPT_AS_PHOTOGRAPHED,
    instructions: "Additional instructions need a generative image model; the local model cannot follow them",
    references: "Reference photos need a generative image model; the local model does not use them",
    view360: "The 360° view needs a generative image model; the local model renders the front view only",
  },
};

/**
 * An option key's name in notes, refusals and prompts: the studio's title of its group, so a
 * note names the group the user chose from.
 */
export function keyLabel(key: OptionKey): string {
  return OPTION_TITLES[key];
}

/** Notes for every non-default option this model does not apply. */
export function unsupportedNotes(
  options: Partial<SelectedOptions>,
  studio: StudioType,
  caps: ModelCapabilities = LOCAL_CAPABILITIES,
): string[] {
  const notes: string[] = [];
  for (const key of OPTION_KEYS) {
    const id = options[key];
    if (!id) continue;
    const list = optionList(key, studio);
    if (id === list[0].id) continue;
    if (caps.supported[key]?.includes(id)) continue;
    const label = list.find((e) => e.id === id)?.label ?? id;
    notes.push(`${keyLabel(key)} "${label}" is not supported by the local model`);
  }
  return notes;
}

/**
 * Why a generation failed when the photo took none of the changes asked for (RenderOutput.refused: a
 * hair colour it could not apply, a beard colour on a shaven face...), when that was learned only by
 * rendering it, after the charge: the job fails, and failing refunds it.
 */
export function nothingAppliedMessage(refusals: string[]): string {
  return `Nothing could be changed on this photo: ${
    refusals.join("; ")
  }. No image was made and your credits have been refunded.`;
}

/**
 * The same, when the model knew it before the charge (a preview of the same choices on the same photo was
 * refused, see ImageModel.knownRefusal): generate is refused and nothing moves.
 */
export function nothingAppliesMessage(refusals: string[]): string {
  return `Nothing could be changed on this photo: ${
    refusals.join("; ")
  }. Try another choice; you were not charged.`;
}

/** What a generation asks for, as the generate endpoint received it (options resolved). */
export interface Requested {
  studioType: StudioType;
  options: SelectedOptions;
  intensity: Intensity;
  instructions?: string | null;
  references?: number;
  view360?: boolean;
}

/**
 * Refused before any charge: the user asked for something, yet nothing they
 * asked for would change the image. Either every non-default option is one
 * the model cannot render, or a makeup option the model renders is set to
 * intensity 0, and what remains (instructions, references, 360) is ignored by
 * this model. Answers the user-facing reason, or null when the model would
 * change something (or when nothing was asked: the photo is only reframed).
 */
export function nothingToRender(req: Requested, caps: ModelCapabilities = LOCAL_CAPABILITIES): string | null {
  const asked: string[] = [];
  // Chosen and renderable, but at intensity 0 (said apart: the model could render them, the user turned them off).
  const zeroed: string[] = [];
  let renders = false;
  for (const key of OPTION_KEYS) {
    const id = req.options[key];
    const list = optionList(key, req.studioType);
    if (!id || id === list[0].id) continue;
    const supported = caps.supported[key]?.includes(id) ?? false;
    const zero = (MAKEUP_CATEGORIES as readonly string[]).includes(key) &&
      req.intensity[key as MakeupCategory] === 0;
    if (supported && !zero) renders = true;
    else if (supported) zeroed.push(key);
    else asked.push(key);
  }
  const instructions = !!req.instructions?.trim();
  const unavailable = caps.unavailable ?? {};
  if (instructions && !unavailable.instructions) renders = true;
  if ((req.references ?? 0) > 0 && !unavailable.references) renders = true;
  if (renders) return null;
  if (asked.length === 0 && zeroed.length === 0 && !instructions && !(req.references ?? 0)) return null;
  const what: string[] = asked.map((k) => keyLabel(k as OptionKey));
  if (instructions) what.push("additional instructions");
  if (req.references) what.push("reference photos");
  const off = zeroed.map((k) => keyLabel(k as OptionKey)).join(", ");
  const reasons = [
    what.length > 0 && `the local model cannot render what you chose (${what.join(", ")})`,
    off && `${off} at intensity 0 ${zeroed.length > 1 ? "change" : "changes"} nothing`,
  ].filter(Boolean).join(", and ");
  const fix = what.length > 0
    ? "Choose an option it can render"
    : "Raise the intensity or choose another option";
  return `Nothing to generate: ${reasons}, so the result would be your photo unchanged. ${fix}; you were not charged.`;
}
