/** The styling studio: reference photo, Appearance Studio / Scene Composer, generate, result, 360°. */
import { Checkbox, Tabs } from "radix-ui";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import {
  ADMIN_CREDITS,
  type CurrentPhoto,
  GENERATION_COST,
  type PublicUser,
  type StudioType,
} from "../../api/types.ts";
import { Button } from "../../ui/button.tsx";
import { CheckIcon, SparklesIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { type StylingCatalog, useStylingOptions } from "./catalog.ts";
import { OptionGroup, UnsupportedMark } from "./option-group.tsx";
import {
  buildGeneratePayload,
  changedCount,
  entriesFor,
  type GroupDef,
  initialSelections,
  isUnsupported,
  SCENE_GROUPS,
  selectedId,
  STUDIO_GROUPS,
  STUDIO_LABELS,
  type StudioSelections,
} from "./option-model.ts";
import { ReferencePhotoCard } from "./reference-photo-card.tsx";
import { ResultPanel } from "./result-panel.tsx";
import { INSUFFICIENT_CREDITS, useGeneration } from "./use-generation.ts";
import { View360Overlay } from "./view360-overlay.tsx";
import { readSession, writeSession } from "../../lib/session-json.ts";

export interface StudioPageProps {
  photo: CurrentPhoto | null;
  onPhotoChange(photo: CurrentPhoto | null): void;
  user: PublicUser | null;
  sessionLoading: boolean;
  /** Open the sign-in dialog; `then` runs after a successful sign-in. */
  onRequireSignIn(then: (user: PublicUser) => void): void;
  onBuyCredits(): void;
}

const SELECTIONS_KEY = "styletwin.studio";
const STUDIOS: StudioType[] = ["makeup", "hair", "barber"];

function loadSelections(): StudioSelections {
  const base = initialSelections();
  return readSession(SELECTIONS_KEY, (v) => {
    const s = (v ?? {}) as Partial<StudioSelections>;
    return {
      ...base,
      ...s,
      byStudio: { ...base.byStudio, ...s.byStudio },
      intensity: { ...base.intensity, ...s.intensity },
      studio: STUDIOS.includes(s.studio as StudioType) ? s.studio as StudioType : "makeup",
    };
  }) ?? base;
}

const tabTrigger =
  "relative whitespace-nowrap rounded-full px-2 py-2 text-[13px] sm:px-4 sm:text-sm font-semibold text-ink-600 transition hover:text-ink-900 data-[state=active]:bg-white data-[state=active]:text-ink-900 data-[state=active]:shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500";
const subTabTrigger =
  "border-b-2 border-transparent px-1 pb-2.5 pt-1 text-[13px] sm:px-3 sm:text-sm font-semibold text-ink-500 transition hover:text-ink-800 data-[state=active]:border-brand-500 data-[state=active]:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500";

export default function StudioPage(props: StudioPageProps) {
  const { photo, onPhotoChange, user, sessionLoading } = props;
  const catalogQuery = useStylingOptions();
  const catalog = catalogQuery.data;
  const [sel, setSel] = useState<StudioSelections>(loadSelections);
  const [topTab, setTopTab] = useState("appearance");
  const [open360, setOpen360] = useState(false);
  const view360Id = useId();
  const instructionsId = useId();

  useEffect(() => writeSession(SELECTIONS_KEY, sel), [sel]);

  const gen = useGeneration({
    photo,
    onInsufficientCredits: props.onBuyCredits,
    // The server answered 401 (the session ended): continue with the user who signs in, not with
    // this render's (signed-out) user, or the dialog would open again.
    onSignInRequired: () => props.onRequireSignIn((u) => generateRef.current(u)),
    onCompleted: (r) => {
      if (r.view360 && r.images.length > 1) setOpen360(true);
    },
  });

  const isAdmin = user?.credits === ADMIN_CREDITS;
  const resultRef = useRef<HTMLDivElement>(null);
  const generateCardRef = useRef<HTMLElement>(null);
  const [showBar, setShowBar] = useState(false);
  useEffect(() => {
    const el = generateCardRef.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver(([entry]) =>
      setShowBar(!entry.isIntersecting && entry.boundingClientRect.top > 0)
    );
    io.observe(el);
    return () => io.disconnect();
  }, []);
  useEffect(() => {
    if (!gen.generating) return;
    const el = resultRef.current;
    if (!el || globalThis.innerWidth >= 1024) return;
    const r = el.getBoundingClientRect();
    if (r.top > globalThis.innerHeight - 120 || r.bottom < 0) {
      el.scrollIntoView({ behavior: "smooth", block: "start" });
    }
  }, [gen.generating]);

  const generate = useCallback((who: PublicUser | null = user) => {
    if (!photo) {
      toast({
        title: "No Photo Uploaded",
        description: "Please upload a reference photo first.",
        variant: "destructive",
      });
      return;
    }
    if (!catalog || gen.generating) return;
    if (!who) {
      props.onRequireSignIn((u) => generateRef.current(u));
      return;
    }
    if (who.credits !== ADMIN_CREDITS && who.credits < GENERATION_COST) {
      toast({ ...INSUFFICIENT_CREDITS, variant: "destructive" });
      props.onBuyCredits();
      return;
    }
    gen.start(buildGeneratePayload(catalog, photo.id, sel));
  }, [photo, catalog, gen, user, sel, props]);
  const generateRef = useRef(generate);
  generateRef.current = generate;

  const setChoice = (def: GroupDef, id: string) =>
    setSel((s) =>
      def.section === "scene" ? { ...s, scene: { ...s.scene, [def.key]: id } } : {
        ...s,
        byStudio: {
          ...s.byStudio,
          [s.studio]: { ...s.byStudio[s.studio], [def.key]: id },
        },
      }
    );

  function renderGroups(defs: GroupDef[], c: StylingCatalog) {
    return (
      <div className="space-y-5">
        {defs.map((def) => {
          const entries = entriesFor(c, def);
          if (entries.length === 0) return null;
          const chosen = def.section === "scene" ? sel.scene[def.key] : sel.byStudio[sel.studio][def.key];
          const value = selectedId(entries, chosen);
          const category = def.section === "makeup" ? def.key as keyof StudioSelections["intensity"] : null;
          return (
            <OptionGroup
              key={`${def.section}-${def.key}`}
              title={def.title}
              entries={entries}
              value={value}
              onChange={(id) => setChoice(def, id)}
              isUnsupported={(id) => isUnsupported(c, def.key, id, entries)}
              modelName={c.models?.active ?? "current"}
              intensity={category
                ? {
                  value: sel.intensity[category],
                  onChange: (v) =>
                    setSel((s) => ({
                      ...s,
                      intensity: { ...s.intensity, [category]: v },
                    })),
                }
                : undefined}
            />
          );
        })}
      </div>
    );
  }

  // The badge is decoration; screen readers get "(1 change)" instead of a bare digit glued to the name.
  const countBadge = (n: number) =>
    n > 0 && (
      <>
        <span
          aria-hidden="true"
          className="ml-1.5 inline-grid min-w-5 place-items-center rounded-full bg-brand-500 px-1 text-[11px] font-bold text-white"
        >
          {n}
        </span>
        <span className="sr-only">{` (${n} ${n === 1 ? "change" : "changes"})`}</span>
      </>
    );

  // After a 401 on the status call the user must sign in before checking again.
  const checkAgain = () => {
    if (user) gen.checkAgain();
    else props.onRequireSignIn(() => gen.checkAgain());
  };

  return (
    <main className="bg-studio min-h-[calc(100dvh-4rem)]">
      <h1 className="sr-only">Styling Studio</h1>
      <div className="mx-auto grid max-w-7xl gap-5 px-3 pb-16 pt-5 sm:px-6 lg:grid-cols-[minmax(0,1fr)_25rem] lg:gap-8 lg:pt-8">
        <div className="min-w-0 space-y-5">
          <ReferencePhotoCard
            photo={photo}
            onChange={onPhotoChange}
            disabled={gen.generating}
          />

          <section className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-6">
            <Tabs.Root value={topTab} onValueChange={setTopTab}>
              <Tabs.List
                aria-label="Studio"
                className="grid grid-cols-2 rounded-full bg-ink-100 p-1 sm:inline-grid"
              >
                <Tabs.Trigger value="appearance" className={tabTrigger}>
                  Appearance Studio
                </Tabs.Trigger>
                <Tabs.Trigger value="scene" className={tabTrigger}>
                  Scene Composer
                  {catalog &&
                    countBadge(changedCount(catalog, SCENE_GROUPS, sel.scene))}
                </Tabs.Trigger>
              </Tabs.List>

              {!catalog
                ? (
                  <div className="grid min-h-64 place-items-center text-center">
                    {catalogQuery.isError
                      ? (
                        <div>
                          <p className="text-sm text-ink-600">
                            Styling options could not be loaded.
                          </p>
                          <Button
                            variant="outline"
                            size="sm"
                            className="mt-3"
                            onClick={() => catalogQuery.refetch()}
                          >
                            Try Again
                          </Button>
                        </div>
                      )
                      : <Spinner className="size-7 text-brand-600" />}
                  </div>
                )
                : (
                  <>
                    <p className="mt-4 rounded-2xl bg-ink-50 px-4 py-2.5 text-xs text-ink-600">
                      Image model:{" "}
                      <strong className="font-semibold text-ink-800">
                        {catalog.models?.active}
                      </strong>. Options with a dashed outline and <UnsupportedMark />{" "}
                      can be chosen, but this model can't render them yet.
                    </p>
                    <Tabs.Content
                      value="appearance"
                      className="mt-4 outline-none"
                    >
                      <Tabs.Root
                        value={sel.studio}
                        onValueChange={(v) => setSel((s) => ({ ...s, studio: v as StudioType }))}
                      >
                        <Tabs.List
                          aria-label="Appearance studio"
                          className="grid grid-cols-3 border-b border-ink-100"
                        >
                          {STUDIOS.map((st) => (
                            <Tabs.Trigger
                              key={st}
                              value={st}
                              className={subTabTrigger}
                            >
                              {STUDIO_LABELS[st].tab}
                            </Tabs.Trigger>
                          ))}
                        </Tabs.List>
                        {STUDIOS.map((st) => (
                          <Tabs.Content
                            key={st}
                            value={st}
                            className="pt-5 outline-none"
                          >
                            <h3 className="text-lg font-bold tracking-tight">
                              {STUDIO_LABELS[st].heading}
                            </h3>
                            <p className="mb-5 mt-0.5 text-sm text-ink-500">
                              {STUDIO_LABELS[st].blurb}
                            </p>
                            {renderGroups(STUDIO_GROUPS[st], catalog)}
                          </Tabs.Content>
                        ))}
                      </Tabs.Root>
                    </Tabs.Content>
                    <Tabs.Content value="scene" className="mt-5 outline-none">
                      <h3 className="text-lg font-bold tracking-tight">
                        Scene Composer
                      </h3>
                      <p className="mb-5 mt-0.5 text-sm text-ink-500">
                        Outfit, pose, setting, lens and light. Goes with the active appearance studio.
                      </p>
                      {renderGroups(SCENE_GROUPS, catalog)}
                    </Tabs.Content>
                  </>
                )}
            </Tabs.Root>
          </section>

          <section className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-6">
            <label
              htmlFor={instructionsId}
              className="text-sm font-semibold text-ink-900"
            >
              Additional Instructions
            </label>
            <p className="mt-0.5 text-xs text-ink-500">
              Optional. Anything else the stylist should know.
            </p>
            <textarea
              id={instructionsId}
              rows={3}
              maxLength={500}
              value={sel.instructions}
              onChange={(e) => setSel((s) => ({ ...s, instructions: e.target.value }))}
              placeholder="e.g. keep my freckles visible, soft natural finish"
              className="mt-3 block w-full resize-y rounded-2xl border border-ink-200 bg-white px-4 py-3 text-[15px] text-ink-900 shadow-sm outline-none placeholder:text-ink-400 focus:border-brand-400 focus:ring-4 focus:ring-brand-100"
            />
          </section>
        </div>

        <aside className="min-w-0 space-y-5 lg:sticky lg:top-20 lg:self-start">
          <section
            ref={generateCardRef}
            className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-5"
          >
            <div className="flex items-center justify-between gap-3">
              <div className="flex items-center gap-3">
                <Checkbox.Root
                  id={view360Id}
                  checked={sel.view360}
                  onCheckedChange={(c) => setSel((s) => ({ ...s, view360: c === true }))}
                  disabled={gen.generating}
                  className="grid size-6 place-items-center rounded-lg border-2 border-ink-300 bg-white text-white transition data-[state=checked]:border-brand-500 data-[state=checked]:bg-brand-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
                >
                  <Checkbox.Indicator>
                    <CheckIcon className="size-4" strokeWidth={3} />
                  </Checkbox.Indicator>
                </Checkbox.Root>
                <label
                  htmlFor={view360Id}
                  className="text-sm font-semibold text-ink-900"
                >
                  360° View
                </label>
              </div>
              <span className="text-xs text-ink-500">
                Front, right, left and back
              </span>
            </div>
            <Button
              size="lg"
              className="mt-4 w-full"
              disabled={gen.generating || !photo || sessionLoading ||
                !catalog}
              onClick={() => generate()}
            >
              {gen.generating ? <Spinner className="size-5" /> : <SparklesIcon className="size-5" />}
              {gen.generating
                ? "Generating..."
                : isAdmin
                ? "Generate Avatar (Free - Admin)"
                : "Generate Avatar"}
            </Button>
            {!isAdmin && (
              <p className="mt-2 text-center text-xs text-ink-500">
                Each generation uses {GENERATION_COST} credits.
              </p>
            )}
          </section>
          <div ref={resultRef} className="scroll-mt-20">
            <ResultPanel
              generating={gen.generating}
              result={gen.result}
              problem={gen.problem}
              onCheckAgain={checkAgain}
              referenceUrl={photo?.url ?? null}
              view360Enabled={sel.view360}
              onOpen360={() => {
                if (!gen.result || gen.result.images.length === 0) {
                  toast({
                    title: "No Generated Images",
                    description: "Generate an image with 360° View first.",
                  });
                  return;
                }
                setOpen360(true);
              }}
            />
          </div>
        </aside>
      </div>
      {showBar && (
        <div
          data-testid="sticky-generate"
          className="fixed inset-x-0 bottom-0 z-30 border-t border-ink-100 bg-white/90 p-3 backdrop-blur-lg lg:hidden"
        >
          <Button
            size="lg"
            className="w-full"
            disabled={gen.generating || !photo || sessionLoading || !catalog}
            onClick={() => {
              generateCardRef.current?.scrollIntoView({
                behavior: "smooth",
                block: "start",
              });
              generate();
            }}
          >
            <SparklesIcon className="size-5" />
            {gen.generating
              ? "Generating..."
              : isAdmin
              ? "Generate Avatar (Free - Admin)"
              : "Generate Avatar"}
          </Button>
        </div>
      )}
      <View360Overlay
        open={open360}
        onOpenChange={setOpen360}
        images={gen.result?.images ?? []}
      />
    </main>
  );
}
