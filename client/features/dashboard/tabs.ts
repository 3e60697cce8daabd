/** The dashboard's tabs, in order (pure: the router validates `?tab=` with it). */
export const DASHBOARD_TABS = ["profile", "subscription", "history", "settings"] as const;
export type DashboardTab = (typeof DASHBOARD_TABS)[number];

/** The tab a `?tab=` value names, or undefined (the Profile tab is the default). */
export function parseTab(value: unknown): DashboardTab | undefined {
  return DASHBOARD_TABS.find((t) => t === value);
}
