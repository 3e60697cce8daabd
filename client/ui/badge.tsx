/** A small white-on-colour pill over an offer card ("Most Popular", "Premium", "Best Value"). */
import type { ReactNode } from "react";

const TONES = {
  brand: "bg-brand-600",
  emerald: "bg-emerald-700",
  ink: "bg-ink-900",
} as const;

export function Badge(
  { tone, className = "", children }: { tone: keyof typeof TONES; className?: string; children: ReactNode },
) {
  return (
    <span className={`rounded-full text-xs font-bold text-white ${TONES[tone]} ${className}`}>
      {children}
    </span>
  );
}
