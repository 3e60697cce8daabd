/** Before/after compare: drag (or arrow-key) a divider between the reference photo and the result. */
import { type PointerEvent, useRef, useState } from "react";
import { CompareIcon } from "../../ui/icons.tsx";

export function CompareSlider(
  { before, after }: { before: string; after: string },
) {
  const [pos, setPos] = useState(50);
  const boxRef = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);
  // Either photo missing (an expired upload, a dropped connection): say so instead of a broken image.
  const [broken, setBroken] = useState<string | null>(null);
  if (broken === `${before}|${after}`) {
    return (
      <div
        role="alert"
        data-testid="compare"
        className="grid aspect-[9/16] w-full place-items-center rounded-2xl bg-ink-100 p-6 text-center text-sm text-ink-700"
      >
        <div>
          <p className="font-semibold text-ink-900">The photos could not be loaded.</p>
          <p className="mt-1 text-xs text-ink-500">
            If your reference photo has expired, upload it again to compare.
          </p>
          <button
            type="button"
            className="mt-3 text-sm font-semibold text-brand-700 underline-offset-4 hover:underline"
            onClick={() => setBroken(null)}
          >
            Try again
          </button>
        </div>
      </div>
    );
  }
  const onError = () => setBroken(`${before}|${after}`);

  const fromPointer = (e: PointerEvent) => {
    const box = boxRef.current?.getBoundingClientRect();
    if (!box || box.width === 0) return;
    const pct = ((e.clientX - box.left) / box.width) * 100;
    setPos(Math.max(0, Math.min(100, Math.round(pct))));
  };

  return (
    <div
      ref={boxRef}
      data-testid="compare"
      className="relative aspect-[9/16] w-full touch-none select-none overflow-hidden rounded-2xl bg-ink-100"
      onPointerDown={(e) => {
        dragging.current = true;
        e.currentTarget.setPointerCapture(e.pointerId);
        fromPointer(e);
      }}
      onPointerMove={(e) => dragging.current && fromPointer(e)}
      onPointerUp={() => (dragging.current = false)}
      onPointerCancel={() => (dragging.current = false)}
    >
      <img
        src={after}
        alt="After: styled result"
        draggable={false}
        onError={onError}
        className="absolute inset-0 size-full object-cover"
      />
      <img
        src={before}
        alt="Before: reference photo"
        draggable={false}
        onError={onError}
        className="absolute inset-0 size-full object-cover"
        style={{ clipPath: `inset(0 ${100 - pos}% 0 0)` }}
      />
      <span className="pointer-events-none absolute left-3 top-3 rounded-full bg-ink-900/70 px-2.5 py-1 text-xs font-semibold text-white">
        Before
      </span>
      <span className="pointer-events-none absolute right-3 top-3 rounded-full bg-brand-600/90 px-2.5 py-1 text-xs font-semibold text-white">
        After
      </span>
      <div
        className="pointer-events-none absolute inset-y-0 w-0.5 -translate-x-1/2 bg-white shadow-[0_0_0_1px_rgb(0_0_0/0.15)]"
        style={{ left: `${pos}%` }}
      />
      <div
        role="slider"
        tabIndex={0}
        aria-label="Compare before and after"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pos}
        aria-valuetext={`${pos}% before`}
        onKeyDown={(e) => {
          const step = e.shiftKey ? 20 : 5;
          const next = e.key === "ArrowLeft" || e.key === "ArrowDown"
            ? pos - step
            : e.key === "ArrowRight" || e.key === "ArrowUp"
            ? pos + step
            : e.key === "Home"
            ? 0
            : e.key === "End"
            ? 100
            : null;
          if (next === null) return;
          e.preventDefault();
          setPos(Math.max(0, Math.min(100, next)));
        }}
        className="absolute top-1/2 grid size-11 -translate-x-1/2 -translate-y-1/2 cursor-ew-resize place-items-center rounded-full bg-white text-ink-800 shadow-lg ring-1 ring-black/5 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
        style={{ left: `${pos}%` }}
      >
        <CompareIcon className="size-5" />
      </div>
    </div>
  );
}
