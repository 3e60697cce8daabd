/**
 * /dashboard?tab=...: composes the dashboard with what other features
 * provide (the plans and upgrade dialog from payments, the 360° overlay from
 * the studio). The tab lives in the URL, so it deep-links and the back button
 * walks through the tabs.
 */
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useCallback } from "react";
import { ME_KEY, queryClient, tokens } from "../api/client.ts";
import { useSession } from "../api/session.ts";
import DashboardPage from "../features/dashboard/dashboard-page.tsx";
import { parseTab } from "../features/dashboard/tabs.ts";
import { UpgradePlanDialog, usePlans } from "../features/payments/upgrade-dialog.tsx";
import { View360Overlay } from "../features/studio/view360-overlay.tsx";
import { loadPhoto, savePhoto } from "../lib/current-photo.ts";

export default function DashboardRoute() {
  const session = useSession();
  const navigate = useNavigate();
  const search = useSearch({ strict: false }) as { tab?: string };
  const tab = parseTab(search.tab) ?? "profile";
  const plans = usePlans(session.user !== null);

  const goHome = useCallback(() => {
    // Dashboard to home clears the uploaded photo.
    savePhoto(null);
    navigate({ to: "/" });
  }, [navigate]);

  return (
    <DashboardPage
      user={session.user}
      loading={session.loading}
      tab={tab}
      onTabChange={(next) => navigate({ to: "/dashboard", search: { tab: next } })}
      onHome={goHome}
      onCreateAvatar={() => {
        // With a photo in progress the studio opens; otherwise home, where a photo is uploaded.
        const photo = loadPhoto();
        if (photo) navigate({ to: "/studio", search: { photo: photo.id } });
        else navigate({ to: "/" });
      }}
      onDeleted={() => {
        // The server has already ended every session: clear this browser's copy and leave.
        tokens.clear();
        queryClient.setQueryData(ME_KEY, null);
        queryClient.removeQueries({ queryKey: ["dashboard"] });
        savePhoto(null);
        navigate({ to: "/", replace: true });
      }}
      plans={plans.data?.plans}
      plansLoading={plans.isPending}
      renderUpgradeDialog={(p) => <UpgradePlanDialog {...p} />}
      renderView360={(p) => <View360Overlay {...p} />}
    />
  );
}
