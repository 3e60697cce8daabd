/**
 * Generate: the 360° View checkbox (disabled, with the reason, when the model renders the front
 * only), what a generation costs and the Generate button. One component, two placements: a card
 * in the desktop column and a bar stuck to the bottom of a phone's screen.
 */
import { Checkbox } from "radix-ui";
import { useEffect, useId, useRef } from "react";
import { GENERATION_COST } from "../../api/types.ts";
import { Button } from "../../ui/button.tsx";
import { CheckIcon, SparklesIcon } from "../../ui/icons.tsx";
import { InfoPopover } from "../../ui/info-popover.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { PhoneDock } from "./phone-dock.tsx";

export interface GenerateBarProps {
  placement: "card" | "bar";
  view360: boolean;
  onView360Change(on: boolean): void;
  /** Why the 360° view is off for this model, or null. */
  view360Reason: string | null;
  generating: boolean;
  disabled: boolean;
  isAdmin: boolean;
  onGenerate(): void;
}

export function generateLabel(generating: boolean, isAdmin: boolean): string {
  return generating ? "Generating..." : isAdmin ? "Generate Avatar (Free - Admin)" : "Generate Avatar";
}

export function GenerateBar(props: GenerateBarProps) {
  const { placement, view360Reason, generating, isAdmin } = props;
  const id = useId();
  const reasonId = useId();
  const off = view360Reason !== null;
  // Generate is disabled while generating, which drops the keyboard's focus to the page: when the generation
  // ends, focus comes back to the button it was pressed on (unless the user has moved on to something else).
  const buttonRef = useRef<HTMLButtonElement>(null);
  const pressed = useRef(false);
  useEffect(() => {
    if (generating || !pressed.current) return;
    pressed.current = false;
    const active = document.activeElement;
    if (!active || active === document.body) buttonRef.current?.focus();
  }, [generating]);
  const checkbox = (
    <div className="flex items-center gap-2.5">
      <Checkbox.Root
        id={id}
        checked={props.view360 && !off}
        onCheckedChange={(c) => props.onView360Change(c === true)}
        disabled={generating || off}
        aria-describedby={off ? reasonId : undefined}
        className="grid size-6 shrink-0 place-items-center rounded-lg border-2 border-ink-300 bg-white text-white transition data-[state=checked]:border-brand-500 data-[state=checked]:bg-brand-500 disabled:border-ink-200 disabled:bg-ink-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
      >
        <Checkbox.Indicator>
          <CheckIcon className="size-4" strokeWidth={3} />
        </Checkbox.Indicator>
      </Checkbox.Root>
      <label
        htmlFor={id}
        className={`whitespace-nowrap text-sm font-semibold ${off ? "text-ink-500" : "text-ink-900"}`}
      >
        360° View
      </label>
      {off && (
        <InfoPopover label="Why the 360° view is off" className={placement === "bar" ? "-ml-1" : ""}>
          <span id={reasonId}>{view360Reason}.</span>
        </InfoPopover>
      )}
    </div>
  );
  const cost = isAdmin ? "Free for admins" : `Each generation uses ${GENERATION_COST} credits.`;
  const button = (
    <Button
      size="lg"
      className={placement === "bar"
        // The admin label (243 px at 15 px) was cut at both ends in a 375 px phone's bar: it wraps to two lines.
        ? `h-12 min-w-0 flex-1 px-4 text-[15px] max-[360px]:px-3 max-[360px]:text-sm ${
          isAdmin && !generating ? "px-3! text-sm! leading-tight! whitespace-normal!" : ""
        }`
        : "mt-4 w-full"}
      disabled={props.disabled || generating}
      ref={buttonRef}
      onClick={() => {
        pressed.current = true;
        props.onGenerate();
      }}
      data-testid={placement === "bar" ? "generate-bar-button" : "generate-card-button"}
    >
      {/* Under 360 px: no icon, 14 px text ("Generate Avatar" overflowed the bar's button at 320 px). */}
      {generating ? <Spinner className="size-5" /> : (
        <SparklesIcon
          className={placement === "bar" ? `size-5 max-[360px]:hidden ${isAdmin ? "hidden" : ""}` : "size-5"}
        />
      )}
      {generateLabel(generating, isAdmin)}
    </Button>
  );

  if (placement === "bar") {
    return (
      <PhoneDock edge="bottom" testId="sticky-generate" className="mx-auto flex max-w-xl items-center gap-3">
        <div className="shrink-0">
          {checkbox}
          <p className="mt-0.5 truncate text-[11px] text-ink-600" data-testid="generate-cost">
            {isAdmin ? "Free (admin)" : `${GENERATION_COST} credits`}
          </p>
        </div>
        {button}
      </PhoneDock>
    );
  }
  return (
    <section
      aria-label="Generate"
      className="rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100 sm:p-5"
    >
      <div className="flex items-center justify-between gap-3">
        {checkbox}
        <span className="text-xs text-ink-500">
          {off ? "Front view only" : "Front, right, left and back"}
        </span>
      </div>
      {button}
      <p className="mt-2 text-center text-xs text-ink-500" data-testid="generate-cost">{cost}</p>
    </section>
  );
}
