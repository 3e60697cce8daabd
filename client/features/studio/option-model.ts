/**
 * Which option groups each studio shows, which ids the active model cannot
 * honour, and the POST /api/generate body. Pure: no React, no DOM.
 */
import {
  DEFAULT_INTENSITY,
  type Intensity,
  MAKEUP_CATEGORIES,
  OPTION_KEYS,
  OPTION_LISTS,
  OPTION_TITLES,
  type OptionKey,
  type OptionSection,
  type SelectedOptions,
  type StudioType,
} from "../../../server/styling/option-keys.ts";
import type { GenerateInput } from "../../../server/generation/generation.schemas.ts";
import type { OptionEntry, StylingCatalog } from "./catalog.ts";
import {
  instructionsUnavailableReason,
  optionUnavailableReason,
  view360UnavailableReason,
} from "./model-availability.ts";

export type Section = OptionSection;

export interface GroupDef {
  key: OptionKey;
  section: Section;
  /** The catalogue list in GET /api/styling-options that offers this key's choices. */
  list: string;
  title: string;
}

/** The groups of one section, in the order the server lists them, titled as the server names them. */
function groupsOf(section: Section): GroupDef[] {
  return (Object.entries(OPTION_LISTS[section]) as [OptionKey, string][]).map(([key, list]) => ({
    key,
    section,
    list,
    title: OPTION_TITLES[key],
  }));
}

export const STUDIO_GROUPS: Record<StudioType, GroupDef[]> = {
  makeup: groupsOf("makeup"),
  hair: groupsOf("hair"),
  barber: groupsOf("barber"),
};

export const SCENE_GROUPS: GroupDef[] = groupsOf("scene");

export const STUDIO_LABELS: Record<
  StudioType,
  { tab: string; heading: string; blurb: string }
> = {
  makeup: {
    tab: "Glam Studio",
    heading: "AI Makeup Studio",
    blurb: "Pick a look, then fine-tune each category and its intensity.",
  },
  hair: {
    tab: "Hair Studio",
    heading: "AI Hair Studio",
    blurb: "Try a new colour, length or texture.",
  },
  barber: {
    tab: "Barber Shop",
    heading: "AI Barber Shop",
    blurb: "Cuts, fades, beards and their colours.",
  },
};

export function entriesFor(catalog: StylingCatalog, def: GroupDef): OptionEntry[] {
  const section = catalog[def.section] as Record<string, OptionEntry[]> | undefined;
  return section?.[def.list] ?? [];
}

export type Selections = Partial<SelectedOptions>;

export interface StudioSelections {
  studio: StudioType;
  /** Per appearance studio (hair and barber share keys but not lists). */
  byStudio: Record<StudioType, Selections>;
  scene: Selections;
  intensity: Intensity;
  view360: boolean;
  instructions: string;
}

export function defaultIntensity(): Intensity {
  return Object.fromEntries(
    MAKEUP_CATEGORIES.map((c) => [c, DEFAULT_INTENSITY]),
  ) as Intensity;
}

export function initialSelections(): StudioSelections {
  return {
    studio: "makeup",
    byStudio: { makeup: {}, hair: {}, barber: {} },
    scene: {},
    intensity: defaultIntensity(),
    view360: false,
    instructions: "",
  };
}

/** The id shown as selected for a group: the user's choice when it still exists, else the default. */
export function selectedId(
  entries: OptionEntry[],
  chosen: string | undefined,
): string | undefined {
  if (chosen && entries.some((e) => e.id === chosen)) return chosen;
  return entries[0]?.id;
}

/** The user's choice for a group as it will be sent: the default when the model cannot render it. */
export function effectiveId(
  catalog: StylingCatalog,
  def: GroupDef,
  s: StudioSelections,
): string | undefined {
  const entries = entriesFor(catalog, def);
  const chosen = def.section === "scene" ? s.scene[def.key] : s.byStudio[s.studio][def.key];
  const id = selectedId(entries, chosen);
  if (id && optionUnavailableReason(catalog, def.key, id, entries)) return entries[0]?.id;
  return id;
}

/** One layer a look style applies: the group's title and the entry the look picks. */
export interface LookLayer {
  key: OptionKey;
  title: string;
  entry: OptionEntry;
}

/** What a look style includes (eyeshadow, lips, base, cheeks, extras), in group order; [] for none. */
export function lookLayers(catalog: StylingCatalog, lookId: string | undefined): LookLayer[] {
  const preset = catalog.makeup.lookStyles.find((l) => l.id === lookId)?.includes;
  if (!preset) return [];
  const layers: LookLayer[] = [];
  for (const def of STUDIO_GROUPS.makeup) {
    const id = preset[def.key];
    if (!id) continue;
    const entry = entriesFor(catalog, def).find((e) => e.id === id);
    if (entry) layers.push({ key: def.key, title: def.title, entry });
  }
  return layers;
}

/**
 * POST /api/generate's body: the server's own contract (generateSchema), with
 * every option key filled in (the client always sends the full selection).
 */
export type GeneratePayload = GenerateInput & { options: SelectedOptions };

/** Every key is sent: the active studio's and the scene's choices, defaults for the rest. */
export function buildGeneratePayload(
  catalog: StylingCatalog,
  photoId: string,
  s: StudioSelections,
): GeneratePayload {
  const options = {} as SelectedOptions;
  for (const key of OPTION_KEYS) {
    options[key] = catalog.defaults?.[key] ?? "";
  }
  for (const def of [...STUDIO_GROUPS[s.studio], ...SCENE_GROUPS]) {
    const id = effectiveId(catalog, def, s);
    if (id) options[def.key] = id;
  }
  // What the model cannot do is never sent (it would be ignored, or charged for nothing).
  const instructions = instructionsUnavailableReason(catalog) ? "" : s.instructions.trim();
  const payload: GeneratePayload = {
    photoId,
    studioType: s.studio,
    options,
    view360: s.view360 && !view360UnavailableReason(catalog),
    additionalInstructions: instructions ? instructions : null,
  };
  if (s.studio === "makeup") {
    payload.intensity = Object.fromEntries(
      MAKEUP_CATEGORIES.map((c) => [
        c,
        Math.max(0, Math.min(100, Math.round(s.intensity[c]))),
      ]),
    );
  }
  return payload;
}

/** How many groups differ from their default, for the tab badges. */
export function changedCount(
  catalog: StylingCatalog,
  defs: GroupDef[],
  chosen: Selections,
): number {
  return defs.filter((def) => {
    const entries = entriesFor(catalog, def);
    const id = selectedId(entries, chosen[def.key]);
    return id !== undefined && id !== entries[0]?.id &&
      !optionUnavailableReason(catalog, def.key, id, entries);
  }).length;
}
