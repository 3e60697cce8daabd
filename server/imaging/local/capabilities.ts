/**
 * What the local model honours, and the user-facing notes for what it did not
 * apply. Options that need a generative model (a new cut, length or texture,
 * a beard on a shaven face, outfits, poses...) are declared unsupported.
 */
import { CATALOG, optionList } from "../../styling/catalog.ts";
import type { OptionKey, SelectedOptions, StudioType } from "../../styling/option-keys.ts";
import { OPTION_KEYS } from "../../styling/option-keys.ts";
import type { ModelCapabilities } from "../image-model.ts";

const ids = (...lists: readonly { id: string }[][]) => [...new Set(lists.flat().map((e) => e.id))];

export const LOCAL_CAPABILITIES: ModelCapabilities = {
  angles: ["front"],
  supported: {
    lookStyle: ids(CATALOG.makeup.lookStyles),
    eyeshadow: ids(CATALOG.makeup.eyeshadow),
    lips: ids(CATALOG.makeup.lips),
    baseMakeup: ids(CATALOG.makeup.baseMakeup),
    cheeks: ids(CATALOG.makeup.cheeks),
    extras: ids(CATALOG.makeup.extras),
    hairStyle: [CATALOG.hair.styles[0].id],
    hairLength: [CATALOG.hair.lengths[0].id],
    hairTexture: [CATALOG.hair.textures[0].id],
    hairColor: ids(CATALOG.hair.colors, CATALOG.barber.hairColors),
    facialHair: [CATALOG.barber.facialHair[0].id],
    facialHairColor: ids(CATALOG.barber.facialHairColors),
    outfit: [CATALOG.scene.outfits[0].id],
    shoesFootwear: [CATALOG.scene.shoes[0].id],
    pose: [CATALOG.scene.poses[0].id],
    accessories: [CATALOG.scene.accessories[0].id],
    activity: [CATALOG.scene.activities[0].id],
    setting: ids(CATALOG.scene.settings),
    cameraLens: ids(CATALOG.scene.camera),
    lighting: ids(CATALOG.scene.lighting),
  },
};

const KEY_LABELS: Record<OptionKey, string> = {
  lookStyle: "Look style",
  eyeshadow: "Eyeshadow",
  lips: "Lips",
  baseMakeup: "Base makeup",
  cheeks: "Cheeks",
  extras: "Extras",
  hairStyle: "Hairstyle",
  hairLength: "Hair length",
  hairTexture: "Hair texture",
  hairColor: "Hair colour",
  facialHair: "Facial hair",
  facialHairColor: "Facial hair colour",
  outfit: "Outfit",
  shoesFootwear: "Shoes",
  pose: "Pose",
  accessories: "Accessories",
  activity: "Activity",
  setting: "Setting",
  cameraLens: "Camera",
  lighting: "Lighting",
};

export function keyLabel(key: OptionKey): string {
  return KEY_LABELS[key];
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
    notes.push(`${KEY_LABELS[key]} "${label}" is not supported by the local model`);
  }
  return notes;
}
