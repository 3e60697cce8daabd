/**
 * What the active image model can do, in the user's terms (pure: no React, no DOM).
 *
 * GET /api/styling-options names the active model, the option ids it renders (`models.supported`)
 * and, for a model that cannot do everything, why (`models.unavailable`: a reason per option key,
 * for additional instructions and for the 360° view). An option the model cannot render is shown
 * as unavailable with its reason and cannot be selected, so nobody pays for a change that will not
 * happen. Older servers send no reasons: a generic sentence stands in.
 */
import type { OptionKey } from "../../../server/styling/option-keys.ts";
import type { OptionEntry, StylingCatalog } from "./catalog.ts";

/** The reasons a model that cannot do everything gives (all optional). */
export interface UnavailableReasons {
  options?: Partial<Record<OptionKey, string>>;
  instructions?: string;
  references?: string;
  view360?: string;
}

export interface ModelInfo {
  /** The model's name, for the details popover only. */
  name: string;
  /** The offline model on this server (free live preview, limited changes). */
  local: boolean;
  angles: readonly string[];
}

type Models = StylingCatalog["models"] & { unavailable?: UnavailableReasons };

const models = (c: StylingCatalog): Models | undefined => c.models as Models | undefined;

export function modelInfo(c: StylingCatalog): ModelInfo {
  const m = models(c);
  const name = m?.active ?? "local";
  return { name, local: name === "local", angles: m?.angles ?? ["front"] };
}

/** The fallback reason when the server names none. */
export const GENERIC_OPTION_REASON = "Needs a generative image model; this server's model cannot render it";
export const GENERIC_INSTRUCTIONS_REASON =
  "Additional instructions need a generative image model; this server's model cannot follow them";
export const GENERIC_VIEW360_REASON =
  "The 360° view needs a generative image model; this server's model renders the front view only";

/**
 * Why `id` of `key` cannot be chosen, or null when it can. The list's first entry (the default,
 * "keep as in the photo") is always available.
 */
export function optionUnavailableReason(
  c: StylingCatalog,
  key: OptionKey,
  id: string,
  entries: OptionEntry[],
): string | null {
  if (entries[0]?.id === id) return null;
  const m = models(c);
  const supported = m?.supported?.[key];
  if ((supported ?? []).includes(id)) return null;
  return m?.unavailable?.options?.[key] ?? GENERIC_OPTION_REASON;
}

/** Why additional instructions are ignored by this model, or null when it follows them. */
export function instructionsUnavailableReason(c: StylingCatalog): string | null {
  const m = models(c);
  if (m?.unavailable?.instructions) return m.unavailable.instructions;
  return modelInfo(c).local ? GENERIC_INSTRUCTIONS_REASON : null;
}

/** Why the 360° view is off for this model, or null when it renders several angles. */
export function view360UnavailableReason(c: StylingCatalog): string | null {
  const m = models(c);
  if (m?.unavailable?.view360) return m.unavailable.view360;
  return (m?.angles?.length ?? 1) > 1 ? null : GENERIC_VIEW360_REASON;
}

/** The group's reason when every non-default entry is unavailable (the whole group is off), else null. */
export function groupUnavailableReason(
  c: StylingCatalog,
  key: OptionKey,
  entries: OptionEntry[],
): string | null {
  const reasons = entries.slice(1).map((e) => optionUnavailableReason(c, key, e.id, entries));
  if (reasons.length === 0 || reasons.some((r) => r === null)) return null;
  return reasons[0];
}
