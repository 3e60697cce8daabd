/** The result panel: spinner while generating, the image with download and compare, or the placeholder. */
import { Tabs } from "radix-ui";
import { downloadImage, downloadName, downloadToast } from "../../lib/download.ts";
import { Button } from "../../ui/button.tsx";
import { DownloadIcon, RotateIcon, SparklesIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { CompareSlider } from "./compare-slider.tsx";
import type { GenerationResult } from "./use-generation.ts";

export interface ResultPanelProps {
  generating: boolean;
  result: GenerationResult | null;
  referenceUrl: string | null;
  view360Enabled: boolean;
  onOpen360(): void;
}

/** 9:16 frame that fits the desktop viewport height. */
export const FRAME = "mx-auto w-full lg:max-w-[max(16rem,calc((100dvh-24rem)*0.5625))]";

export function ResultPanel(
  { generating, result, referenceUrl, view360Enabled, onOpen360 }: ResultPanelProps,
) {
  const image = result?.images[0];

  async function download() {
    if (!image) return;
    const name = downloadName("styletwin-result", image);
    toast(downloadToast(await downloadImage(image, name), name));
  }

  return (
    <section
      aria-labelledby="result-title"
      aria-busy={generating}
      className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-5"
    >
      <h2 id="result-title" className="sr-only">Result</h2>
      {generating
        ? (
          <div
            role="status"
            className={`checker grid aspect-[9/16] place-items-center rounded-2xl text-center ${FRAME}`}
          >
            <div className="flex flex-col items-center gap-4 px-6">
              <span className="grid size-16 place-items-center rounded-full bg-white text-brand-600 shadow-lg">
                <Spinner className="size-8" />
              </span>
              <p className="max-w-56 text-sm font-medium text-ink-700">
                Generating your styled image in 9:16 format...
              </p>
            </div>
          </div>
        )
        : image
        ? (
          <Tabs.Root defaultValue="result">
            <Tabs.List
              aria-label="Result view"
              className="mb-3 grid grid-cols-2 rounded-full bg-ink-100 p-1 text-sm font-semibold"
            >
              <Tabs.Trigger
                value="result"
                className="rounded-full px-3 py-1.5 text-ink-600 data-[state=active]:bg-white data-[state=active]:text-ink-900 data-[state=active]:shadow-sm"
              >
                Result
              </Tabs.Trigger>
              <Tabs.Trigger
                value="compare"
                disabled={!referenceUrl}
                className="rounded-full px-3 py-1.5 text-ink-600 data-[state=active]:bg-white data-[state=active]:text-ink-900 data-[state=active]:shadow-sm"
              >
                Before / After
              </Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="result" className="outline-none">
              <div className={`relative ${FRAME}`}>
                <img
                  src={image}
                  alt="Your styled avatar"
                  className="aspect-[9/16] w-full rounded-2xl bg-ink-100 object-cover"
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
              {referenceUrl && <CompareSlider before={referenceUrl} after={image} />}
            </Tabs.Content>
            {result && result.notes.length > 0 && (
              <ul className="mt-3 space-y-1 rounded-2xl bg-amber-50 p-3 text-xs text-amber-900">
                {result.notes.map((n) => <li key={n}>{n}</li>)}
              </ul>
            )}
            {view360Enabled && result && result.images.length > 1 && (
              <Button
                variant="secondary"
                className="mt-3 w-full"
                onClick={onOpen360}
              >
                <RotateIcon className="size-4" /> 360° View
              </Button>
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
    </section>
  );
}
