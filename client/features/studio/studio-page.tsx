/**
 * The styling studio. Desktop: two columns (photo and options on the left; Generate, the live
 * preview and the result on the right). Phones: the photo or its live preview stays at the top,
 * the option groups are collapsible sections, and a bar at the bottom carries the cost, the 360°
 * toggle and Generate; while generating and when done the result takes the screen, and "Edit look"
 * returns to the options with every choice kept.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ADMIN_CREDITS, type CurrentPhoto, GENERATION_COST, type PublicUser } from "../../api/types.ts";
import { readSession, writeSession } from "../../lib/session-json.ts";
import { PHONE_QUERY, scrollBehavior, useMediaQuery } from "../../lib/use-media-query.ts";
import { Button } from "../../ui/button.tsx";
import { SparklesIcon } from "../../ui/icons.tsx";
import { toast } from "../../ui/toast.tsx";
import { useStylingOptions } from "./catalog.ts";
import { GenerateBar } from "./generate-bar.tsx";
import { modelInfo, view360UnavailableReason } from "./model-availability.ts";
import {
  buildGeneratePayload,
  changedCount,
  initialSelections,
  SCENE_GROUPS,
  STUDIO_GROUPS,
  type StudioSelections,
} from "./option-model.ts";
import { OptionsPanel, type OptionsTab, STUDIOS } from "./options-panel.tsx";
import { PreviewView } from "./preview-view.tsx";
import { ReferencePhotoCard } from "./reference-photo-card.tsx";
import { ResultPanel } from "./result-panel.tsx";
import { INSUFFICIENT_CREDITS, useGeneration } from "./use-generation.ts";
import { previewBody, usePreview } from "./use-preview.ts";
import { PhoneDock } from "./phone-dock.tsx";
import { framingOnly, useFramedBefore } from "./use-framed-before.ts";
import { usePhotoProblem } from "./use-photo-problem.ts";
import { View360Overlay } from "./view360-overlay.tsx";
import type { StudioType } from "../../api/types.ts";

export interface StudioPageProps {
  photo: CurrentPhoto | null;
  onPhotoChange(photo: CurrentPhoto | null): void;
  user: PublicUser | null;
  sessionLoading: boolean;
  /**
   * Open the sign-in dialog; `then` runs after a successful sign-in. `reason` says why it is needed
   * (a visitor pressed Generate); without one the session ended.
   */
  onRequireSignIn(then: (user: PublicUser) => void, reason?: string): void;
  onBuyCredits(): void;
}

const SELECTIONS_KEY = "styletwin.studio";

/** Why Generate needs an account, for a visitor who is not signed in. */
export const SIGN_IN_TO_GENERATE =
  "Generating renders your styled photo on our servers and uses credits, so it needs a free account. Your photo and choices are kept.";

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

export default function StudioPage(props: StudioPageProps) {
  const { photo, onPhotoChange, user, sessionLoading } = props;
  const catalogQuery = useStylingOptions();
  const catalog = catalogQuery.data;
  const [sel, setSel] = useState<StudioSelections>(loadSelections);
  const [open360, setOpen360] = useState(false);
  const [optionsTab, setOptionsTab] = useState<OptionsTab>("appearance");
  const phone = useMediaQuery(PHONE_QUERY);
  // Phones: the options ("edit") or the result taking the screen.
  const [phoneView, setPhoneView] = useState<"edit" | "result">("edit");

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
  const info = catalog ? modelInfo(catalog) : null;
  const view360Reason = catalog ? view360UnavailableReason(catalog) : null;

  // The live preview of the current choices (signed in, a photo, something chosen).
  const payload = useMemo(
    () => catalog && photo ? buildGeneratePayload(catalog, photo.id, sel) : null,
    [catalog, photo, sel],
  );
  const somethingChosen = !!catalog && (
    changedCount(catalog, STUDIO_GROUPS[sel.studio], sel.byStudio[sel.studio]) +
        changedCount(catalog, SCENE_GROUPS, sel.scene) > 0
  );
  const preview = usePreview(payload, !!user && somethingChosen && !gen.generating);
  // A photo the local model cannot style at all (no face, a group): said on the photo card at once.
  const photoProblem = usePhotoProblem(photo?.id ?? null, !!user && !!info?.local);
  const payloadKey = payload ? JSON.stringify(previewBody(payload)) : null;
  // The result belongs to the choices it was generated from; other choices show their preview.
  const [generatedKey, setGeneratedKey] = useState<string | null>(() => payloadKey);
  // A result kept from before a reload belongs to the choices restored with it (the catalogue
  // arrives after the first render, so the key is known only then).
  useEffect(() => {
    if (gen.result && generatedKey === null && payloadKey !== null) setGeneratedKey(payloadKey);
  }, [gen.result, generatedKey, payloadKey]);
  const showPreview = preview.kind !== "idle" && (!gen.result || payloadKey !== generatedKey);
  // Before / After: the photo framed like the result (rendered by the preview endpoint).
  const framingBody = useMemo(
    () =>
      user && gen.result && generatedKey && catalog
        ? framingOnly(JSON.parse(generatedKey), catalog.defaults ?? {})
        : null,
    [user, gen.result, generatedKey, catalog],
  );
  const framedBefore = useFramedBefore(framingBody);

  // Phones: the result takes the screen as soon as a generation starts.
  useEffect(() => {
    if (gen.generating) {
      setPhoneView("result");
      globalThis.scrollTo?.({ top: 0, behavior: scrollBehavior() });
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
      props.onRequireSignIn((u) => generateRef.current(u), SIGN_IN_TO_GENERATE);
      return;
    }
    if (who.credits !== ADMIN_CREDITS && who.credits < GENERATION_COST) {
      toast({ ...INSUFFICIENT_CREDITS, variant: "destructive" });
      props.onBuyCredits();
      return;
    }
    const body = buildGeneratePayload(catalog, photo.id, sel);
    setGeneratedKey(JSON.stringify(previewBody(body)));
    gen.start(body);
  }, [photo, catalog, gen, user, sel, props]);
  const generateRef = useRef(generate);
  generateRef.current = generate;

  // After a 401 on the status call the user must sign in before checking again.
  const checkAgain = () => {
    if (user) gen.checkAgain();
    else props.onRequireSignIn(() => gen.checkAgain());
  };

  const update = useCallback((f: (s: StudioSelections) => StudioSelections) => setSel(f), []);

  // On a phone the result view shows the result: the stage above the options shows the preview.
  const resultPanel = (onEditLook?: () => void) => (
    <ResultPanel
      generating={gen.generating}
      result={gen.result}
      problem={gen.problem}
      onCheckAgain={checkAgain}
      referenceUrl={photo?.url ?? null}
      view360Enabled={sel.view360}
      preview={showPreview && !onEditLook ? preview : null}
      local={info?.local ?? true}
      angles={sel.view360 && !view360Reason ? 4 : 1}
      onEditLook={onEditLook}
      framedBefore={framedBefore}
      onOpen360={() => {
        if (!gen.result || gen.result.images.length === 0) {
          toast({ title: "No Generated Images", description: "Generate an image with 360° View first." });
          return;
        }
        setOpen360(true);
      }}
    />
  );

  const generateBar = (placement: "card" | "bar") => (
    <GenerateBar
      placement={placement}
      view360={sel.view360}
      onView360Change={(on) => setSel((s) => ({ ...s, view360: on }))}
      view360Reason={view360Reason}
      generating={gen.generating}
      disabled={!photo || sessionLoading || !catalog}
      isAdmin={isAdmin}
      onGenerate={() => generate()}
    />
  );

  const options = (
    <OptionsPanel
      catalog={catalog}
      loadFailed={catalogQuery.isError}
      onRetry={catalogQuery.refetch}
      sel={sel}
      setSel={update}
      compact={phone}
      tab={optionsTab}
      onTabChange={setOptionsTab}
    />
  );

  // A 360 set from a hosted model: open the grid when its first angle arrives and let it fill.
  const running360 = !!gen.progress360;
  useEffect(() => {
    if (running360) setOpen360(true);
  }, [running360]);
  const overlay = (
    <View360Overlay
      open={open360}
      onOpenChange={setOpen360}
      images={gen.progress360 ?? gen.result?.images ?? []}
      generating={running360}
      notes={gen.progress360 ? [] : gen.result?.notes}
    />
  );

  if (phone) {
    const showResult = phoneView === "result" && (gen.generating || gen.result || gen.problem);
    return (
      <main className="bg-studio min-h-[calc(100dvh-4rem)]" data-layout="phone">
        <h1 className="sr-only">Styling Studio</h1>
        {showResult
          ? (
            <div className="px-3 pb-8 pt-3">
              {resultPanel(() => setPhoneView("edit"))}
            </div>
          )
          : (
            <>
              <PhoneStage
                photo={photo}
                onPhotoChange={onPhotoChange}
                disabled={gen.generating}
                problem={photoProblem}
                preview={showPreview ? preview : null}
                local={info?.local ?? true}
                hasResult={!!gen.result}
                onShowResult={() => setPhoneView("result")}
              />
              <div className="space-y-4 px-3 pb-32 pt-3">{options}</div>
              {generateBar("bar")}
            </>
          )}
        {overlay}
      </main>
    );
  }

  return (
    <main className="bg-studio min-h-[calc(100dvh-4rem)]" data-layout="desktop">
      <h1 className="sr-only">Styling Studio</h1>
      <div className="mx-auto grid max-w-7xl grid-cols-[minmax(0,1fr)_25rem] gap-8 px-6 pb-16 pt-8">
        <div className="min-w-0 space-y-5">
          <ReferencePhotoCard
            photo={photo}
            onChange={onPhotoChange}
            disabled={gen.generating}
            problem={photoProblem}
          />
          {options}
        </div>
        <aside className="sticky top-20 min-w-0 space-y-5 self-start">
          {generateBar("card")}
          {resultPanel()}
        </aside>
      </div>
      {overlay}
    </main>
  );
}

/** Phones: the photo (or the live preview of the choices) pinned under the header, with the photo controls. */
function PhoneStage(
  { photo, onPhotoChange, disabled, problem, preview, local, hasResult, onShowResult }: {
    photo: CurrentPhoto | null;
    onPhotoChange(p: CurrentPhoto | null): void;
    disabled: boolean;
    problem: string | null;
    preview: ReturnType<typeof usePreview> | null;
    local: boolean;
    hasResult: boolean;
    onShowResult(): void;
  },
) {
  return (
    <PhoneDock edge="top" testId="phone-stage" className="flex items-center gap-3">
      <div className="w-[5.5rem] shrink-0">
        {photo
          ? (
            <PreviewView
              state={preview ?? { kind: "idle" }}
              photoUrl={photo.url}
              local={local}
              compact
            />
          )
          : (
            <div className="grid aspect-[9/16] w-full place-items-center rounded-2xl bg-ink-100 text-ink-400">
              <SparklesIcon className="size-6" />
            </div>
          )}
      </div>
      <div className="min-w-0 flex-1">
        <ReferencePhotoCard
          photo={photo}
          onChange={onPhotoChange}
          disabled={disabled}
          problem={problem}
          inline
        />
        {hasResult && (
          <Button variant="ghost" size="sm" className="-ml-2 mt-1 text-brand-700" onClick={onShowResult}>
            <SparklesIcon className="size-4" /> View result
          </Button>
        )}
        {/* The desktop's result placeholder, in a line: the phone shows the result panel only once there is one. */}
        {!hasResult && (!preview || preview.kind === "idle") && (
          <p className="mt-1 text-[11px] text-ink-600" data-testid="stage-awaits">
            <span className="font-semibold text-ink-800">Your AI Avatar Awaits</span>. Choose your style and
            press Generate.
          </p>
        )}
        {preview && preview.kind !== "idle" &&
          // The card above already says why this photo cannot be styled.
          !(preview.kind === "no-change" && problem !== null && preview.detail === problem) && (
          <p className="mt-1 text-[11px] text-ink-600" data-testid="stage-note">
            {preview.kind === "no-change"
              ? (preview.detail ?? "These choices would not change your photo.")
              : preview.kind === "error"
              ? "No preview right now. Generate still works."
              : preview.kind === "paused"
              ? "Preview paused for a moment."
              : preview.kind === "ready" && preview.refused
              ? "These choices cannot be applied to this photo: try another choice."
              : local
              ? "Live preview. Generate renders the full-size image."
              : "Live preview; the final image will be generated by the AI model."}
          </p>
        )}
      </div>
    </PhoneDock>
  );
}
