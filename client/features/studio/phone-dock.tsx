/**
 * A frosted bar pinned to an edge of a phone's screen: the photo stage under
 * the header (top) and the Generate bar (bottom, above the home indicator).
 */
import type { ReactNode } from "react";

const EDGE = {
  top: "sticky top-16 z-20 border-b py-3 shadow-[0_8px_24px_rgb(28_24_36/0.05)]",
  bottom:
    "fixed inset-x-0 bottom-0 z-30 border-t pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-2.5 shadow-[0_-8px_24px_rgb(28_24_36/0.06)]",
} as const;

export interface PhoneDockProps {
  edge: keyof typeof EDGE;
  testId: string;
  /** The layout of the row inside the bar. */
  className: string;
  children: ReactNode;
}

export function PhoneDock({ edge, testId, className, children }: PhoneDockProps) {
  return (
    <div data-testid={testId} className={`${EDGE[edge]} border-ink-100 bg-white/95 px-3 backdrop-blur-lg`}>
      <div className={className}>{children}</div>
    </div>
  );
}
