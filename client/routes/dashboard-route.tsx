import { useNavigate } from "@tanstack/react-router";
import { useSession } from "../api/session.ts";
import DashboardPage from "../features/dashboard/dashboard-page.tsx";

export default function DashboardRoute() {
  const session = useSession();
  const navigate = useNavigate();
  return (
    <DashboardPage
      user={session.user}
      loading={session.loading}
      onHome={() => navigate({ to: "/" })}
    />
  );
}
