/** A small "i" button that opens a short explanation (Radix Popover: keyboard and screen-reader friendly). */
import { Popover } from "radix-ui";
import type { ReactNode } from "react";

export function InfoPopover(
  { label, children, className = "" }: { label: string; children: ReactNode; className?: string },
) {
  return (
    <Popover.Root>
      <Popover.Trigger
        aria-label={label}
        className={`inline-grid size-7 shrink-0 place-items-center rounded-full text-ink-500 hover:bg-ink-100 hover:text-ink-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 ${className}`}
      >
        <svg viewBox="0 0 20 20" aria-hidden="true" className="size-4 shrink-0">
          <circle cx="10" cy="10" r="7.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path d="M10 9v4.5M10 6.4v.1" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
        </svg>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          side="top"
          align="center"
          sideOffset={6}
          collisionPadding={12}
          className="z-[60] max-w-72 rounded-2xl bg-ink-900 px-4 py-3 text-xs leading-relaxed text-white shadow-xl outline-none"
        >
          {children}
          <Popover.Arrow className="fill-ink-900" />
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
