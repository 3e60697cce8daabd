/**
 * Validates a selected-options object against the catalog. Accepts an
 * option's id or its label (the old client sent labels); answers 422 naming
 * the field and the allowed values.
 */
import { AppError } from "../http/errors.ts";
import type { ModelCapabilities } from "../imaging/image-model.ts";
import { CATALOG, defaultOptions, optionList } from "./catalog.ts";
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

export function resolveOptions(
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

export function resolveIntensity(raw: Partial<Record<string, number>> | undefined): Intensity {
  const out = {} as Intensity;
  for (const c of MAKEUP_CATEGORIES) out[c] = raw?.[c] ?? DEFAULT_INTENSITY;
  return out;
}

/** GET /api/styling-options: the catalog, the defaults and what the active model honours. */
export function stylingOptions(model: { name: string; capabilities: ModelCapabilities }) {
  return {
    ...CATALOG,
    defaults: defaultOptions("makeup"),
    models: {
      active: model.name,
      angles: model.capabilities.angles,
      supported: model.capabilities.supported,
    },
  };
}
