/**
 * The vocabulary shared by the API, the image models and the client: studio
 * types, the spec's selected-options keys and the makeup categories that take
 * an intensity. Pure data, no server imports, so the client may import it.
 */

export const STUDIO_TYPES = ["makeup", "hair", "barber"] as const;
export type StudioType = typeof STUDIO_TYPES[number];

export const ANGLES = ["front", "right", "left", "back"] as const;
export type Angle = typeof ANGLES[number];

/** The selected-options object sent on generate (spec section 3), in spec order. */
export const OPTION_KEYS = [
  "lookStyle",
  "eyeshadow",
  "lips",
  "baseMakeup",
  "cheeks",
  "extras",
  "hairStyle",
  "hairLength",
  "hairTexture",
  "hairColor",
  "facialHair",
  "facialHairColor",
  "outfit",
  "shoesFootwear",
  "pose",
  "accessories",
  "activity",
  "setting",
  "cameraLens",
  "lighting",
] as const;
export type OptionKey = typeof OPTION_KEYS[number];

/** Every option key mapped to a catalog entry id (the default entry when untouched). */
export type SelectedOptions = Record<OptionKey, string>;

/** Makeup categories that accept an intensity 0-100 (beyond the spec). */
export const MAKEUP_CATEGORIES = [
  "lookStyle",
  "eyeshadow",
  "lips",
  "baseMakeup",
  "cheeks",
  "extras",
] as const;
export type MakeupCategory = typeof MAKEUP_CATEGORIES[number];
export type Intensity = Record<MakeupCategory, number>;
export const DEFAULT_INTENSITY = 60;

/** Output size: 9:16. */
export const OUTPUT_WIDTH = 1080;
export const OUTPUT_HEIGHT = 1920;
