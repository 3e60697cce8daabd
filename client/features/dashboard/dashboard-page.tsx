/**
 * The dashboard: access rule, header, greeting, the four stat cards and the
 * Profile / Subscription / History / Settings tabs. The route owns the tab
 * (it lives in the URL) and passes in what other features provide.
 */
import { Tabs } from "radix-ui";
import { type ReactNode, useState } from "react";
import type { PublicUser } from "../../api/types.ts";
import { Button } from "../../ui/button.tsx";
import { Modal } from "../../ui/dialog.tsx";
import { ArrowLeftIcon, SparklesIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import type { PlanView } from "../../../server/payments/payments.schemas.ts";
import { type HistoryItem, useStats } from "./dashboard-api.ts";
import { HistoryTab, STUDIO_LABELS } from "./history-tab.tsx";
import { ProfileTab } from "./profile-tab.tsx";
import { SettingsTab } from "./settings-tab.tsx";
import { StatCards } from "./stat-cards.tsx";
import { SubscriptionTab, type SubscriptionTabProps } from "./subscription-tab.tsx";

import { DASHBOARD_TABS, type DashboardTab } from "./tabs.ts";
export { DASHBOARD_TABS, type DashboardTab };
const TAB_LABELS: Record<DashboardTab, string> = {
  profile: "Profile",
  subscription: "Subscription",
  history: "History",
  settings: "Settings",
};

export interface DashboardPageProps {
  user: PublicUser | null;
  loading: boolean;
  tab: DashboardTab;
  onTabChange(tab: DashboardTab): void;
  onHome(): void;
  onCreateAvatar(): void;
  /** The account was deleted: sign out locally and leave. */
  onDeleted(): void;
  plans: PlanView[] | undefined;
  plansLoading: boolean;
  renderUpgradeDialog: SubscriptionTabProps["renderUpgradeDialog"];
  /** The 360° set of a history item (FRONT, RIGHT, LEFT, BACK). */
  renderView360(props: { open: boolean; onOpenChange(open: boolean): void; images: string[] }): ReactNode;
}

const ANGLE_ORDER = ["front", "right", "left", "back"] as const;

function ResultViewer({ item, onClose }: { item: HistoryItem | null; onClose(): void }) {
  return (
    <Modal
      open={item !== null}
      onOpenChange={(o) => !o && onClose()}
      title={item ? STUDIO_LABELS[item.studio_type] : ""}
      width="max-w-sm"
    >
      {item?.result_url && (
        <img
          src={item.result_url}
          alt={`${STUDIO_LABELS[item.studio_type]} result`}
          className="mt-4 aspect-[9/16] w-full rounded-2xl bg-ink-100 object-cover"
          data-testid="result-viewer-image"
        />
      )}
    </Modal>
  );
}

export default function DashboardPage(props: DashboardPageProps) {
  const { user, loading, tab, onTabChange } = props;
  const stats = useStats(user !== null);
  const [viewing, setViewing] = useState<HistoryItem | null>(null);
  const [view360, setView360] = useState<string[] | null>(null);

  if (loading) {
    return (
      <div className="grid min-h-[60vh] place-items-center text-brand-600" role="status" aria-label="Loading">
        <Spinner className="size-8" />
      </div>
    );
  }
  if (!user) {
    return (
      <main className="mx-auto grid min-h-[70vh] max-w-md place-items-center px-6 text-center">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Access Denied</h1>
          <p className="mt-3 text-ink-600">Please log in to access your dashboard.</p>
          <Button className="mt-6" onClick={props.onHome}>Go to Home</Button>
        </div>
      </main>
    );
  }

  function open(item: HistoryItem) {
    const angles = ANGLE_ORDER.map((a) => item.result_urls[a]).filter((u): u is string => !!u);
    if (item.view360 && angles.length > 1) setView360(angles);
    else setViewing(item);
  }

  return (
    <main className="mx-auto max-w-6xl px-4 pb-16 pt-6 sm:px-6">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Button variant="ghost" size="sm" onClick={props.onHome}>
          <ArrowLeftIcon className="size-4" />
          Back to Home
        </Button>
        <Button size="sm" onClick={props.onCreateAvatar}>
          <SparklesIcon className="size-4" />
          Create Avatar
        </Button>
      </div>
      <h1 className="mt-4 text-2xl font-bold tracking-tight text-ink-900 sm:text-3xl">
        Welcome back, {user.full_name || user.email}!
      </h1>
      <p className="mt-1 text-sm text-ink-500">Your profile, plan, creations and account in one place.</p>
      <div className="mt-6">
        <StatCards stats={stats.data} credits={user.credits} />
      </div>

      <Tabs.Root value={tab} onValueChange={(v) => onTabChange(v as DashboardTab)} className="mt-8">
        {/* px-1.5 at 13 px: the four tabs fit a 360 px phone without scrolling (px-2 left Settings cut */}
        {/* there, px-2.5 at 375 px). Under 360 px they cannot: two rows of two there. */}
        <Tabs.List
          aria-label="Dashboard sections"
          className="flex gap-1 overflow-x-auto rounded-2xl bg-ink-100 p-1 max-[360px]:grid max-[360px]:grid-cols-2"
        >
          {DASHBOARD_TABS.map((t) => (
            <Tabs.Trigger
              key={t}
              value={t}
              className="h-10 flex-1 shrink-0 whitespace-nowrap rounded-xl px-1.5 text-[13px] font-semibold text-ink-600 transition hover:text-ink-900 focus-visible:outline-2 focus-visible:outline-brand-500 data-[state=active]:bg-white data-[state=active]:text-ink-900 data-[state=active]:shadow-sm sm:px-2.5 sm:text-sm"
            >
              {TAB_LABELS[t]}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <div className="mt-6">
          <Tabs.Content value="profile" className="outline-none">
            <ProfileTab user={user} />
          </Tabs.Content>
          <Tabs.Content value="subscription" className="outline-none">
            <SubscriptionTab
              user={user}
              plans={props.plans}
              plansLoading={props.plansLoading}
              renderUpgradeDialog={props.renderUpgradeDialog}
            />
          </Tabs.Content>
          <Tabs.Content value="history" className="outline-none">
            <HistoryTab onOpen={open} onCreate={props.onCreateAvatar} />
          </Tabs.Content>
          <Tabs.Content value="settings" className="outline-none">
            <SettingsTab user={user} onDeleted={props.onDeleted} />
          </Tabs.Content>
        </div>
      </Tabs.Root>
      <ResultViewer item={viewing} onClose={() => setViewing(null)} />
      {props.renderView360({
        open: view360 !== null,
        onOpenChange: (o) => !o && setView360(null),
        images: view360 ?? [],
      })}
    </main>
  );
}
