/** 360° View - Final Look: FRONT, RIGHT, LEFT, BACK with per-angle and Download All. */
import { Dialog } from "radix-ui";
import { useEffect, useState } from "react";
import {
  batchToast,
  downloadImage,
  downloadName,
  type DownloadOutcome,
  downloadToast,
  isMobileDevice,
  prefetchImage,
  shareImages,
  sleep,
} from "../../lib/download.ts";
import { Button } from "../../ui/button.tsx";
import { DownloadIcon, XIcon } from "../../ui/icons.tsx";
import { SafeImage } from "../../ui/safe-image.tsx";
import { keepOpenOnToast, toast, useToastInset } from "../../ui/toast.tsx";

/** The action bar's buttons on a phone under 360 px: their names wrap, centred, 13 px. */
const NARROW_BUTTON =
  "max-[360px]:whitespace-normal max-[360px]:px-2 max-[360px]:text-center max-[360px]:text-[13px] max-[360px]:leading-tight";

export const ANGLE_LABELS = ["FRONT", "RIGHT", "LEFT", "BACK"] as const;

export interface View360OverlayProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  /** FRONT, RIGHT, LEFT, BACK; while `generating`, "" marks an angle still being made. */
  images: string[];
  /** The set is still being generated: the grid fills angle by angle. */
  generating?: boolean;
  /** The generation's notes (a partial set says which angles could not be made). */
  notes?: string[];
}

/**
 * The grid's caption. The finished set's caption is the product's own; while angles are still
 * being made it says how many, not "All angles generated" over tiles still being generated.
 */
function captionOf(pending: number): string {
  if (pending === 0) return "All angles generated in 9:16 aspect ratio.";
  return `Generating ${pending} more ${pending === 1 ? "angle" : "angles"} in 9:16 aspect ratio…`;
}

/** The note the server adds when some angles of a 360 set could not be generated. */
const PARTIAL_SET = "The 360° set is partial";

export function View360Overlay(
  { open, onOpenChange, images, generating = false, notes = [] }: View360OverlayProps,
) {
  const [busy, setBusy] = useState(false);
  const urls = ANGLE_LABELS.map((_, i) => images[i] ?? images[0]);
  const isPending = (i: number) => generating && !urls[i];
  // Every stored result has its own key, so an angle showing the front's URL is the
  // "missing angles fall back to the first image" rule at work for an angle the model could
  // not make: say so rather than pass it off as that view.
  const isFallback = (i: number) => !generating && i > 0 && !!urls[i] && urls[i] === urls[0];
  const partial = notes.some((n) => n.startsWith(PARTIAL_SET));
  // A view a partial set lacks is shown as the front, labelled, but never saved as that view.
  const noDownload = (i: number) => isPending(i) || (partial && isFallback(i));
  const nameOf = (i: number) => downloadName(`styletwin-360-${ANGLE_LABELS[i].toLowerCase()}`, urls[i]);
  const key = urls.join("|");

  // Phones save through the share sheet, which must open inside the tap: fetch the images now.
  useEffect(() => {
    if (!open || generating || !isMobileDevice()) return;
    for (const url of new Set(key.split("|"))) if (url) prefetchImage(url).catch(() => {});
  }, [open, key]);
  // On phones, toasts sit above the bottom action bar instead of covering Close 360° View.
  useToastInset(open, "4.5rem");

  async function downloadOne(i: number) {
    const url = urls[i];
    if (!url) return;
    const name = nameOf(i);
    const t = downloadToast(await downloadImage(url, name), name);
    if (t) toast(t);
  }

  async function downloadAll() {
    setBusy(true);
    try {
      const items = urls.map((url, i) => ({ url, name: nameOf(i), label: ANGLE_LABELS[i] }))
        .filter((item, i) => item.url && !noDownload(i));
      // Phones: one share sheet with all four files (a second share call would be outside the tap).
      const shared = await shareImages(items);
      if (shared === "shared") {
        toast(downloadToast("shared", "")!);
        return;
      }
      if (shared === "cancelled") return;
      // One at a time, 500 ms apart; one toast for the whole batch, so a failure is never replaced by
      // a success (one toast shows at a time).
      const results: { outcome: DownloadOutcome; label: string }[] = [];
      for (let i = 0; i < items.length; i++) {
        if (i > 0) await sleep(500);
        results.push({ outcome: await downloadImage(items[i].url, items[i].name), label: items[i].label });
      }
      const t = batchToast(results);
      if (t) toast(t);
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
          // Touching a toast over the overlay is not an outside click: keep the overlay open.
          onInteractOutside={keepOpenOnToast}
          className="overlay-anim fixed inset-0 z-50 flex flex-col items-center overflow-y-auto px-4 pt-5 outline-none sm:py-8"
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
                data-angle={label.toLowerCase()}
                data-state={isPending(i) ? "pending" : isFallback(i) ? "missing" : "ready"}
                className="relative overflow-hidden rounded-2xl bg-ink-800 ring-1 ring-white/10"
              >
                {isPending(i)
                  ? (
                    <div
                      role="status"
                      className="grid aspect-[9/16] w-full place-items-center p-3 text-center"
                    >
                      <div>
                        <span
                          aria-hidden="true"
                          className="mx-auto block size-8 animate-spin rounded-full border-2 border-white/25 border-t-white motion-reduce:animate-none"
                        />
                        <p className="mt-3 text-xs font-semibold text-white">Generating the {label} view…</p>
                      </div>
                    </div>
                  )
                  : (
                    <SafeImage
                      src={urls[i]}
                      alt={`${label} view`}
                      className="aspect-[9/16] w-full object-cover"
                      fallback={(retry) => (
                        <div
                          role="alert"
                          className="grid aspect-[9/16] w-full place-items-center p-3 text-center"
                        >
                          <div>
                            <p className="text-xs font-semibold text-white">This view could not be loaded.</p>
                            <button
                              type="button"
                              onClick={retry}
                              className="mt-2 text-xs font-semibold text-brand-200 underline underline-offset-4"
                            >
                              Try again
                            </button>
                          </div>
                        </div>
                      )}
                    />
                  )}
                <span className="absolute left-2 top-2 rounded-full bg-ink-900/75 px-2.5 py-1 text-[11px] font-bold tracking-widest text-white">
                  {label}
                </span>
                {isFallback(i) && (
                  <span className="absolute inset-x-2 bottom-14 rounded-lg bg-ink-900/75 px-2 py-1 text-center text-[11px] text-white">
                    {partial
                      ? `${label} view could not be generated: front view shown`
                      : "Front view shown: this image model renders the front only"}
                  </span>
                )}
                {!noDownload(i) && (
                  <button
                    type="button"
                    onClick={() => downloadOne(i)}
                    aria-label={`Download ${label} view`}
                    className="absolute bottom-2 right-2 grid size-9 place-items-center rounded-full bg-white text-ink-900 shadow-lg hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
                  >
                    <DownloadIcon className="size-4" />
                  </button>
                )}
              </li>
            ))}
          </ul>
          <p id="view360-caption" aria-live="polite" className="mt-4 text-center text-sm text-white/75">
            {captionOf(urls.filter((_, i) => isPending(i)).length)}
          </p>
          {/* Sticky on phones, where the grid is taller than the screen; toasts are lifted above it. */}
          {/* Under 360 px a name may take two lines: "Download All Views" needs 150 px, a button has 116. */}
          <div className="sticky bottom-0 -mx-4 mt-4 grid h-18 w-[calc(100%+2rem)] grid-cols-2 gap-2 bg-gradient-to-t from-ink-900/95 via-ink-900/85 to-transparent px-4 pb-4 pt-3 sm:static sm:mx-0 sm:flex sm:h-auto sm:w-auto sm:justify-center sm:gap-3 sm:bg-none sm:p-0 sm:pb-4">
            <Button
              onClick={downloadAll}
              disabled={busy || generating}
              className={`max-sm:px-3 ${NARROW_BUTTON}`}
            >
              <DownloadIcon className="size-4 max-[400px]:hidden" /> Download All Views
            </Button>
            <Button
              variant="outline"
              className={`border-white/20 bg-white/10 text-white hover:bg-white/20 max-sm:px-3 ${NARROW_BUTTON}`}
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
