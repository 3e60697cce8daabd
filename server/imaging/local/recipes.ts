/**
 * How the local renderer paints catalogue options that need more than a
 * colour: lipstick finishes, base makeup strengths, the layers an extras
 * option combines, and the camera's framing. Keyed by catalogue id; the
 * catalogue itself (ids, labels, swatch colours) stays the public list the
 * studio shows. A list's first (no-op) entry has no recipe.
 */

export type LipFinish = "matte" | "satin" | "gloss";

export const LIP_FINISH: Readonly<Record<string, LipFinish>> = {
  "classic-red-matte": "matte",
  "nude-satin": "satin",
  "rose-satin": "satin",
  "berry-gloss": "gloss",
  "coral-gloss": "gloss",
  "petal-pink-gloss": "gloss",
  "plum-matte": "matte",
  "brick-red-matte": "matte",
  "mauve-satin": "satin",
  "fuchsia-satin": "satin",
  "wine-matte": "matte",
  "clear-gloss": "gloss",
};

export interface BaseRecipe {
  /** Skin smoothing 0-1 (how much fine texture is softened). */
  smoothing: number;
  /** Tone evening 0-1 (how far blotches move toward the mean skin tone). */
  evening: number;
  /** Surface: matte reduces shine, dewy adds a soft sheen, natural keeps it. */
  surface: "matte" | "natural" | "dewy";
}

/** Base makeup; an entry's catalogue colour, when it has one, tints the skin toward it. */
export const BASE_RECIPES: Readonly<Record<string, BaseRecipe>> = {
  "skin-tint": { smoothing: 0.25, evening: 0.25, surface: "natural" },
  "light-coverage": { smoothing: 0.35, evening: 0.4, surface: "natural" },
  "satin-finish": { smoothing: 0.5, evening: 0.55, surface: "natural" },
  "dewy-glow": { smoothing: 0.45, evening: 0.5, surface: "dewy" },
  "matte-full-coverage": { smoothing: 0.7, evening: 0.8, surface: "matte" },
  "airbrushed": { smoothing: 0.85, evening: 0.85, surface: "matte" },
  "warm-foundation": { smoothing: 0.5, evening: 0.6, surface: "natural" },
  "brightening": { smoothing: 0.45, evening: 0.5, surface: "dewy" },
};

/** The layers an extras option paints. */
export type ExtraLayer =
  | "highlighter"
  | "lashes"
  | "eyeliner"
  | "winged-eyeliner"
  | "brows"
  | "contour"
  | "bronzer"
  | "freckles";

export const EXTRA_LAYERS: Readonly<Record<string, readonly ExtraLayer[]>> = {
  "highlighter": ["highlighter"],
  "defined-lashes": ["lashes"],
  "winged-eyeliner": ["winged-eyeliner", "lashes"],
  "brow-definition": ["brows"],
  "contour": ["contour"],
  "bronzer": ["bronzer"],
  "defined-lashes-liner": ["lashes", "eyeliner"],
  "highlighter-lashes": ["highlighter", "lashes"],
  "bronzer-highlighter": ["bronzer", "highlighter"],
  "graphic-liner-contour": ["winged-eyeliner", "contour", "brows"],
  "full-glam": ["eyeliner", "lashes", "brows", "highlighter", "contour"],
  "faux-freckles": ["freckles"],
};

export interface CameraRecipe {
  /** Face width as a fraction of the output width (framing). */
  faceWidth: number;
  /** Background blur strength 0-1 (0 none). */
  backgroundBlur: number;
}

export const CAMERA_RECIPES: Readonly<Record<string, CameraRecipe>> = {
  "close-up": { faceWidth: 0.62, backgroundBlur: 0.3 },
  "portrait-85mm": { faceWidth: 0.42, backgroundBlur: 0.8 },
  "head-and-shoulders": { faceWidth: 0.38, backgroundBlur: 0.35 },
  "half-body": { faceWidth: 0.26, backgroundBlur: 0.25 },
  "full-frame": { faceWidth: 0.18, backgroundBlur: 0 },
  "shallow-depth": { faceWidth: 0.34, backgroundBlur: 1 },
};
