/**
 * The vocabulary shared by the API, the image models and the client: studio
 * types, the selected-options keys and the makeup categories that take
 * an intensity. Pure data, no server imports, so the client may import it.
 */

export const STUDIO_TYPES = ["makeup", "hair", "barber"] as const;
export type StudioType = typeof STUDIO_TYPES[number];

export const ANGLES = ["front", "right", "left", "back"] as const;
export type Angle = typeof ANGLES[number];

/** Makeup categories that accept an intensity 0-100 (an addition of ours: the other keys take none). */
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

/** The selected-options object sent on generate, in the order the client sends them: the makeup keys first. */
export const OPTION_KEYS = [
  ...MAKEUP_CATEGORIES,
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

/** Output size: 9:16. */
export const OUTPUT_WIDTH = 1080;
export const OUTPUT_HEIGHT = 1920;

/**
 * Which catalogue list serves each option key, per section of GET /api/styling-options (hair and
 * barber share keys but not lists), in the order the studio shows the groups. The server validates
 * a choice against the same list the studio offers it from.
 */
export const OPTION_LISTS = {
  makeup: {
    lookStyle: "lookStyles",
    eyeshadow: "eyeshadow",
    lips: "lips",
    baseMakeup: "baseMakeup",
    cheeks: "cheeks",
    extras: "extras",
  },
  hair: { hairStyle: "styles", hairLength: "lengths", hairTexture: "textures", hairColor: "colors" },
  barber: {
    hairStyle: "hairStyles",
    hairLength: "hairLengths",
    hairTexture: "hairTextures",
    hairColor: "hairColors",
    facialHair: "facialHair",
    facialHairColor: "facialHairColors",
  },
  scene: {
    outfit: "outfits",
    shoesFootwear: "shoes",
    pose: "poses",
    accessories: "accessories",
    activity: "activities",
    setting: "settings",
    cameraLens: "camera",
    lighting: "lighting",
  },
} as const;
export type OptionSection = keyof typeof OPTION_LISTS;

/**
 * The display name of each option key: the studio's group titles, and the names the server's
 * notes, refusals and hosted-model prompts use for the same groups. The titles keep the studio's
 * landed wording ("Hair Color", as the option keys spell it); free-text sentences say "colour".
 */
export const OPTION_TITLES: Record<OptionKey, string> = {
  lookStyle: "Look Style",
  eyeshadow: "Eyeshadow",
  lips: "Lips",
  baseMakeup: "Base Makeup",
  cheeks: "Cheeks",
  extras: "Extras",
  hairStyle: "Hair Style",
  hairLength: "Hair Length",
  hairTexture: "Hair Texture",
  hairColor: "Hair Color",
  facialHair: "Facial Hair",
  facialHairColor: "Facial Hair Color",
  outfit: "Outfit",
  shoesFootwear: "Shoes & Footwear",
  pose: "Pose",
  accessories: "Accessories",
  activity: "Activity",
  setting: "Setting",
  cameraLens: "Camera Lens",
  lighting: "Lighting",
};

/**
 * The longest additional instructions a generation takes, in characters: the API's limit, the studio's text
 * box and what reaches a hosted model's prompt (one figure: the box allowed 500 and the prompt kept 500 of
 * the API's 1000, cutting the rest without a word).
 */
export const MAX_INSTRUCTION_CHARS = 1000;
