/** The result panel: spinner while generating, the image with download and compare, or the placeholder. */
import { Tabs } from "radix-ui";
import { useEffect, useState } from "react";
import {
  downloadImage,
  downloadName,
  downloadToast,
  isMobileDevice,
  prefetchImage,
} from "../../lib/download.ts";
import { Button } from "../../ui/button.tsx";
import { ArrowLeftIcon, DownloadIcon, RotateIcon, SparklesIcon } from "../../ui/icons.tsx";
import { LoadFailed, RetryButton } from "../../ui/load-failed.tsx";
import { SafeImage } from "../../ui/safe-image.tsx";
import { toast } from "../../ui/toast.tsx";
import { CompareSlider } from "./compare-slider.tsx";
import { GenerationProgress } from "./generation-progress.tsx";
import { PreviewView } from "./preview-view.tsx";
import type { GenerationProblem, GenerationResult } from "./use-generation.ts";
import type { PreviewState } from "./use-preview.ts";

export interface ResultPanelProps {
  generating: boolean;
  result: GenerationResult | null;
  /** Why the last generation gave no new result (shown above the image or placeholder). */
  problem: GenerationProblem | null;
  referenceUrl: string | null;
  view360Enabled: boolean;
  onOpen360(): void;
  /** Resume polling a generation that timed out (or was interrupted by signing out). */
  onCheckAgain(): void;
  /** The live preview of the current choices, shown instead of the last result while set. */
  preview: PreviewState | null;
  /** The active image model: the offline one (true) or a hosted one. */
  local: boolean;
  /** How many angles the running generation renders (for the estimate). */
  angles: number;
  /** Phones: back to the options with the choices kept. */
  onEditLook?(): void;
  /** The photo framed like the result (for Before / After), when the server could render it. */
  framedBefore?: string | null;
}

/**
 * 9:16 frame that fits the viewport height: on phones below the header, the result tabs and the
 * action row; on desktop below the header and the Generate card.
 */
export const FRAME =
  "mx-auto w-full max-w-[max(12rem,calc((100dvh-15rem)*0.5625))] lg:max-w-[max(16rem,calc((100dvh-24rem)*0.5625))]";

/**
 * What sits under the image (the view switch, notes, actions): the frame's width, but never under
 * 16 rem. On a short phone (360x640) the frame is 225 px and "Before / After" broke onto two lines.
 */
const UNDER_FRAME = `${FRAME} min-w-64`;

/** What each problem says; "failed" adds the server's reason and notes. */
const PROBLEM_TEXT: Record<
  GenerationProblem["kind"],
  { tone: "amber" | "red"; title: string; text?: string; checkAgain?: true }
> = {
  failed: { tone: "red", title: "Why the generation failed" },
  timeout: {
    tone: "amber",
    title: "Still working on your avatar",
    text:
      "It is taking longer than expected, but it may still finish. Your credits are safe: check again in a moment to see the result.",
    checkAgain: true,
  },
  "signed-out": {
    tone: "amber",
    title: "Sign in to see your avatar",
    text: "You were signed out while it was being generated.",
    checkAgain: true,
  },
  lost: {
    tone: "red",
    title: "This generation could not be found",
    text: "Please generate your avatar again.",
  },
};

function ProblemNotice(
  { problem, onCheckAgain }: { problem: GenerationProblem; onCheckAgain(): void },
) {
  // A failure the server gave no reason for: the toast has said all there is.
  if (problem.kind === "failed" && !problem.detail && problem.notes.length === 0) return null;
  const { tone, title, text, checkAgain } = PROBLEM_TEXT[problem.kind];
  return (
    <div
      data-testid="generation-problem"
      data-kind={problem.kind}
      className={`mb-3 rounded-2xl p-3.5 text-sm ${
        tone === "red"
          ? "bg-red-50 text-red-950 ring-1 ring-red-200"
          : "bg-amber-50 text-amber-950 ring-1 ring-amber-200"
      }`}
    >
      <p className="font-semibold">{title}</p>
      {text && <p className="mt-1">{text}</p>}
      {problem.kind === "failed" && problem.detail && <p className="mt-1">{problem.detail}</p>}
      {problem.kind === "failed" && problem.notes.length > 0 && (
        <ul className="mt-2 list-disc space-y-0.5 pl-5 text-xs">
          {problem.notes.map((n) => <li key={n}>{n}</li>)}
        </ul>
      )}
      {checkAgain && <RetryButton label="Check again" onClick={onCheckAgain} />}
    </div>
  );
}

export function ResultPanel(
  {
    generating,
    result,
    problem,
    referenceUrl,
    view360Enabled,
    onOpen360,
    onCheckAgain,
    preview,
    local,
    angles,
    onEditLook,
    framedBefore,
  }: ResultPanelProps,
) {
  const image = result?.images[0];
  // Desktop: the panel shows the live preview of choices made since the result; "View last result" brings the
  // result (and its Download) back until the next result arrives or "Back to preview".
  const [pinned, setPinned] = useState<string | null>(null);
  const previewing = !!preview && preview.kind !== "idle" && !(image && pinned === image);
  const imageShown = !generating && !previewing && !!image;

  // Mobile saves through the share sheet, which must open inside the tap: fetch the image now.
  useEffect(() => {
    if (image && isMobileDevice()) prefetchImage(image).catch(() => {});
  }, [image]);

  async function download() {
    if (!image) return;
    const name = downloadName("styletwin-result", image);
    const t = downloadToast(await downloadImage(image, name), name);
    if (t) toast(t); // null: the share sheet was cancelled
  }

  const unavailable = (retry: () => void) => (
    <LoadFailed
      title="The image could not be loaded."
      retryLabel="Try again"
      onRetry={retry}
      className="aspect-[9/16] w-full rounded-2xl bg-ink-100 p-6"
    />
  );

  // Phones put the Result / Before-After switch under the image: toasts drop in at the top there.
  const resultTabs = (
    <Tabs.List
      aria-label="Result view"
      className={`mb-3 grid grid-cols-2 rounded-full bg-ink-100 p-1 text-sm font-semibold ${UNDER_FRAME}`}
    >
      <Tabs.Trigger
        value="result"
        className="whitespace-nowrap rounded-full px-2 py-1.5 text-ink-600 data-[state=active]:bg-white data-[state=active]:text-ink-900 data-[state=active]:shadow-sm"
      >
        Result
      </Tabs.Trigger>
      <Tabs.Trigger
        value="compare"
        disabled={!referenceUrl}
        className="whitespace-nowrap rounded-full px-2 py-1.5 text-ink-600 data-[state=active]:bg-white data-[state=active]:text-ink-900 data-[state=active]:shadow-sm"
      >
        Before / After
      </Tabs.Trigger>
    </Tabs.List>
  );

  return (
    <section
      aria-labelledby="result-title"
      aria-busy={generating}
      className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-5"
    >
      <h2 id="result-title" className="sr-only">Result</h2>
      {!generating && problem && <ProblemNotice problem={problem} onCheckAgain={onCheckAgain} />}
      {generating
        ? <GenerationProgress photoUrl={referenceUrl} local={local} angles={angles} className={FRAME} />
        : previewing
        ? (
          <>
            <PreviewView state={preview!} photoUrl={referenceUrl} local={local} className={FRAME} />
            {image && (
              <div className={`mt-3 ${UNDER_FRAME}`}>
                <Button
                  variant="outline"
                  className="w-full"
                  onClick={() => setPinned(image)}
                >
                  View last result
                </Button>
              </div>
            )}
          </>
        )
        : image
        ? (
          <Tabs.Root defaultValue="result">
            {!onEditLook && resultTabs}
            <Tabs.Content value="result" className="outline-none">
              <div className={`relative ${FRAME}`}>
                <SafeImage
                  src={image}
                  alt="Your styled avatar"
                  className="aspect-[9/16] w-full rounded-2xl bg-ink-100 object-cover"
                  fallback={unavailable}
                />
                <button
                  type="button"
                  onClick={download}
                  aria-label="Download image"
                  className="absolute bottom-3 right-3 inline-flex h-10 items-center gap-2 rounded-full bg-white/95 px-4 text-sm font-semibold text-ink-900 shadow-lg ring-1 ring-black/5 hover:bg-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
                >
                  <DownloadIcon className="size-4" /> Download
                </button>
              </div>
            </Tabs.Content>
            <Tabs.Content value="compare" className="outline-none">
              {/* The same 9:16 frame as the result, so the tabs stay on screen and the faces line up. */}
              <div className={FRAME}>
                {referenceUrl && <CompareSlider before={framedBefore ?? referenceUrl} after={image} />}
              </div>
            </Tabs.Content>
            {onEditLook && <div className="mt-3">{resultTabs}</div>}
            {result && result.notes.length > 0 && (
              <ul
                className={`mt-3 space-y-1 rounded-2xl bg-amber-50 p-3 text-xs text-amber-900 ${UNDER_FRAME}`}
              >
                {result.notes.map((n) => <li key={n}>{n}</li>)}
              </ul>
            )}
            {preview && preview.kind !== "idle" && (
              <div className={`mt-3 ${UNDER_FRAME}`}>
                <Button
                  variant="outline"
                  className="w-full"
                  onClick={() => setPinned(null)}
                >
                  <SparklesIcon className="size-4" /> Back to preview
                </Button>
              </div>
            )}
            {(onEditLook || (view360Enabled && result && result.images.length > 1)) && (
              <div className={`mt-3 flex gap-2 ${UNDER_FRAME}`}>
                {onEditLook && (
                  <Button variant="outline" className="flex-1" onClick={onEditLook}>
                    <ArrowLeftIcon className="size-4" /> Edit look
                  </Button>
                )}
                {view360Enabled && result && result.images.length > 1 && (
                  <Button variant="secondary" className="flex-1" onClick={onOpen360}>
                    <RotateIcon className="size-4" /> 360° View
                  </Button>
                )}
              </div>
            )}
          </Tabs.Root>
        )
        : (
          <div
            className={`checker grid aspect-[9/16] place-items-center rounded-2xl text-center ${FRAME}`}
          >
            <div className="flex flex-col items-center gap-3 px-8">
              <span className="grid size-16 place-items-center rounded-full bg-white text-brand-500 shadow-lg">
                <SparklesIcon className="size-8" />
              </span>
              <p className="text-lg font-bold tracking-tight text-ink-900">
                Your AI Avatar Awaits
              </p>
              <p className="max-w-60 text-sm text-ink-500">
                Choose your style and press Generate to see your avatar here.
              </p>
            </div>
          </div>
        )}
      {
        /* Every state but the result (which has its own) keeps the way back to the options on a phone: a failed
          generation or the placeholder left the screen with no control at all. */
      }
      {onEditLook && !imageShown && (
        <div className={`mt-3 ${UNDER_FRAME}`}>
          <Button variant="outline" className="w-full" onClick={onEditLook}>
            <ArrowLeftIcon className="size-4" /> Edit look
          </Button>
        </div>
      )}
    </section>
  );
}
