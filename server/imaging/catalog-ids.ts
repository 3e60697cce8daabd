/**
 * Every catalogue id each option key accepts, over all studios: a key served
 * by two lists (the Hair and Barber studios' hair colours) gets their union.
 * Model capabilities are written against this table.
 */
import { CATALOG } from "../styling/catalog.ts";
import type { OptionKey } from "../styling/option-keys.ts";

const ids = (...lists: readonly { id: string }[][]) => [...new Set(lists.flat().map((e) => e.id))];

export const EVERY_OPTION_ID: Readonly<Record<OptionKey, string[]>> = {
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
