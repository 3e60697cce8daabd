/** Dashboard placeholder: the access rule is in place; the tabs arrive with the dashboard issue. */
import type { PublicUser } from "../../api/types.ts";
import { Button } from "../../ui/button.tsx";
import { Spinner } from "../../ui/spinner.tsx";

export interface DashboardPageProps {
  user: PublicUser | null;
  loading: boolean;
  onHome(): void;
}

export default function DashboardPage(
  { user, loading, onHome }: DashboardPageProps,
) {
  if (loading) {
    return (
      <div className="grid min-h-[60vh] place-items-center text-brand-600">
        <Spinner className="size-8" />
      </div>
    );
  }
  if (!user) {
    return (
      <main className="mx-auto grid min-h-[70vh] max-w-md place-items-center px-6 text-center">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Access Denied</h1>
          <p className="mt-3 text-ink-600">
            Please log in to access your dashboard.
          </p>
          <Button className="mt-6" onClick={onHome}>Go to Home</Button>
        </div>
      </main>
    );
  }
  return (
    <main className="mx-auto max-w-5xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight">
        Welcome back, {user.full_name || user.email}!
      </h1>
      <p className="mt-3 text-ink-600">
        Your profile, subscription, history and settings will appear here.
      </p>
    </main>
  );
}
