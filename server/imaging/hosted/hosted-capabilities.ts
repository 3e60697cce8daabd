/**
 * What a hosted generative model honours: every catalogue option of every
 * studio, additional instructions, product references and all four angles of
 * a 360° set. Nothing is unavailable.
 */
import { CATALOG } from "../../styling/catalog.ts";
import { ANGLES, type OptionKey } from "../../styling/option-keys.ts";
import type { ModelCapabilities } from "../image-model.ts";

const ids = (...lists: readonly { id: string }[][]) => [...new Set(lists.flat().map((e) => e.id))];

const EVERY_OPTION: Record<OptionKey, string[]> = {
  lookStyle: ids(CATALOG.makeup.lookStyles),
  eyeshadow: ids(CATALOG.makeup.eyeshadow),
  lips: ids(CATALOG.makeup.lips),
  baseMakeup: ids(CATALOG.makeup.baseMakeup),
  cheeks: ids(CATALOG.makeup.cheeks),
  extras: ids(CATALOG.makeup.extras),
  hairStyle: ids(CATALOG.hair.styles, CATALOG.barber.hairStyles),
  hairLength: ids(CATALOG.hair.lengths, CATALOG.barber.hairLengths),
  hairTexture: ids(CATALOG.hair.textures, CATALOG.barber.hairTextures),
  hairColor: ids(CATALOG.hair.colors, CATALOG.barber.hairColors),
  facialHair: ids(CATALOG.barber.facialHair),
  facialHairColor: ids(CATALOG.barber.facialHairColors),
  outfit: ids(CATALOG.scene.outfits),
  shoesFootwear: ids(CATALOG.scene.shoes),
  pose: ids(CATALOG.scene.poses),
  accessories: ids(CATALOG.scene.accessories),
  activity: ids(CATALOG.scene.activities),
  setting: ids(CATALOG.scene.settings),
  cameraLens: ids(CATALOG.scene.camera),
  lighting: ids(CATALOG.scene.lighting),
};

export const HOSTED_CAPABILITIES: ModelCapabilities = {
  angles: [...ANGLES],
  supported: EVERY_OPTION,
  unavailable: {},
};
