/**
 * How the local renderer paints catalogue options that need more than a
 * colour: lipstick finishes, base makeup strengths, the layers an extras
 * option combines, the camera's framing, the settings' backdrops and the
 * lights' colour grades. Keyed by catalogue id; the catalogue itself (ids,
 * labels, swatch colours) stays the public list the studio shows. A list's
 * first (no-op) entry has no recipe.
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
  "skin-tint": { smoothing: 0.3, evening: 0.4, surface: "natural" },
  "light-coverage": { smoothing: 0.4, evening: 0.5, surface: "natural" },
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

/** How a setting's backdrop is painted (server/imaging/local/backdrop-painting.ts). */
export interface BackdropRecipe {
  /** solid or gradient studio paper, bokeh lights, or a named scene built from gradients and lights. */
  kind: "solid" | "gradient" | "bokeh" | "scene";
  /** Base colours, top to bottom. */
  colors: string[];
  /** Light colours for bokeh and scene highlights. */
  lights?: string[];
  /**
   * The scene's light behind the person (a low sun, a city's street lights, a lounge's lamps; its `from` points
   * away from the camera): it rims the person's outline and hair's edge on its side. The painting puts its side
   * where the photo was lit from (mirrored when that is the left), so it and the face's own light agree.
   */
  backlight?: LightSource;
}

export const BACKDROPS: Readonly<Record<string, BackdropRecipe>> = {
  "studio-white": { kind: "gradient", colors: ["#FBFAF8", "#DEDCD7"] },
  "studio-grey": { kind: "gradient", colors: ["#A9AAAD", "#5C5D61"] },
  "studio-black": { kind: "gradient", colors: ["#2E2E31", "#0B0B0C"] },
  "blush-pink": { kind: "gradient", colors: ["#F5D6D6", "#D49EA3"] },
  "pastel-gradient": { kind: "gradient", colors: ["#F9D5E5", "#D8C8F0", "#BFE3F2"] },
  "soft-bokeh": {
    kind: "bokeh",
    colors: ["#3B3346", "#1C1822"],
    lights: ["#FFD9A0", "#FFB38A", "#F7E6C4", "#C9B6FF"],
  },
  "beach-sunset": {
    kind: "scene",
    colors: ["#2E3B73", "#C65A6B", "#F59A5A", "#FFD38A", "#3F6E8C"],
    lights: ["#FFE2A8", "#FFC27A"],
    // The sun low over the sea, a little to the lit side of the person (see paintBeach).
    backlight: { from: [0.9, -0.15, -0.4], color: "#FFB866", strength: 1, falloff: 2, sheen: 0.35 },
  },
  "city-night": {
    kind: "scene",
    colors: ["#0B1026", "#1C2450", "#2B2A5C"],
    lights: ["#FFC36B", "#FF7A8A", "#7AD3FF", "#F9F3D9"],
    // The street's lights, below and behind (see paintCity).
    backlight: { from: [0.9, 0.1, -0.4], color: "#FFC36B", strength: 0.8, falloff: 2, sheen: 0.2 },
  },
  "golden-garden": {
    kind: "scene",
    colors: ["#F3E2A9", "#9DB86A", "#4E6B34"],
    lights: ["#FFF3C4", "#FFE08A"],
    // The sun high behind the trees: the hair's and shoulders' tops (see paintGarden's sky, brightest at the
    // top).
    backlight: { from: [0.4, -0.9, -0.35], color: "#FFE6A8", strength: 0.6, falloff: 2.5, sheen: 0.1 },
  },
  "luxury-lounge": {
    kind: "scene",
    colors: ["#4A2A1E", "#1E120D"],
    lights: ["#FFCE85", "#FFB060", "#FFE6B8"],
    // The table lamps at the sides (see paintLounge).
    backlight: { from: [0.9, -0.1, -0.4], color: "#FFB060", strength: 0.8, falloff: 2, sheen: 0.2 },
  },
};

/** A light source on the person (server/imaging/local/person-light.ts). */
export interface LightSource {
  /**
   * Where it shines from: x toward the side the photo was lit from (the brighter cheek), y down the frame, z
   * toward the camera; its length does not matter.
   */
  from: [number, number, number];
  /** Its colour (its strongest channel counts as 1). */
  color: string;
  /** Its share of the light on a surface facing it. */
  strength: number;
  /** How fast it falls off as a surface turns away (1: a broad light; higher: a grazing rim light). */
  falloff: number;
  /**
   * For a light from behind: linear light it adds where it shines, at full strength (a sun behind the person
   * glows through the hair's edge: a dark surface's own light, multiplied, stays dark).
   */
  sheen?: number;
}

/** The lights a lighting option puts on the person, over `ambient` (the photo's own light, scaled). */
export interface PersonLight {
  ambient: number;
  sources: LightSource[];
  /**
   * A fill that evens out the photo's own light: its first source's strength is set so that the cheeks'
   * luminance ratio (lit over far, as photographed) is taken to this power (0.5 halves the stops between them;
   * an evenly lit face gets no fill). `strength` is then the most it may reach.
   */
  evens?: number;
}

/**
 * The lighting options that are lights with a direction, not only a colour: the person is lit by them before
 * the frame's grade (GRADES). Warm, Cool and Black and White are the frame's colour alone.
 */
export const PERSON_LIGHTS: Readonly<Record<string, PersonLight>> = {
  // A hard key from high on the lit side; the far side falls into shadow.
  "dramatic": {
    ambient: 0.45,
    sources: [{ from: [0.8, -0.45, 0.5], color: "#FFF8EE", strength: 1.1, falloff: 1 }],
  },
  // A low warm sun from the side, grazing the near cheek, shoulder and hair.
  "golden-hour": {
    ambient: 0.8,
    sources: [{ from: [0.9, -0.15, 0.4], color: "#FFB060", strength: 0.7, falloff: 1.5 }],
  },
  // A large soft source from the side the photo left in shadow, as strong as it takes to halve the stops between
  // the cheeks (see PersonLight.evens).
  "soft": {
    ambient: 1,
    sources: [{ from: [-1, -0.2, 0.4], color: "#FFFFFF", strength: 2, falloff: 1 }],
    evens: 0.5,
  },
  // Two coloured signs at both sides: magenta on the lit side, cyan on the other, in the night's dim light.
  "neon": {
    ambient: 0.7,
    sources: [
      { from: [1, -0.1, 0.3], color: "#FF3CC8", strength: 1, falloff: 2 },
      { from: [-1, -0.1, 0.3], color: "#3CD2FF", strength: 1, falloff: 2 },
    ],
  },
};

/** A light's colour grade over the finished frame (server/imaging/local/scene.ts). */
export interface GradeRecipe {
  /** Colour temperature shift -1 (cool) .. 1 (warm). */
  warmth: number;
  /** Contrast multiplier around mid grey. */
  contrast: number;
  /** Saturation multiplier. */
  saturation: number;
  /** Exposure shift in stops. */
  exposure: number;
  /** Optional tint colour mixed into highlights. */
  tint?: string;
  /** Vignette strength 0-1. */
  vignette?: number;
}

export const GRADES: Readonly<Record<string, GradeRecipe>> = {
  "warm": { warmth: 0.5, contrast: 1.03, saturation: 1.05, exposure: 0 },
  "cool": { warmth: -0.5, contrast: 1.02, saturation: 0.97, exposure: 0 },
  "golden-hour": {
    warmth: 0.8,
    contrast: 1.05,
    saturation: 1.12,
    exposure: 0.1,
    tint: "#FFB347",
    vignette: 0.25,
  },
  "dramatic": { warmth: 0, contrast: 1.3, saturation: 0.9, exposure: -0.15, vignette: 0.5 },
  "soft": { warmth: 0.1, contrast: 0.88, saturation: 0.98, exposure: 0.12 },
  "neon": {
    warmth: -0.4,
    contrast: 1.15,
    saturation: 1.2,
    exposure: -0.05,
    tint: "#C06BFF",
    vignette: 0.35,
  },
  "black-and-white": { warmth: 0, contrast: 1.12, saturation: 0, exposure: 0 },
};
