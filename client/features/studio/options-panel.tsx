/**
 * The styling options: Appearance Studio (Glam Studio, Hair Studio, Barber Shop) and Scene
 * Composer tabs, their option groups, additional instructions, and what the image model will and
 * will not change. Loading and failed states have their own look (a retry when the catalogue
 * could not be loaded). On phones the groups are collapsible sections, one open at a time.
 */
import { Tabs } from "radix-ui";
import { memo, useEffect, useId, useMemo, useState } from "react";
import type { StudioType } from "../../api/types.ts";
import { MAX_INSTRUCTION_CHARS, STUDIO_TYPES } from "../../../server/styling/option-keys.ts";
import { InfoPopover } from "../../ui/info-popover.tsx";
import { LoadFailed } from "../../ui/load-failed.tsx";
import type { StylingCatalog } from "./catalog.ts";
import { LookSummary } from "./look-summary.tsx";
import { instructionsUnavailableReason, modelInfo, optionUnavailableReason } from "./model-availability.ts";
import { OptionGroup } from "./option-group.tsx";
import {
  changedCount,
  entriesFor,
  type GroupDef,
  lookLayers,
  SCENE_GROUPS,
  selectedId,
  STUDIO_GROUPS,
  STUDIO_LABELS,
  type StudioSelections,
} from "./option-model.ts";

/** The appearance studios, in tab order (the server's list of studio types). */
export const STUDIOS: readonly StudioType[] = STUDIO_TYPES;

// Under 360 px a name may wrap to two lines: on one, "Appearance Studio" overflowed its half of a 320 px phone.
const tabTrigger =
  "relative whitespace-nowrap max-[360px]:whitespace-normal max-[360px]:leading-tight rounded-full px-2 py-2 text-[13px] sm:px-4 sm:text-sm font-semibold text-ink-600 transition hover:text-ink-900 data-[state=active]:bg-white data-[state=active]:text-ink-900 data-[state=active]:shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500";
const subTabTrigger =
  "border-b-2 border-transparent px-1 pb-2.5 pt-1 text-[13px] sm:px-3 sm:text-sm font-semibold text-ink-600 transition hover:text-ink-800 data-[state=active]:border-brand-500 data-[state=active]:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500";

export interface OptionsPanelProps {
  catalog: StylingCatalog | undefined;
  loadFailed: boolean;
  onRetry(): void;
  sel: StudioSelections;
  setSel(update: (s: StudioSelections) => StudioSelections): void;
  /** Phones: collapsible groups, one open at a time. */
  compact: boolean;
  /**
   * The open top tab. Kept by the studio page: the phone and desktop layouts are different trees, and a
   * window resized across the breakpoint (or a tablet turned) mounts this panel again.
   */
  tab: OptionsTab;
  onTabChange(tab: OptionsTab): void;
}

/** The panel's top tabs: the appearance studios, or the Scene Composer. */
export type OptionsTab = "appearance" | "scene";

/** Hex colours of the layers each look includes (for the look tiles' palettes). */
function lookPalettes(c: StylingCatalog): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const look of c.makeup.lookStyles) {
    out[look.id] = lookLayers(c, look.id).map((l) => l.entry.hex).filter((h): h is string => !!h);
  }
  return out;
}

/**
 * Memoised: the studio re-renders on every generation and preview state change, and the options
 * (hundreds of swatches) would be rendered again each time with the same props; a finished
 * generation's result then waited for them before it showed.
 */
export const OptionsPanel = memo(function OptionsPanel(
  { catalog, loadFailed, onRetry, sel, setSel, compact, tab: topTab, onTabChange }: OptionsPanelProps,
) {
  const [openGroup, setOpenGroup] = useState<string | null>("makeup-lookStyle");
  const palettes = useMemo(() => catalog ? lookPalettes(catalog) : {}, [catalog]);

  // Another tab: open its first group.
  const section = topTab === "scene" ? "scene" : sel.studio;
  useEffect(() => {
    const first = section === "scene" ? SCENE_GROUPS[0] : STUDIO_GROUPS[section][0];
    setOpenGroup(`${first.section}-${first.key}`);
  }, [section]);

  if (!catalog) {
    return (
      <section
        aria-label="Styling options"
        className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-6"
      >
        {loadFailed
          ? (
            <LoadFailed
              title="Styling options could not be loaded."
              retryLabel="Try Again"
              onRetry={onRetry}
              className="min-h-56"
            />
          )
          : <OptionsSkeleton />}
      </section>
    );
  }

  const c = catalog;
  const setChoice = (def: GroupDef, id: string) =>
    setSel((s) =>
      def.section === "scene" ? { ...s, scene: { ...s.scene, [def.key]: id } } : {
        ...s,
        byStudio: { ...s.byStudio, [s.studio]: { ...s.byStudio[s.studio], [def.key]: id } },
      }
    );
  const lookId = selectedId(c.makeup.lookStyles, sel.byStudio.makeup.lookStyle);
  const look = c.makeup.lookStyles.find((l) => l.id === lookId);
  const layers = sel.studio === "makeup" ? lookLayers(c, lookId) : [];

  function renderGroups(defs: GroupDef[]) {
    return (
      <div className={compact ? "" : "space-y-5"}>
        {defs.map((def) => {
          const entries = entriesFor(c, def);
          if (entries.length === 0) return null;
          const chosen = def.section === "scene" ? sel.scene[def.key] : sel.byStudio[sel.studio][def.key];
          const value = selectedId(entries, chosen);
          const category = def.section === "makeup" ? def.key as keyof StudioSelections["intensity"] : null;
          const fromLayer = def.section === "makeup" && def.key !== "lookStyle"
            ? layers.find((l) => l.key === def.key)
            : undefined;
          const groupKey = `${def.section}-${def.key}`;
          return (
            <div key={groupKey}>
              <OptionGroup
                optionKey={def.key}
                title={def.title}
                entries={entries}
                value={value}
                onChange={(id) => setChoice(def, id)}
                unavailableReason={(id) => optionUnavailableReason(c, def.key, id, entries)}
                palettes={def.key === "lookStyle" ? palettes : undefined}
                fromLook={fromLayer && look ? { look: look.label, entry: fromLayer.entry } : undefined}
                collapsible={compact
                  ? {
                    open: openGroup === groupKey,
                    onToggle: () => setOpenGroup((g) => g === groupKey ? null : groupKey),
                  }
                  : undefined}
                intensity={category
                  ? {
                    value: sel.intensity[category],
                    onChange: (v) => setSel((s) => ({ ...s, intensity: { ...s.intensity, [category]: v } })),
                  }
                  : undefined}
              />
              {def.key === "lookStyle" && look && (!compact || openGroup === groupKey) && (
                <LookSummary look={look.label} layers={layers} />
              )}
            </div>
          );
        })}
      </div>
    );
  }

  const countBadge = (n: number) =>
    n > 0 && (
      <>
        <span
          aria-hidden="true"
          className="ml-1.5 inline-grid min-w-5 place-items-center rounded-full bg-brand-600 px-1 text-[11px] font-bold text-white"
        >
          {n}
        </span>
        <span className="sr-only">{` (${n} ${n === 1 ? "change" : "changes"})`}</span>
      </>
    );

  return (
    <>
      <section
        aria-label="Styling options"
        className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-6"
      >
        <Tabs.Root value={topTab} onValueChange={(v) => onTabChange(v === "scene" ? "scene" : "appearance")}>
          <Tabs.List
            aria-label="Studio"
            className="grid grid-cols-2 rounded-full bg-ink-100 p-1 sm:inline-grid"
          >
            <Tabs.Trigger value="appearance" className={tabTrigger}>Appearance Studio</Tabs.Trigger>
            <Tabs.Trigger value="scene" className={tabTrigger}>
              Scene Composer
              {countBadge(changedCount(c, SCENE_GROUPS, sel.scene))}
            </Tabs.Trigger>
          </Tabs.List>
          <ModelNotice catalog={c} />
          <Tabs.Content value="appearance" className="mt-4 outline-none">
            <Tabs.Root
              value={sel.studio}
              onValueChange={(v) => setSel((s) => ({ ...s, studio: v as StudioType }))}
            >
              <Tabs.List aria-label="Appearance studio" className="grid grid-cols-3 border-b border-ink-100">
                {STUDIOS.map((st) => (
                  <Tabs.Trigger key={st} value={st} className={subTabTrigger}>
                    {STUDIO_LABELS[st].tab}
                  </Tabs.Trigger>
                ))}
              </Tabs.List>
              {STUDIOS.map((st) => (
                <Tabs.Content key={st} value={st} className={`${compact ? "pt-3" : "pt-5"} outline-none`}>
                  <h3 className="text-lg font-bold tracking-tight">{STUDIO_LABELS[st].heading}</h3>
                  <p className={`${compact ? "mb-1" : "mb-5"} mt-0.5 text-sm text-ink-600`}>
                    {STUDIO_LABELS[st].blurb}
                  </p>
                  {renderGroups(STUDIO_GROUPS[st])}
                </Tabs.Content>
              ))}
            </Tabs.Root>
          </Tabs.Content>
          <Tabs.Content value="scene" className={`${compact ? "mt-3" : "mt-5"} outline-none`}>
            <h3 className="text-lg font-bold tracking-tight">Scene Composer</h3>
            <p className={`${compact ? "mb-1" : "mb-5"} mt-0.5 text-sm text-ink-600`}>
              Outfit, pose, setting, lens and light. Goes with the active appearance studio.
            </p>
            {renderGroups(SCENE_GROUPS)}
          </Tabs.Content>
        </Tabs.Root>
      </section>
      <InstructionsCard catalog={c} sel={sel} setSel={setSel} />
    </>
  );
});

/** What the active model changes in the photo, in the user's terms; its name in a details popover. */
function ModelNotice({ catalog }: { catalog: StylingCatalog }) {
  const info = modelInfo(catalog);
  return (
    <div
      className="mt-4 flex items-start gap-2 rounded-2xl bg-ink-50 px-4 py-2.5 text-xs text-ink-700"
      data-testid="model-notice"
    >
      <p className="flex-1">
        {info.local
          ? "Changes makeup, hair colour, background, light and framing. Haircuts, outfits and poses stay as in your photo (locked)."
          : "Every option below is rendered into your photo."}
      </p>
      <InfoPopover label="Image model details" className="-my-1">
        <strong className="font-semibold">Image model: {info.name}</strong>
        <br />
        {info.local
          ? "Runs on this server without an AI service: it edits your photo (colour, light, background, framing) and cannot draw new shapes such as a haircut or an outfit."
          : "A generative AI model draws the final image; previews come from the quick offline renderer."}
      </InfoPopover>
    </div>
  );
}

function InstructionsCard(
  { catalog, sel, setSel }: Pick<OptionsPanelProps, "sel" | "setSel"> & { catalog: StylingCatalog },
) {
  const id = useId();
  const hintId = useId();
  const reason = instructionsUnavailableReason(catalog);
  return (
    <section className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-6">
      <label htmlFor={id} className="text-sm font-semibold text-ink-900">Additional Instructions</label>
      <p id={hintId} className="mt-0.5 text-xs text-ink-600">
        {reason ? `${reason}.` : "Optional. Anything else the stylist should know."}
      </p>
      <textarea
        id={id}
        rows={3}
        maxLength={MAX_INSTRUCTION_CHARS}
        disabled={reason !== null}
        aria-describedby={hintId}
        value={reason ? "" : sel.instructions}
        onChange={(e) => {
          const v = e.target.value;
          setSel((s) => ({ ...s, instructions: v }));
        }}
        placeholder={reason
          ? "Available with a generative image model"
          : "e.g. keep my freckles visible, soft natural finish"}
        className="mt-3 block w-full resize-y rounded-2xl border border-ink-200 bg-white px-4 py-3 text-[15px] text-ink-900 shadow-sm outline-none placeholder:text-ink-500 focus:border-brand-400 focus:ring-4 focus:ring-brand-100 disabled:cursor-not-allowed disabled:bg-ink-50"
      />
    </section>
  );
}

function OptionsSkeleton() {
  return (
    <div
      role="status"
      aria-label="Loading styling options"
      className="animate-pulse motion-reduce:animate-none"
    >
      <div className="h-10 w-72 max-w-full rounded-full bg-ink-100" />
      <div className="mt-5 h-4 w-40 rounded bg-ink-100" />
      <div className="mt-4 flex gap-3 overflow-hidden">
        {Array.from(
          { length: 6 },
          (_, i) => (
            <div key={i} className="flex shrink-0 flex-col items-center gap-2">
              <div className="size-11 rounded-full bg-ink-100" />
              <div className="h-2.5 w-12 rounded bg-ink-100" />
            </div>
          ),
        )}
      </div>
      <div className="mt-6 h-4 w-32 rounded bg-ink-100" />
      <div className="mt-4 flex flex-wrap gap-2">
        {Array.from({ length: 5 }, (_, i) => <div key={i} className="h-9 w-24 rounded-full bg-ink-100" />)}
      </div>
    </div>
  );
}
