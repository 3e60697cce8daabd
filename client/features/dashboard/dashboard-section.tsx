/**
 * The dashboard's card: the rounded white panel the Profile, Subscription and
 * Settings tabs are built from (red-tinted for the one dangerous action), and
 * the usual section inside it, a heading with a line of explanation.
 */
import type { ReactNode } from "react";

type Tone = "default" | "danger";

const CARD_TONE: Record<Tone, string> = {
  default: "border-ink-100 bg-white",
  danger: "border-red-200 bg-red-50/40",
};

export interface DashboardCardProps {
  /** A `div` where the card is not a named section of its own. */
  as?: "section" | "div";
  /** The id of the heading that names the section. */
  labelledBy?: string;
  tone?: Tone;
  children: ReactNode;
}

export function DashboardCard(
  { as: Tag = "section", labelledBy, tone = "default", children }: DashboardCardProps,
) {
  return (
    <Tag
      className={`rounded-3xl border ${CARD_TONE[tone]} p-5 shadow-sm sm:p-8`}
      aria-labelledby={labelledBy}
    >
      {children}
    </Tag>
  );
}

export interface DashboardSectionProps {
  /** The heading's id (the section is labelled by it). */
  headingId: string;
  title: string;
  description?: ReactNode;
  tone?: Tone;
  children: ReactNode;
}

export function DashboardSection(
  { headingId, title, description, tone = "default", children }: DashboardSectionProps,
) {
  const danger = tone === "danger";
  return (
    <DashboardCard labelledBy={headingId} tone={tone}>
      <h2 id={headingId} className={`text-lg font-bold ${danger ? "text-red-800" : "text-ink-900"}`}>
        {title}
      </h2>
      {description && (
        <p className={`mt-1 text-sm ${danger ? "text-ink-600" : "text-ink-500"}`}>{description}</p>
      )}
      {children}
    </DashboardCard>
  );
}
