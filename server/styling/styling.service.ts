/**
 * Validates a selected-options object against the catalog. Accepts an
 * option's id or its label (the old client sent labels); answers 422 naming
 * the field and the allowed values.
 */
import { AppError } from "../http/errors.ts";
import type { ModelCapabilities } from "../imaging/image-model.ts";
import { nothingToRender } from "../imaging/local/capabilities.ts";
import { CATALOG, type CatalogEntry, defaultOptions, optionList } from "./catalog.ts";
import {
  DEFAULT_INTENSITY,
  type Intensity,
  MAKEUP_CATEGORIES,
  OPTION_KEYS,
  type OptionKey,
  type SelectedOptions,
  type StudioType,
} from "./option-keys.ts";

const normalise = (s: string) => s.trim().toLowerCase();

function resolveOptions(
  studio: StudioType,
  raw: Record<string, unknown> | undefined,
): SelectedOptions {
  const out = defaultOptions(studio);
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (!(OPTION_KEYS as readonly string[]).includes(key)) {
      throw new AppError(422, `Unknown option "${key}". Allowed options: ${OPTION_KEYS.join(", ")}`);
    }
    const list = optionList(key as OptionKey, studio);
    if (value === null || value === undefined || value === "") continue; // untouched: keep the default
    const wanted = typeof value === "string" ? normalise(value) : undefined;
    const entry = wanted === undefined
      ? undefined
      : list.find((e) => e.id === wanted || normalise(e.label) === wanted);
    if (!entry) {
      throw new AppError(
        422,
        `Invalid value for ${key}: ${JSON.stringify(value)}. Allowed values: ${
          list.map((e) => e.id).join(", ")
        }`,
      );
    }
    out[key as OptionKey] = entry.id;
  }
  return out;
}

function resolveIntensity(raw: Partial<Record<string, number>> | undefined): Intensity {
  const out = {} as Intensity;
  for (const c of MAKEUP_CATEGORIES) out[c] = raw?.[c] ?? DEFAULT_INTENSITY;
  return out;
}

/**
 * What generate and preview both check first, before anything is written or charged: the
 * options and intensities resolved against the catalogue and, when `caps` is given, a 422 if
 * that model would change nothing the user asked for.
 */
export function resolveStyleRequest(
  input: {
    studioType: StudioType;
    options?: Record<string, unknown>;
    intensity?: Partial<Record<string, number>>;
    additionalInstructions?: string | null;
    referencePhotoIds?: string[];
    view360?: boolean;
  },
  caps: ModelCapabilities | null,
): { options: SelectedOptions; intensity: Intensity } {
  const options = resolveOptions(input.studioType, input.options);
  const intensity = resolveIntensity(input.intensity);
  if (caps) {
    const nothing = nothingToRender({
      studioType: input.studioType,
      options,
      intensity,
      instructions: input.additionalInstructions,
      references: input.referencePhotoIds?.length ?? 0,
      view360: input.view360,
    }, caps);
    if (nothing) throw new AppError(422, nothing, { code: "nothing_to_render" });
  }
  return { options, intensity };
}

/**
 * One option as GET /api/styling-options shows it: `id`, `label`, `hex`, `description`. The renderer's
 * recipes (lip finish, base strengths, backdrops, grades, framing) live with the renderer.
 */
export interface PublicOption {
  id: string;
  label: string;
  hex?: string;
  description?: string;
}

/**
 * What the studio displays beside an option, apart from the option's own public shape: `includes` (the
 * layers a look style applies) and `swatch` (the colours of a backdrop's or a light's preview tile).
 */
export interface OptionPresentation {
  includes?: Partial<Record<string, string>>;
  swatch?: string[];
}

/** The catalogue fields besides CatalogEntry's that some lists carry. */
interface ListFields {
  preset?: Partial<Record<string, string>>;
  swatch?: string[];
}

export function publicOption(entry: CatalogEntry): PublicOption {
  const out: PublicOption = { id: entry.id, label: entry.label };
  if (entry.hex) out.hex = entry.hex;
  if (entry.description) out.description = entry.description;
  return out;
}

function presentationOf(entry: CatalogEntry & ListFields): OptionPresentation | undefined {
  const out: OptionPresentation = {};
  if (entry.preset) out.includes = { ...entry.preset };
  if (entry.swatch && entry.swatch.length > 0) out.swatch = [...entry.swatch];
  return out.includes || out.swatch ? out : undefined;
}

type PublicCatalog = {
  [Studio in keyof typeof CATALOG]: { [Group in keyof (typeof CATALOG)[Studio]]: PublicOption[] };
};

/** Per studio, list and option id: its presentation, for the options that have one. */
type Presentation = Record<string, Record<string, Record<string, OptionPresentation>>>;

function publicCatalog(): PublicCatalog {
  return Object.fromEntries(
    Object.entries(CATALOG).map(([studio, groups]) => [
      studio,
      Object.fromEntries(
        Object.entries(groups).map(([group, list]) => [
          group,
          (list as readonly CatalogEntry[]).map(publicOption),
        ]),
      ),
    ]),
  ) as PublicCatalog;
}

function presentation(): Presentation {
  const out: Presentation = {};
  for (const [studio, groups] of Object.entries(CATALOG)) {
    for (const [group, list] of Object.entries(groups)) {
      for (const entry of list as readonly (CatalogEntry & ListFields)[]) {
        const shown = presentationOf(entry);
        if (shown) ((out[studio] ??= {})[group] ??= {})[entry.id] = shown;
      }
    }
  }
  return out;
}

/** GET /api/styling-options: the public catalog, the defaults and what the active model honours. */
export function stylingOptions(model: { name: string; capabilities: ModelCapabilities }) {
  return {
    ...publicCatalog(),
    // Beside the options, not in them: each option keeps the public shape (see OptionPresentation).
    presentation: presentation(),
    defaults: defaultOptions("makeup"),
    models: {
      active: model.name,
      angles: model.capabilities.angles,
      supported: model.capabilities.supported,
      // Why the rest is unavailable (see ModelCapabilities.unavailable); {} when the model can do everything.
      unavailable: model.capabilities.unavailable ?? {},
    },
  };
}
