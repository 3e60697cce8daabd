/**
 * Home page notice for a generation that is still being waited for (the user
 * went Back to Home while it ran, or it timed out): the way back to it, so a
 * paid result is not silently lost.
 */
import { useState } from "react";
import { loadPending, type PendingGeneration, savePending } from "../lib/pending-generation.ts";
import { Button } from "../ui/button.tsx";
import { SparklesIcon, XIcon } from "../ui/icons.tsx";

export function PendingGenerationBanner(
  { onReturn }: {
    onReturn(pending: PendingGeneration & { photo: NonNullable<PendingGeneration["photo"]> }): void;
  },
) {
  const [pending, setPending] = useState(loadPending);
  if (!pending?.photo) return null;
  const photo = pending.photo;
  return (
    <div className="mx-auto max-w-6xl px-4 pt-4 sm:px-6">
      <section
        aria-labelledby="pending-generation-title"
        data-testid="pending-generation"
        className="flex flex-wrap items-center gap-3 rounded-3xl bg-white p-4 shadow-sm ring-1 ring-brand-200 sm:flex-nowrap"
      >
        <span className="grid size-10 shrink-0 place-items-center rounded-2xl bg-brand-50 text-brand-600">
          <SparklesIcon className="size-5" />
        </span>
        <div className="min-w-[12rem] flex-1 basis-0">
          <h2 id="pending-generation-title" className="text-sm font-semibold text-ink-900">
            Your avatar is still being generated
          </h2>
          <p className="text-sm text-ink-500">Return to the studio to see it when it is ready.</p>
        </div>
        <Button
          size="sm"
          className="max-sm:order-last max-sm:w-full"
          onClick={() => onReturn({ ...pending, photo })}
        >
          Return to Studio
        </Button>
        <button
          type="button"
          aria-label="Dismiss: forget this generation"
          title="Dismiss"
          className="grid size-8 place-items-center rounded-full text-ink-500 hover:bg-ink-100 hover:text-ink-900"
          onClick={() => {
            savePending(null);
            setPending(null);
          }}
        >
          <XIcon className="size-4" />
        </button>
      </section>
    </div>
  );
}
