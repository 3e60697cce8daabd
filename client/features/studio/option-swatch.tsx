/**
 * Small previews for option tiles, drawn from the catalogue itself (no stock photos): colour
 * swatches from an entry's hex, a look's palette from the layers it includes, a backdrop from a
 * setting's colours, a light's warmth, and a head-and-hair glyph for hairstyles, lengths and
 * textures. Decorative: the tile's label (the colour's name) is what assistive technology reads.
 */
import type { OptionKey } from "../../../server/styling/option-keys.ts";
import type { OptionEntry } from "./catalog.ts";

// `swatch`: a backdrop's colours, or a light's (highlight, shadow), computed by the server.
type Rich = OptionEntry;

export type SwatchKind = "colour" | "look" | "backdrop" | "light" | "hair" | null;

/** Which kind of preview a group's tiles carry (null: text chips). */
export function swatchKind(key: OptionKey): SwatchKind {
  switch (key) {
    case "eyeshadow":
    case "lips":
    case "baseMakeup":
    case "cheeks":
    case "hairColor":
    case "facialHairColor":
      return "colour";
    case "lookStyle":
      return "look";
    case "setting":
      return "backdrop";
    case "lighting":
      return "light";
    case "hairStyle":
    case "hairLength":
    case "hairTexture":
    case "facialHair":
      return "hair";
    default:
      return null;
  }
}

const EMPTY = "repeating-linear-gradient(135deg, #f7f6f9 0 6px, #eeecf2 6px 12px)";

function lightBackground(e: Rich): string {
  const [hi, lo] = e.swatch ?? [];
  if (!hi || !lo) return "linear-gradient(160deg, #fffdf8, #e9e4dc)";
  return `radial-gradient(circle at 30% 25%, ${hi}, ${lo})`;
}

/** A colour tile's background (hex, palette, backdrop or light), or null when it has none. */
export function swatchBackground(kind: SwatchKind, entry: Rich, palette: string[] = []): string | null {
  if (kind === "colour") return entry.hex ?? null;
  if (kind === "look") {
    if (palette.length === 0) return null;
    const step = 100 / palette.length;
    return `conic-gradient(${palette.map((c, i) => `${c} ${i * step}% ${(i + 1) * step}%`).join(", ")})`;
  }
  if (kind === "backdrop") {
    const colors = entry.swatch;
    if (colors && colors.length > 1) return `linear-gradient(160deg, ${colors.join(", ")})`;
    return entry.hex ?? null;
  }
  if (kind === "light") return lightBackground(entry);
  return null;
}

/** Hair silhouettes, chosen by words in the option id (a haircut's shape, not a photo of one). */
function hairPath(id: string): string {
  const has = (...w: string[]) => w.some((x) => id.includes(x));
  if (has("shaved", "buzz", "clean")) {
    return "M9 10.5c0-3 1.4-4.6 3-4.6s3 1.6 3 4.6c-.7-.9-1.7-1.3-3-1.3s-2.3.4-3 1.3z";
  }
  if (has("bun")) {
    return "M12 2.2a2 2 0 1 1 0 4 2 2 0 0 1 0-4zM7.6 11c0-3.3 2-5.2 4.4-5.2s4.4 1.9 4.4 5.2c-1-1.5-2.5-2.3-4.4-2.3S8.6 9.5 7.6 11z";
  }
  if (has("ponytail")) {
    return "M7.6 11c0-3.3 2-5.2 4.4-5.2s4.4 1.9 4.4 5.2c0 0 2.2 2.6 1.4 7.6-1-2.3-1.9-4-2.4-5.4-1-1.8-2-2.5-3.4-2.5S8.6 9.5 7.6 11z";
  }
  if (has("pixie", "crop", "crew", "very-short", "short", "fade", "undercut")) {
    return "M7.4 11.4C7 7.6 9 5.4 12 5.4s5 2.2 4.6 6c-.9-2.2-2.6-3.2-4.6-3.2-1.3 0-2.5.4-3.4 1.4-.5.5-.9 1.1-1.2 1.8z";
  }
  if (has("pompadour", "quiff", "slick", "side-part")) {
    return "M7.4 11.2C7 7.2 9.4 4 13 4.2c2.6.2 4.2 2.2 3.8 5.4-1.6-1.6-3.6-1.8-5.6-1.6-1.6.2-3 1.2-3.8 3.2z";
  }
  if (has("bob", "chin", "lob", "collar")) {
    return "M6.8 15.4c-.8-6 1.2-10 5.2-10s6 4 5.2 10h-1.8c.2-3.6-.6-6.2-3.4-6.9-2.8.7-3.6 3.3-3.4 6.9z";
  }
  if (has("curl", "coily", "wav", "shag", "volum", "textured", "thick")) {
    return "M6 17c-1.4-1.6-.2-3-1-4.4-.8-1.6.4-3.2 0-4.8C5.4 5.4 8 3.4 12 3.4s6.6 2 7 4.4c-.4 1.6.8 3.2 0 4.8-.8 1.4.4 2.8-1 4.4h-1.6c.4-4-.6-7.8-4.4-8.6-3.8.8-4.8 4.6-4.4 8.6z";
  }
  if (has("braid")) {
    return "M7 12c-.6-4.4 1.6-6.8 5-6.8s5.6 2.4 5 6.8l.8 1.6-.8 1.6.8 1.6-.8 1.6.8 1.6h-1.6c-.2-4.6-.9-8.4-4.2-9.4-2.6.8-3.6 3.4-3.6 6.6H7.6z";
  }
  if (has("beard", "goatee", "dyke", "mutton", "stubble")) {
    return "M8.2 12.2c.2 3.6 1.6 6.2 3.8 6.2s3.6-2.6 3.8-6.2c-.6 1.6-1.6 2.4-3.8 2.4s-3.2-.8-3.8-2.4z";
  }
  if (has("mustache", "handlebar")) {
    return "M9.2 14.4c1-.8 1.9-.9 2.8-.4.9-.5 1.8-.4 2.8.4-1 .3-1.9.4-2.8.1-.9.3-1.8.2-2.8-.1z";
  }
  if (has("long", "shoulder", "medium", "straight", "sleek", "layered", "bangs", "hollywood", "beach")) {
    return "M6.4 20c-1.4-9.2.4-15.4 5.6-15.4s7 6.2 5.6 15.4h-1.8c.4-6.6-.6-10.6-3.8-11.4-3.2.8-4.2 4.8-3.8 11.4z";
  }
  return "M7.6 11c0-3.3 2-5.2 4.4-5.2s4.4 1.9 4.4 5.2c-1-1.5-2.5-2.3-4.4-2.3S8.6 9.5 7.6 11z";
}

/** A head with the hair shape of `id` (the default entry: the head alone, "as in your photo"). */
export function HairGlyph({ id, isDefault }: { id: string; isDefault: boolean }) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" className="size-full">
      <circle cx="12" cy="11.6" r="4.4" className="fill-[#f1d2be]" />
      <path d="M6.5 22c.9-3.4 3-5 5.5-5s4.6 1.6 5.5 5z" className="fill-ink-200" />
      {!isDefault && <path d={hairPath(id)} className="fill-ink-700" />}
    </svg>
  );
}

/** The round preview on an option tile (hair glyph, colour or a striped "none"). */
export function OptionSwatch(
  { kind, entry, isDefault, palette }: {
    kind: Exclude<SwatchKind, null>;
    entry: OptionEntry;
    isDefault: boolean;
    palette?: string[];
  },
) {
  if (kind === "hair") {
    return (
      <span
        aria-hidden="true"
        className="block size-11 shrink-0 overflow-hidden rounded-full bg-ink-50 ring-1 ring-ink-100"
      >
        <HairGlyph id={entry.id} isDefault={isDefault} />
      </span>
    );
  }
  // An option without its own colour (a finish, a coverage) shows a soft skin tone; only the
  // default ("none", "as in the photo") is striped.
  const bg = swatchBackground(kind, entry, palette) ??
    (isDefault ? EMPTY : "radial-gradient(circle at 35% 30%, #f8e3d4, #d9a989)");
  return (
    <span
      aria-hidden="true"
      className="block size-11 shrink-0 rounded-full ring-1 ring-black/10 ring-inset"
      style={{ background: bg }}
    />
  );
}
