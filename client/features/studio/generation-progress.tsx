/**
 * The "generating" state of the result panel: the reference photo dimmed behind a progress bar with
 * an estimate of the time left (from how long this model usually takes), so the user sees progress
 * where they are looking instead of an empty frame.
 */
import { useEffect, useState } from "react";
import { expectedSeconds, progressFraction, remainingText } from "../../lib/estimate.ts";
import { Spinner } from "../../ui/spinner.tsx";

export function GenerationProgress(
  { photoUrl, local, angles, className = "" }: {
    photoUrl: string | null;
    local: boolean;
    angles: number;
    className?: string;
  },
) {
  const [started] = useState(() => Date.now());
  const [now, setNow] = useState(started);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, []);
  const elapsed = (now - started) / 1000;
  const expected = expectedSeconds(local, angles);
  const pct = Math.round(progressFraction(elapsed, expected) * 100);

  return (
    <div
      role="status"
      data-testid="generation-progress"
      className={`relative grid aspect-[9/16] place-items-center overflow-hidden rounded-2xl bg-ink-900 text-center ${className}`}
    >
      {photoUrl && (
        <img
          src={photoUrl}
          alt=""
          className="absolute inset-0 size-full scale-105 object-cover opacity-50 blur-sm"
        />
      )}
      <div className="relative flex w-full flex-col items-center gap-4 px-6">
        <span className="grid size-14 place-items-center rounded-full bg-white text-brand-600 shadow-lg">
          <Spinner className="size-7" />
        </span>
        <p className="max-w-56 text-sm font-semibold text-white [text-shadow:0_1px_2px_rgb(0_0_0/0.5)]">
          Generating your styled image in 9:16 format...
        </p>
        <div className="w-full max-w-56">
          <div
            role="progressbar"
            aria-label="Generation progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={pct}
            aria-valuetext={remainingText(elapsed, expected)}
            className="h-2 overflow-hidden rounded-full bg-white/30"
          >
            <div
              className="h-full rounded-full bg-gradient-to-r from-brand-400 to-fuchsia-400 transition-[width] duration-500 motion-reduce:transition-none"
              style={{ width: `${pct}%` }}
            />
          </div>
          <p className="mt-2 text-xs font-medium text-white/90" data-testid="generation-estimate">
            {remainingText(elapsed, expected)}
            {angles > 1 ? ` · ${angles} angles` : ""}
          </p>
        </div>
      </div>
    </div>
  );
}
