import { useNavigate } from "@tanstack/react-router";
import { useSession } from "../api/session.ts";
import DashboardPage from "../features/dashboard/dashboard-page.tsx";
import { savePhoto } from "../lib/current-photo.ts";

export default function DashboardRoute() {
  const session = useSession();
  const navigate = useNavigate();
  return (
    <DashboardPage
      user={session.user}
      loading={session.loading}
      onHome={() => {
        // Dashboard to home clears the uploaded photo (spec section 4).
        savePhoto(null);
        navigate({ to: "/" });
      }}
    />
  );
}
