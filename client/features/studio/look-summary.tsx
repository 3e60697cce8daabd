/** What a chosen look includes (its eyeshadow, lips, base, cheeks and extras), with swatches. */
import type { LookLayer } from "./option-model.ts";

export function LookSummary({ look, layers }: { look: string; layers: LookLayer[] }) {
  if (layers.length === 0) return null;
  return (
    <div className="mt-3 rounded-2xl bg-brand-50/60 p-3 ring-1 ring-brand-100" data-testid="look-summary">
      <p className="text-xs font-semibold text-ink-800">{look} includes</p>
      <ul className="mt-2 flex flex-wrap gap-x-3 gap-y-1.5">
        {layers.map((l) => (
          <li key={l.key} className="inline-flex items-center gap-1.5 text-xs text-ink-700">
            {l.entry.hex && (
              <span
                aria-hidden="true"
                className="size-3.5 shrink-0 rounded-full ring-1 ring-black/10 ring-inset"
                style={{ background: l.entry.hex }}
              />
            )}
            <span>
              <span className="text-ink-500">{l.title}:</span> {l.entry.label}
            </span>
          </li>
        ))}
      </ul>
      <p className="mt-2 text-[11px] text-ink-500">
        Pick any category below to change one layer of the look.
      </p>
    </div>
  );
}
