/**
 * The styling catalogue: every option the studios offer, as GET
 * /api/styling-options serves it. Pure data plus tiny helpers, no server
 * imports, so the client may import it.
 *
 * Each list's first entry is the default and a no-op. Ids are kebab-case and
 * stable (they are stored in generation history); labels are what users see.
 * Public fields: `{ id, label, hex?, description? }`, the options a look
 * style includes (`preset`) and, for settings and lights, the colours of their
 * preview tile (`swatch`). How the local renderer paints an option (lipstick
 * finish, base strengths, extras layers, camera framing, backdrops and colour
 * grades) lives with the renderer, in server/imaging/local/recipes.ts, keyed
 * by these ids.
 */
import type { OptionKey, SelectedOptions, StudioType } from "./option-keys.ts";
import { OPTION_KEYS, OPTION_LISTS } from "./option-keys.ts";

export interface CatalogEntry {
  id: string;
  label: string;
  /** Colour swatch for colour options, e.g. "#B22234". */
  hex?: string;
  description?: string;
}

/** A look style is a named combination of the other makeup layers (entry ids). */
export interface LookStyleEntry extends CatalogEntry {
  preset?: {
    eyeshadow?: string;
    lips?: string;
    baseMakeup?: string;
    cheeks?: string;
    extras?: string;
  };
}

export interface SettingEntry extends CatalogEntry {
  /** The backdrop's colours (top to bottom) for the setting's preview tile. */
  swatch?: string[];
}

export interface LightingEntry extends CatalogEntry {
  /** The light's preview tile: its highlight and shadow colours. */
  swatch?: string[];
}

const none = (label = "None"): CatalogEntry => ({ id: "none", label });
const sameAsReference: CatalogEntry = {
  id: "same-as-reference",
  label: "Same as reference image",
};

export const CATALOG = {
  makeup: {
    lookStyles: [
      { id: "no-makeup", label: "No Makeup" },
      {
        id: "natural",
        label: "Natural",
        description: "Even skin, a hint of blush and a nude lip",
        preset: {
          baseMakeup: "light-coverage",
          cheeks: "soft-peach",
          lips: "nude-satin",
          eyeshadow: "champagne",
          extras: "brow-definition",
        },
      },
      {
        id: "soft-glam",
        label: "Soft Glam",
        description: "Warm shimmer, rosy cheeks, satin pink lip, highlight",
        preset: {
          baseMakeup: "satin-finish",
          cheeks: "dusty-rose",
          lips: "rose-satin",
          eyeshadow: "bronze",
          extras: "highlighter",
        },
      },
      {
        id: "smokey-eye",
        label: "Smokey Eye",
        description: "Charcoal shadow, defined lashes and liner, muted lip",
        preset: {
          baseMakeup: "matte-full-coverage",
          cheeks: "soft-peach",
          lips: "nude-satin",
          eyeshadow: "charcoal-smoke",
          extras: "defined-lashes-liner",
        },
      },
      {
        id: "bold-red-lip",
        label: "Bold Red Lip",
        description: "Classic red matte lip with a clean winged eye",
        preset: {
          baseMakeup: "matte-full-coverage",
          lips: "classic-red-matte",
          cheeks: "soft-peach",
          extras: "winged-eyeliner",
        },
      },
      {
        id: "bridal",
        label: "Bridal",
        description: "Luminous skin, champagne lids, pink lip, glow",
        preset: {
          baseMakeup: "dewy-glow",
          cheeks: "baby-pink",
          lips: "petal-pink-gloss",
          eyeshadow: "champagne",
          extras: "highlighter-lashes",
        },
      },
      {
        id: "editorial",
        label: "Editorial",
        description: "Graphic liner, bold plum lip, sculpted cheeks",
        preset: {
          baseMakeup: "matte-full-coverage",
          cheeks: "bronzed",
          lips: "plum-matte",
          eyeshadow: "plum",
          extras: "graphic-liner-contour",
        },
      },
      {
        id: "sun-kissed",
        label: "Sun-Kissed",
        description: "Bronzed warmth, peach cheeks, glossy coral lip",
        preset: {
          baseMakeup: "dewy-glow",
          cheeks: "coral-pop",
          lips: "coral-gloss",
          eyeshadow: "copper",
          extras: "bronzer-highlighter",
        },
      },
      {
        id: "evening-glam",
        label: "Evening Glam",
        description: "Deep smoky plum eye, berry lip, sculpted cheeks",
        preset: {
          baseMakeup: "matte-full-coverage",
          cheeks: "berry-flush",
          lips: "berry-gloss",
          eyeshadow: "plum",
          extras: "full-glam",
        },
      },
      {
        id: "no-makeup-makeup",
        label: "No-Makeup Makeup",
        description: "Skin like skin, only better",
        preset: {
          baseMakeup: "skin-tint",
          cheeks: "soft-peach",
          lips: "nude-satin",
          extras: "brow-definition",
        },
      },
    ] as LookStyleEntry[],
    eyeshadow: [
      none(),
      { id: "champagne", label: "Champagne Shimmer", hex: "#E8CDA8" },
      { id: "bronze", label: "Warm Bronze", hex: "#A0693A" },
      { id: "copper", label: "Copper", hex: "#B5652F" },
      { id: "taupe", label: "Soft Taupe", hex: "#8B7566" },
      { id: "rose-gold", label: "Rose Gold", hex: "#C98C7E" },
      { id: "charcoal-smoke", label: "Charcoal Smoke", hex: "#3A3838" },
      { id: "plum", label: "Plum", hex: "#5E2F4E" },
      { id: "navy", label: "Midnight Navy", hex: "#27324F" },
      { id: "emerald", label: "Emerald", hex: "#2F6B4F" },
      { id: "mauve", label: "Mauve", hex: "#9A6E84" },
      { id: "peach", label: "Peach", hex: "#E3A07E" },
    ] as CatalogEntry[],
    lips: [
      none(),
      {
        id: "classic-red-matte",
        label: "Classic Red (Matte)",
        hex: "#B22234",
      },
      {
        id: "nude-satin",
        label: "Nude Satin",
        hex: "#B57F6E",
      },
      {
        id: "rose-satin",
        label: "Rose Satin",
        hex: "#B9596A",
      },
      {
        id: "berry-gloss",
        label: "Berry Gloss",
        hex: "#8A2846",
      },
      {
        id: "coral-gloss",
        label: "Coral Gloss",
        hex: "#E0604F",
      },
      {
        id: "petal-pink-gloss",
        label: "Petal Pink Gloss",
        hex: "#D98494",
      },
      {
        id: "plum-matte",
        label: "Plum (Matte)",
        hex: "#5C2340",
      },
      {
        id: "brick-red-matte",
        label: "Brick Red (Matte)",
        hex: "#8E3B2F",
      },
      {
        id: "mauve-satin",
        label: "Mauve Satin",
        hex: "#94606F",
      },
      {
        id: "fuchsia-satin",
        label: "Fuchsia Satin",
        hex: "#C2276F",
      },
      {
        id: "wine-matte",
        label: "Deep Wine (Matte)",
        hex: "#5A1A2A",
      },
      {
        id: "clear-gloss",
        label: "Clear Gloss",
        description: "Adds shine, keeps your lip colour",
      },
    ] as CatalogEntry[],
    baseMakeup: [
      none(),
      {
        id: "skin-tint",
        label: "Skin Tint",
      },
      {
        id: "light-coverage",
        label: "Light Coverage",
      },
      {
        id: "satin-finish",
        label: "Satin Finish",
      },
      {
        id: "dewy-glow",
        label: "Dewy Glow",
      },
      {
        id: "matte-full-coverage",
        label: "Matte Full Coverage",
      },
      {
        id: "airbrushed",
        label: "Airbrushed",
      },
      {
        id: "warm-foundation",
        label: "Warm Foundation",
        hex: "#D9A47E",
      },
      {
        id: "brightening",
        label: "Brightening",
        hex: "#F1D2BE",
      },
    ] as CatalogEntry[],
    cheeks: [
      none(),
      { id: "soft-peach", label: "Soft Peach", hex: "#F2A48A" },
      { id: "dusty-rose", label: "Dusty Rose", hex: "#D1828B" },
      { id: "baby-pink", label: "Baby Pink", hex: "#F4A6B8" },
      { id: "coral-pop", label: "Coral Pop", hex: "#F27A62" },
      { id: "berry-flush", label: "Berry Flush", hex: "#B2476B" },
      { id: "bronzed", label: "Bronzed", hex: "#B0714A" },
      { id: "apricot", label: "Apricot", hex: "#EE9A63" },
      { id: "mauve-blush", label: "Mauve", hex: "#B07A8C" },
    ] as CatalogEntry[],
    extras: [
      none(),
      { id: "highlighter", label: "Highlighter" },
      { id: "defined-lashes", label: "Defined Lashes" },
      {
        id: "winged-eyeliner",
        label: "Winged Eyeliner",
      },
      { id: "brow-definition", label: "Brow Definition" },
      { id: "contour", label: "Contour" },
      { id: "bronzer", label: "Bronzer" },
      {
        id: "defined-lashes-liner",
        label: "Lashes + Liner",
      },
      {
        id: "highlighter-lashes",
        label: "Highlighter + Lashes",
      },
      {
        id: "bronzer-highlighter",
        label: "Bronzer + Highlighter",
      },
      {
        id: "graphic-liner-contour",
        label: "Graphic Liner + Contour",
      },
      {
        id: "full-glam",
        label: "Full Glam (Liner, Lashes, Brows, Highlight, Contour)",
      },
      { id: "faux-freckles", label: "Faux Freckles" },
    ] as CatalogEntry[],
  },
  hair: {
    styles: [
      sameAsReference,
      { id: "pixie-cut", label: "Pixie Cut" },
      { id: "bob", label: "Classic Bob" },
      { id: "lob", label: "Long Bob (Lob)" },
      { id: "layered", label: "Layered Cut" },
      { id: "curtain-bangs", label: "Curtain Bangs" },
      { id: "beach-waves", label: "Beach Waves" },
      { id: "sleek-ponytail", label: "Sleek Ponytail" },
      { id: "messy-bun", label: "Messy Bun" },
      { id: "braids", label: "Braids" },
      { id: "shag", label: "Shag" },
      { id: "hollywood-curls", label: "Hollywood Curls" },
    ] as CatalogEntry[],
    lengths: [
      sameAsReference,
      { id: "buzz", label: "Very Short" },
      { id: "short", label: "Short" },
      { id: "chin", label: "Chin Length" },
      { id: "shoulder", label: "Shoulder Length" },
      { id: "medium", label: "Medium" },
      { id: "long", label: "Long" },
      { id: "extra-long", label: "Extra Long" },
    ] as CatalogEntry[],
    textures: [
      sameAsReference,
      { id: "straight", label: "Straight" },
      { id: "sleek", label: "Sleek" },
      { id: "wavy", label: "Wavy" },
      { id: "curly", label: "Curly" },
      { id: "coily", label: "Coily" },
      { id: "voluminous", label: "Voluminous" },
      { id: "textured", label: "Textured" },
    ] as CatalogEntry[],
    colors: [
      sameAsReference,
      { id: "jet-black", label: "Jet Black", hex: "#1B1B1D" },
      { id: "dark-brown", label: "Dark Brown", hex: "#3B2A20" },
      { id: "chestnut", label: "Chestnut Brown", hex: "#6A3E25" },
      { id: "caramel", label: "Caramel", hex: "#A0683A" },
      { id: "honey-blonde", label: "Honey Blonde", hex: "#C69A5B" },
      { id: "platinum-blonde", label: "Platinum Blonde", hex: "#E6DCC8" },
      { id: "auburn", label: "Auburn", hex: "#7E2E1F" },
      { id: "copper-red", label: "Copper Red", hex: "#B4532A" },
      { id: "burgundy", label: "Burgundy", hex: "#6B1F2E" },
      { id: "ash-grey", label: "Ash Grey", hex: "#9A9A98" },
      { id: "pastel-pink", label: "Pastel Pink", hex: "#E3A1B5" },
      { id: "midnight-blue", label: "Midnight Blue", hex: "#23305A" },
    ] as CatalogEntry[],
  },
  barber: {
    hairStyles: [
      sameAsReference,
      { id: "buzz-cut", label: "Buzz Cut" },
      { id: "crew-cut", label: "Crew Cut" },
      { id: "fade", label: "Skin Fade" },
      { id: "undercut", label: "Undercut" },
      { id: "pompadour", label: "Pompadour" },
      { id: "quiff", label: "Quiff" },
      { id: "slick-back", label: "Slick Back" },
      { id: "side-part", label: "Side Part" },
      { id: "french-crop", label: "French Crop" },
      { id: "man-bun", label: "Man Bun" },
    ] as CatalogEntry[],
    hairLengths: [
      sameAsReference,
      { id: "shaved", label: "Shaved" },
      { id: "very-short", label: "Very Short" },
      { id: "short", label: "Short" },
      { id: "medium", label: "Medium" },
      { id: "collar", label: "Collar Length" },
      { id: "shoulder", label: "Shoulder Length" },
      { id: "long", label: "Long" },
    ] as CatalogEntry[],
    hairTextures: [
      sameAsReference,
      { id: "straight", label: "Straight" },
      { id: "wavy", label: "Wavy" },
      { id: "curly", label: "Curly" },
      { id: "coily", label: "Coily" },
      { id: "textured", label: "Textured" },
      { id: "thick", label: "Thick" },
      { id: "fine", label: "Fine" },
    ] as CatalogEntry[],
    hairColors: [
      sameAsReference,
      { id: "jet-black", label: "Jet Black", hex: "#1B1B1D" },
      { id: "dark-brown", label: "Dark Brown", hex: "#3B2A20" },
      { id: "medium-brown", label: "Medium Brown", hex: "#5A3D2B" },
      { id: "light-brown", label: "Light Brown", hex: "#8A6443" },
      { id: "dirty-blonde", label: "Dirty Blonde", hex: "#A88A5E" },
      { id: "platinum", label: "Platinum", hex: "#E6DCC8" },
      { id: "salt-and-pepper", label: "Salt and Pepper", hex: "#77756F" },
      { id: "silver", label: "Silver", hex: "#B8B8B8" },
      { id: "ginger", label: "Ginger", hex: "#A4512A" },
    ] as CatalogEntry[],
    facialHair: [
      none(),
      { id: "clean-shaven", label: "Clean Shaven" },
      { id: "stubble", label: "Stubble" },
      { id: "short-beard", label: "Short Beard" },
      { id: "full-beard", label: "Full Beard" },
      { id: "goatee", label: "Goatee" },
      { id: "van-dyke", label: "Van Dyke" },
      { id: "mustache", label: "Mustache" },
      { id: "handlebar", label: "Handlebar Mustache" },
      { id: "mutton-chops", label: "Mutton Chops" },
    ] as CatalogEntry[],
    facialHairColors: [
      sameAsReference,
      { id: "black", label: "Black", hex: "#1C1A19" },
      { id: "dark-brown", label: "Dark Brown", hex: "#3B2A20" },
      { id: "medium-brown", label: "Medium Brown", hex: "#5A3D2B" },
      { id: "light-brown", label: "Light Brown", hex: "#8A6443" },
      { id: "ginger", label: "Ginger", hex: "#A4512A" },
      { id: "blonde", label: "Blonde", hex: "#B89A68" },
      { id: "salt-and-pepper", label: "Salt and Pepper", hex: "#77756F" },
      { id: "grey", label: "Grey", hex: "#A5A5A3" },
    ] as CatalogEntry[],
  },
  scene: {
    outfits: [
      { id: "same-as-reference", label: "Same as reference" },
      { id: "red-evening-gown", label: "Red Evening Gown" },
      { id: "little-black-dress", label: "Little Black Dress" },
      { id: "tailored-suit", label: "Tailored Suit" },
      { id: "business-casual", label: "Business Casual" },
      { id: "denim-and-tee", label: "Denim and White Tee" },
      { id: "leather-jacket", label: "Leather Jacket" },
      { id: "summer-dress", label: "Floral Summer Dress" },
      { id: "streetwear", label: "Streetwear" },
    ] as CatalogEntry[],
    shoes: [
      { id: "same-as-reference", label: "Same as reference" },
      { id: "stilettos", label: "Stilettos" },
      { id: "white-sneakers", label: "White Sneakers" },
      { id: "ankle-boots", label: "Ankle Boots" },
      { id: "loafers", label: "Loafers" },
      { id: "oxfords", label: "Oxford Shoes" },
      { id: "sandals", label: "Sandals" },
    ] as CatalogEntry[],
    poses: [
      { id: "same-as-reference", label: "Same as reference" },
      { id: "standing-confident", label: "Standing, Confident" },
      { id: "hand-on-hip", label: "Hand on Hip" },
      { id: "over-the-shoulder", label: "Over the Shoulder" },
      { id: "walking", label: "Walking" },
      { id: "seated", label: "Seated" },
      { id: "arms-crossed", label: "Arms Crossed" },
    ] as CatalogEntry[],
    accessories: [
      none(),
      { id: "sunglasses", label: "Sunglasses" },
      { id: "statement-earrings", label: "Statement Earrings" },
      { id: "pearl-necklace", label: "Pearl Necklace" },
      { id: "wristwatch", label: "Wristwatch" },
      { id: "fedora", label: "Fedora" },
      { id: "silk-scarf", label: "Silk Scarf" },
      { id: "handbag", label: "Designer Handbag" },
    ] as CatalogEntry[],
    activities: [
      none(),
      { id: "coffee-shop", label: "Sipping Coffee" },
      { id: "red-carpet", label: "Red Carpet Arrival" },
      { id: "city-stroll", label: "City Stroll" },
      { id: "reading", label: "Reading a Book" },
      { id: "dancing", label: "Dancing" },
      { id: "shopping", label: "Shopping" },
    ] as CatalogEntry[],
    settings: [
      { id: "original", label: "Original background" },
      {
        id: "studio-white",
        label: "Studio White",
        hex: "#F2F1EE",
        swatch: ["#FBFAF8", "#DEDCD7"],
      },
      {
        id: "studio-grey",
        label: "Studio Grey",
        hex: "#8C8D90",
        swatch: ["#A9AAAD", "#5C5D61"],
      },
      {
        id: "studio-black",
        label: "Studio Black",
        hex: "#161618",
        swatch: ["#2E2E31", "#0B0B0C"],
      },
      {
        id: "blush-pink",
        label: "Blush Pink Backdrop",
        hex: "#EBC3C4",
        swatch: ["#F5D6D6", "#D49EA3"],
      },
      {
        id: "pastel-gradient",
        label: "Pastel Gradient",
        swatch: ["#F9D5E5", "#D8C8F0", "#BFE3F2"],
      },
      {
        id: "soft-bokeh",
        label: "Soft Bokeh Lights",
        swatch: ["#3B3346", "#1C1822"],
      },
      {
        id: "beach-sunset",
        label: "Beach Sunset",
        swatch: ["#2E3B73", "#C65A6B", "#F59A5A", "#FFD38A", "#3F6E8C"],
      },
      {
        id: "city-night",
        label: "City Night",
        swatch: ["#0B1026", "#1C2450", "#2B2A5C"],
      },
      {
        id: "golden-garden",
        label: "Golden Garden",
        swatch: ["#F3E2A9", "#9DB86A", "#4E6B34"],
      },
      {
        id: "luxury-lounge",
        label: "Luxury Lounge",
        swatch: ["#4A2A1E", "#1E120D"],
      },
    ] as SettingEntry[],
    camera: [
      { id: "as-photographed", label: "As photographed" },
      {
        id: "close-up",
        label: "Close-Up",
      },
      {
        id: "portrait-85mm",
        label: "Portrait (85mm, blurred background)",
      },
      {
        id: "head-and-shoulders",
        label: "Head and Shoulders",
      },
      {
        id: "half-body",
        label: "Half Body",
      },
      {
        id: "full-frame",
        label: "Full Frame (wide)",
      },
      {
        id: "shallow-depth",
        label: "Shallow Depth of Field",
      },
    ] as CatalogEntry[],
    lighting: [
      // Like the setting's "Original background": the photo's own light, unchanged. ("Natural (as
      // photographed)" had a word wider than the option's tile.)
      { id: "natural", label: "Original light" },
      {
        id: "warm",
        label: "Warm",
        swatch: ["#ffe2b8", "#b07a4f"],
      },
      {
        id: "cool",
        label: "Cool",
        swatch: ["#cfe3ff", "#5f7fb3"],
      },
      {
        id: "golden-hour",
        label: "Golden Hour",
        swatch: ["#FFB347", "#2b2240"],
      },
      {
        id: "dramatic",
        label: "Dramatic Contrast",
        swatch: ["#fff8ee", "#2b2240"],
      },
      {
        id: "soft",
        label: "Soft Studio",
        swatch: ["#ffe2b8", "#b07a4f"],
      },
      {
        id: "neon",
        label: "Neon Night",
        swatch: ["#C06BFF", "#2b2240"],
      },
      {
        id: "black-and-white",
        label: "Black and White",
        swatch: ["#f4f4f4", "#2d2d2d"],
      },
    ] as LightingEntry[],
  },
} as const;

type Lists = {
  [G in keyof typeof CATALOG]: {
    [L in keyof typeof CATALOG[G]]: typeof CATALOG[G][L];
  };
};

const MAKEUP_LIST: Record<string, keyof Lists["makeup"]> = OPTION_LISTS.makeup;
const HAIR_LIST: Record<string, keyof Lists["hair"]> = OPTION_LISTS.hair;
const BARBER_LIST: Record<string, keyof Lists["barber"]> = OPTION_LISTS.barber;
const SCENE_LIST: Record<string, keyof Lists["scene"]> = OPTION_LISTS.scene;

/** The list that validates `key` for `studio`. */
export function optionList(
  key: OptionKey,
  studio: StudioType,
): CatalogEntry[] {
  if (key in MAKEUP_LIST) return CATALOG.makeup[MAKEUP_LIST[key]];
  if (key in SCENE_LIST) return CATALOG.scene[SCENE_LIST[key]];
  if (key in HAIR_LIST && studio !== "barber") {
    return CATALOG.hair[HAIR_LIST[key]];
  }
  return CATALOG.barber[BARBER_LIST[key]];
}

/** Every key set to its list's first (no-op) entry. */
export function defaultOptions(studio: StudioType): SelectedOptions {
  const out = {} as SelectedOptions;
  for (const key of OPTION_KEYS) out[key] = optionList(key, studio)[0].id;
  return out;
}

/** The entry with this id in the list for `key`, or undefined. */
export function findEntry(
  key: OptionKey,
  studio: StudioType,
  id: string,
): CatalogEntry | undefined {
  return optionList(key, studio).find((e) => e.id === id);
}
