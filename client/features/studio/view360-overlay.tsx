/** 360° View - Final Look: FRONT, RIGHT, LEFT, BACK with per-angle and Download All. */
import { Dialog } from "radix-ui";
import { useState } from "react";
import { downloadImage, downloadName, downloadToast, sleep } from "../../lib/download.ts";
import { Button } from "../../ui/button.tsx";
import { DownloadIcon, XIcon } from "../../ui/icons.tsx";
import { toast } from "../../ui/toast.tsx";

export const ANGLE_LABELS = ["FRONT", "RIGHT", "LEFT", "BACK"] as const;

export interface View360OverlayProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  images: string[];
}

export function View360Overlay(
  { open, onOpenChange, images }: View360OverlayProps,
) {
  const [busy, setBusy] = useState(false);
  const urls = ANGLE_LABELS.map((_, i) => images[i] ?? images[0]);
  // Every stored result has its own key, so an angle showing the front's URL is the spec's
  // fallback for an angle the model could not make: say so rather than pass it off as that view.
  const isFallback = (i: number) => i > 0 && urls[i] === urls[0];

  async function downloadOne(i: number, announce = true) {
    const url = urls[i];
    if (!url) return;
    const name = downloadName(
      `styletwin-360-${ANGLE_LABELS[i].toLowerCase()}`,
      url,
    );
    const outcome = await downloadImage(url, name);
    if (announce || outcome === "failed") toast(downloadToast(outcome, name));
  }

  async function downloadAll() {
    setBusy(true);
    try {
      for (let i = 0; i < urls.length; i++) {
        if (i > 0) await sleep(500);
        await downloadOne(i, false);
      }
      toast({
        title: "Download Started",
        description: "Saving all 4 views.",
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay-anim fixed inset-0 z-50 bg-ink-900/80 backdrop-blur-md" />
        <Dialog.Content
          aria-describedby="view360-caption"
          className="overlay-anim fixed inset-0 z-50 flex flex-col items-center overflow-y-auto px-4 py-5 outline-none sm:py-8"
        >
          <div className="flex w-full max-w-[min(100%,calc((100dvh-13rem)*9/16+1rem))] min-w-[min(100%,21rem)] items-center justify-between gap-3">
            <Dialog.Title className="text-lg font-bold tracking-tight text-white sm:text-2xl">
              360° View - Final Look
            </Dialog.Title>
            <Dialog.Close
              aria-label="Close"
              className="grid size-9 shrink-0 place-items-center rounded-full bg-white/10 text-white hover:bg-white/20"
            >
              <XIcon className="size-5" />
            </Dialog.Close>
          </div>
          <ul className="mt-4 grid w-full max-w-[min(100%,calc((100dvh-13rem)*9/16+1rem))] min-w-[min(100%,21rem)] grid-cols-2 gap-3 sm:gap-4">
            {ANGLE_LABELS.map((label, i) => (
              <li
                key={label}
                className="relative overflow-hidden rounded-2xl bg-ink-800 ring-1 ring-white/10"
              >
                <img
                  src={urls[i]}
                  alt={`${label} view`}
                  className="aspect-[9/16] w-full object-cover"
                />
                <span className="absolute left-2 top-2 rounded-full bg-ink-900/75 px-2.5 py-1 text-[11px] font-bold tracking-widest text-white">
                  {label}
                </span>
                {isFallback(i) && (
                  <span className="absolute inset-x-2 bottom-14 rounded-lg bg-ink-900/75 px-2 py-1 text-center text-[11px] text-white">
                    Front view shown: this image model renders the front only
                  </span>
                )}
                <button
                  type="button"
                  onClick={() => downloadOne(i)}
                  aria-label={`Download ${label} view`}
                  className="absolute bottom-2 right-2 grid size-9 place-items-center rounded-full bg-white text-ink-900 shadow-lg hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
                >
                  <DownloadIcon className="size-4" />
                </button>
              </li>
            ))}
          </ul>
          <p id="view360-caption" className="mt-4 text-center text-sm text-white/75">
            All angles generated in 9:16 aspect ratio.
          </p>
          <div className="mt-4 flex flex-wrap justify-center gap-3 pb-4">
            <Button onClick={downloadAll} disabled={busy}>
              <DownloadIcon className="size-4" /> Download All Views
            </Button>
            <Button
              variant="outline"
              className="border-white/20 bg-white/10 text-white hover:bg-white/20"
              onClick={() => onOpenChange(false)}
            >
              Close 360° View
            </Button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
