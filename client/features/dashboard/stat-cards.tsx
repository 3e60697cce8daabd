/** The four figures at the top of the dashboard, from GET /api/users/stats. */
import { ADMIN_CREDITS } from "../../api/types.ts";
import type { UserStats } from "./dashboard-api.ts";

function Card(
  { label, value, detail, wordy = false }: { label: string; value: string; detail?: string; wordy?: boolean },
) {
  return (
    <div className="rounded-2xl border border-ink-100 bg-white p-4 shadow-sm sm:p-5" data-testid="stat-card">
      <p className="text-xs font-semibold uppercase tracking-wide text-ink-500">{label}</p>
      <p
        className={`mt-1 font-bold tabular-nums text-ink-900 ${
          wordy ? "line-clamp-2 text-lg leading-tight sm:text-xl" : "truncate text-2xl sm:text-3xl"
        }`}
      >
        {value}
      </p>
      {/* Two lines, not one: on a phone's half-width card one cut "2 credits per generation" short. */}
      {detail && <p className="mt-1 line-clamp-2 text-xs text-ink-500">{detail}</p>}
    </div>
  );
}

export function StatCards({ stats, credits }: { stats: UserStats | undefined; credits: number }) {
  const loading = !stats;
  const dash = "–";
  const balance = stats?.available_credits ?? credits;
  const [top, ...rest] = stats?.favorite_styles ?? [];
  return (
    <section
      aria-label="Your statistics"
      className="grid grid-cols-2 gap-3 lg:grid-cols-4"
      aria-busy={loading}
    >
      <Card
        label="Total Generations"
        value={loading ? dash : String(stats.total_generations)}
        detail={loading ? undefined : `${stats.completed_generations} completed`}
      />
      <Card
        label="Available Credits"
        // "∞ (Admin)" at the figures' size is cut to "∞ (Adm…" in a phone's half-width card.
        wordy={balance === ADMIN_CREDITS}
        value={balance === ADMIN_CREDITS ? "∞ (Admin)" : String(balance)}
        detail={balance === ADMIN_CREDITS ? "Free generation" : "2 credits per generation"}
      />
      <Card
        label="Favorite Styles"
        wordy
        value={loading ? dash : top ? top.label : "None yet"}
        detail={loading
          ? undefined
          : top
          ? rest.map((s) => s.label).join(", ") || `Used ${top.count}×`
          : "Generate to find out"}
      />
      <Card
        label="Profile Complete"
        value={loading ? dash : `${stats.profile_completeness}%`}
        detail={loading ? undefined : stats.profile_completeness === 100 ? "All set" : "Fill in your profile"}
      />
    </section>
  );
}
