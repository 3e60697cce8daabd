/** One option group: a radio group of chips (swatches for colours), unsupported ones marked. */
import { RadioGroup, Slider } from "radix-ui";
import { useId } from "react";
import type { OptionEntry } from "./catalog.ts";

export interface OptionGroupProps {
  title: string;
  entries: OptionEntry[];
  value: string | undefined;
  onChange(id: string): void;
  isUnsupported(id: string): boolean;
  modelName: string;
  intensity?: { value: number; onChange(v: number): void };
}

export function OptionGroup(
  {
    title,
    entries,
    value,
    onChange,
    isUnsupported,
    modelName,
    intensity,
  }: OptionGroupProps,
) {
  const titleId = useId();
  const sliderLabelId = useId();
  const isDefault = value === entries[0]?.id;
  return (
    <fieldset className="border-t border-ink-100 pt-5 first:border-t-0 first:pt-0">
      <legend id={titleId} className="sr-only">{title}</legend>
      <div className="mb-3 flex items-baseline justify-between gap-3">
        <h4 aria-hidden="true" className="text-sm font-semibold text-ink-900">
          {title}
        </h4>
        <span className="truncate text-xs text-ink-500">
          {entries.find((e) => e.id === value)?.label}
        </span>
      </div>
      <RadioGroup.Root
        aria-labelledby={titleId}
        value={value}
        onValueChange={onChange}
        className="flex flex-wrap gap-2"
        loop
      >
        {entries.map((entry) => {
          const unsupported = isUnsupported(entry.id);
          return (
            <RadioGroup.Item
              key={entry.id}
              value={entry.id}
              aria-label={unsupported
                ? `${entry.label} (not supported by the ${modelName} model)`
                : entry.label}
              title={unsupported ? `The ${modelName} image model can't render this yet` : undefined}
              data-unsupported={unsupported || undefined}
              className={`group inline-flex min-h-9 items-center gap-2 rounded-full border px-3 py-1.5 text-left text-[13px] font-medium transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 data-[state=checked]:border-brand-500 data-[state=checked]:bg-brand-50 data-[state=checked]:text-brand-800 data-[state=checked]:ring-1 data-[state=checked]:ring-brand-500 ${
                unsupported
                  ? "border-dashed border-ink-300 bg-white text-ink-500 hover:border-ink-400"
                  : "border-ink-200 bg-white text-ink-800 hover:border-ink-300 hover:bg-ink-50"
              }`}
            >
              {entry.hex && (
                <span
                  aria-hidden="true"
                  className="size-4 shrink-0 rounded-full ring-1 ring-black/10 ring-inset"
                  style={{ background: entry.hex }}
                />
              )}
              <span>{entry.label}</span>
              {unsupported && <UnsupportedMark />}
            </RadioGroup.Item>
          );
        })}
      </RadioGroup.Root>
      {intensity && (
        <div className="mt-4 flex items-center gap-4">
          <span
            id={sliderLabelId}
            className="w-20 shrink-0 text-xs font-medium text-ink-600"
          >
            Intensity
          </span>
          <Slider.Root
            value={[intensity.value]}
            onValueChange={([v]) => intensity.onChange(v)}
            min={0}
            max={100}
            step={5}
            disabled={isDefault}
            aria-labelledby={sliderLabelId}
            className="relative flex h-6 flex-1 touch-none select-none items-center data-[disabled]:opacity-40"
          >
            <Slider.Track className="relative h-1.5 grow overflow-hidden rounded-full bg-ink-100">
              <Slider.Range className="absolute h-full rounded-full bg-gradient-to-r from-brand-400 to-fuchsia-500" />
            </Slider.Track>
            <Slider.Thumb
              aria-label={`${title} intensity`}
              className="block size-5 rounded-full border-2 border-brand-500 bg-white shadow focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
            />
          </Slider.Root>
          <span className="w-10 text-right text-xs tabular-nums text-ink-600">
            {intensity.value}%
          </span>
        </div>
      )}
    </fieldset>
  );
}

/** The "this model can't render it" marker (the label carries it for screen readers). */
export function UnsupportedMark() {
  return (
    <svg
      viewBox="0 0 16 16"
      aria-hidden="true"
      className="inline size-3.5 shrink-0 align-[-2px] text-ink-400"
    >
      <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeWidth="1.6" />
      <path d="M3.8 12.2l8.4-8.4" stroke="currentColor" strokeWidth="1.6" />
    </svg>
  );
}
