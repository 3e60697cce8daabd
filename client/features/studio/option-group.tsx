/**
 * One option group: a radio group of tiles (a swatch or glyph above the name) or chips, with the
 * options this image model cannot render shown as unavailable (not selectable) and why, and, for
 * makeup, an intensity slider. On phones the group is a collapsible section (the panel keeps one
 * open) whose tiles scroll sideways in one row; on desktop every group is open and tiles wrap.
 */
import { RadioGroup, Slider } from "radix-ui";
import { useId } from "react";
import type { OptionKey } from "../../../server/styling/option-keys.ts";
import type { OptionEntry } from "./catalog.ts";
import { OptionSwatch, swatchKind } from "./option-swatch.tsx";

export interface OptionGroupProps {
  optionKey: OptionKey;
  title: string;
  entries: OptionEntry[];
  value: string | undefined;
  onChange(id: string): void;
  /** Why an option cannot be chosen with the active model, or null. */
  unavailableReason(id: string): string | null;
  /** Makeup categories: 0-100. */
  intensity?: { value: number; onChange(v: number): void };
  /** The chosen look sets this category (shown while the group itself is at its default). */
  fromLook?: { look: string; entry: OptionEntry };
  /** Colours per look id, for the look tiles' palettes. */
  palettes?: Record<string, string[]>;
  /** Phones: a collapsible section. */
  collapsible?: { open: boolean; onToggle(): void };
}

const tileBase =
  "group relative flex shrink-0 snap-start flex-col items-center gap-1.5 rounded-2xl border p-1.5 pb-2 text-center transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 data-[state=checked]:border-brand-500 data-[state=checked]:bg-brand-50 data-[state=checked]:ring-1 data-[state=checked]:ring-brand-500 disabled:cursor-not-allowed";
const chipBase =
  "group relative inline-flex min-h-10 shrink-0 snap-start items-center gap-1.5 rounded-full border px-3.5 py-1.5 text-left text-[13px] font-medium transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 data-[state=checked]:border-brand-500 data-[state=checked]:bg-brand-50 data-[state=checked]:text-brand-800 data-[state=checked]:ring-1 data-[state=checked]:ring-brand-500 disabled:cursor-not-allowed";

/** A tile or chip this model cannot render. */
const unavailableTone = "border-dashed border-ink-200 bg-ink-50 text-ink-500";

export function OptionGroup(props: OptionGroupProps) {
  const { optionKey, title, entries, value, onChange, unavailableReason, intensity, fromLook, collapsible } =
    props;
  const titleId = useId();
  const bodyId = useId();
  const noteId = useId();
  const sliderLabelId = useId();
  const kind = swatchKind(optionKey);
  const isDefault = value === entries[0]?.id;
  const chosen = entries.find((e) => e.id === value);
  const reasons = entries.map((e) => unavailableReason(e.id)).filter((r): r is string => r !== null);
  const someUnavailable = reasons.length > 0;
  const allUnavailable = someUnavailable && reasons.length === entries.length - 1;
  const open = collapsible ? collapsible.open : true;
  const summary = isDefault && fromLook ? `${fromLook.entry.label} (${fromLook.look})` : chosen?.label;
  const sliderDisabled = isDefault && !fromLook;

  const header = collapsible
    ? (
      <h4 className="m-0">
        <button
          type="button"
          id={titleId}
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={collapsible.onToggle}
          className="flex min-h-12 w-full items-center gap-3 rounded-xl py-2 text-left focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
        >
          {kind && chosen && kind !== "hair" && (
            <OptionSwatch
              kind={kind}
              entry={chosen}
              isDefault={isDefault}
              palette={props.palettes?.[chosen.id]}
            />
          )}
          <span className="min-w-0 flex-1">
            <span className="block text-sm font-semibold text-ink-900">{title}</span>
            <span className="block truncate text-xs text-ink-500">
              {allUnavailable ? "Not available with this image model" : summary}
            </span>
          </span>
          <svg
            viewBox="0 0 20 20"
            aria-hidden="true"
            className={`size-5 shrink-0 text-ink-400 transition-transform motion-reduce:transition-none ${
              open ? "rotate-180" : ""
            }`}
          >
            <path
              d="M5 7.5l5 5 5-5"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinecap="round"
            />
          </svg>
        </button>
      </h4>
    )
    : (
      <div className="mb-3 flex items-baseline justify-between gap-3">
        <h4 id={titleId} className="text-sm font-semibold text-ink-900">{title}</h4>
        <span className="truncate text-xs text-ink-500" data-testid={`value-${optionKey}`}>
          {allUnavailable ? "Not available with this image model" : summary}
        </span>
      </div>
    );

  return (
    <section
      aria-labelledby={titleId}
      data-group={optionKey}
      className={collapsible
        ? "border-t border-ink-100 first:border-t-0"
        : "border-t border-ink-100 pt-5 first:border-t-0 first:pt-0"}
    >
      {header}
      <div id={bodyId} hidden={!open} className={collapsible ? "pb-4" : ""}>
        <RadioGroup.Root
          aria-label={title}
          aria-describedby={someUnavailable ? noteId : undefined}
          value={value}
          onValueChange={onChange}
          orientation="horizontal"
          loop
          className={collapsible
            ? "-mx-4 flex snap-x gap-2 overflow-x-auto scroll-px-4 px-4 pb-1 pt-0.5 [scrollbar-width:none]"
            : "flex flex-wrap gap-2"}
        >
          {entries.map((entry, i) => {
            const reason = unavailableReason(entry.id);
            const item = {
              value: entry.id,
              disabled: reason !== null,
              "aria-label": reason ? `${entry.label} (unavailable)` : entry.label,
              title: reason ?? undefined,
              "data-unavailable": reason !== null || undefined,
            };
            if (kind) {
              return (
                <RadioGroup.Item
                  key={entry.id}
                  {...item}
                  className={`${tileBase} w-[4.75rem] ${
                    reason ? unavailableTone : "border-transparent bg-white text-ink-800 hover:border-ink-200"
                  }`}
                >
                  <span className={reason ? "opacity-40 grayscale" : ""}>
                    <OptionSwatch
                      kind={kind}
                      entry={entry}
                      isDefault={i === 0}
                      palette={props.palettes?.[entry.id]}
                    />
                  </span>
                  {/* Up to three lines: at two, "Classic Red (Matte)" read "Classic Red..." in a 76 px tile. */}
                  {/* 72 px wide, into the tile's padding: "Champagne" and "Brightening" need 67 and 64. */}
                  <span
                    className="-mx-1 line-clamp-3 text-[11px] font-medium leading-tight"
                    data-option-label
                  >
                    {entry.label}
                  </span>
                  {reason && <LockMark className="absolute right-1.5 top-1.5" />}
                </RadioGroup.Item>
              );
            }
            return (
              <RadioGroup.Item
                key={entry.id}
                {...item}
                className={`${chipBase} ${
                  reason
                    ? unavailableTone
                    : "border-ink-200 bg-white text-ink-800 hover:border-ink-300 hover:bg-ink-50"
                }`}
              >
                {entry.label}
                {reason && <LockMark />}
              </RadioGroup.Item>
            );
          })}
        </RadioGroup.Root>
        {someUnavailable && (
          <p id={noteId} className="mt-2 flex items-start gap-1.5 text-xs text-ink-600">
            <LockMark className="mt-0.5" />
            <span>{reasons[0]}.</span>
          </p>
        )}
        {intensity && (
          <div className="mt-4 flex items-center gap-4">
            <span id={sliderLabelId} className="w-16 shrink-0 text-xs font-medium text-ink-600">
              Intensity
            </span>
            <Slider.Root
              value={[intensity.value]}
              onValueChange={([v]) => intensity.onChange(v)}
              min={0}
              max={100}
              step={5}
              disabled={sliderDisabled}
              aria-labelledby={sliderLabelId}
              className="relative flex h-8 flex-1 touch-none select-none items-center data-[disabled]:opacity-40"
            >
              <Slider.Track className="relative h-1.5 grow overflow-hidden rounded-full bg-ink-100">
                {!sliderDisabled && (
                  <Slider.Range className="absolute h-full rounded-full bg-gradient-to-r from-brand-400 to-fuchsia-500" />
                )}
              </Slider.Track>
              <Slider.Thumb
                aria-label={`${title} intensity`}
                aria-valuetext={sliderDisabled
                  ? `Choose a ${title.toLowerCase()} first`
                  : `${intensity.value}%`}
                className="block size-6 rounded-full border-2 border-brand-500 bg-white shadow focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 data-[disabled]:opacity-0"
              />
            </Slider.Root>
            <span
              className="w-10 text-right text-xs tabular-nums text-ink-600"
              data-testid={`intensity-${optionKey}`}
            >
              {sliderDisabled ? "" : `${intensity.value}%`}
            </span>
          </div>
        )}
      </div>
    </section>
  );
}

/** A small padlock: this option needs a model the server does not have. */
export function LockMark({ className = "" }: { className?: string }) {
  return (
    <svg viewBox="0 0 16 16" aria-hidden="true" className={`size-3.5 shrink-0 text-ink-400 ${className}`}>
      <rect x="3.5" y="7" width="9" height="6.5" rx="1.5" fill="currentColor" />
      <path d="M5.5 7V5.5a2.5 2.5 0 0 1 5 0V7" fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}
