/**
 * Routes: / (home), /studio (needs a photo), /dashboard, and the payment
 * routes. Features are composed here; they never import each other.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Link,
  Outlet,
  redirect,
  useNavigate,
  useRouterState,
} from "@tanstack/react-router";
import { useCallback } from "react";
import { type Session, useSession } from "../api/session.ts";
import type { CurrentPhoto } from "../api/types.ts";
import { type DashboardTab, parseTab } from "../features/dashboard/tabs.ts";
import LandingPage from "../features/landing/landing-page.tsx";
import { loadPhoto, savePhoto } from "../lib/current-photo.ts";
import { useHydrated } from "../lib/use-hydrated.ts";
import { buttonClass } from "../ui/button.tsx";
import { Toaster } from "../ui/toast.tsx";
import { AppHeader } from "./app-header.tsx";
import { LazyAuthDialog, LazyBuyCreditsDialog, LazyPaymentStatus } from "./lazy-dialogs.tsx";
import { PendingGenerationBanner } from "./pending-generation-banner.tsx";
import { UpgradeDialogRoot } from "../features/payments/upgrade-dialog-root.tsx";
import { openBuyCredits } from "../features/payments/buy-credits-store.ts";
import { openUpgradeDialog } from "../features/payments/upgrade-dialog-store.ts";

/** The header's account area before hydration: the neutral placeholder, whoever is signed in. */
const SESSION_UNKNOWN: Session = { user: null, loading: true, isAuthenticated: false, reconnecting: false };

function RootLayout() {
  const session = useSession();
  // The prerendered home page knows nothing of this browser: see client/lib/use-hydrated.ts.
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const backToHome = useCallback(() => {
    // Studio or dashboard to home clears the uploaded photo. A generation still
    // running keeps its own copy of the photo: the home page offers the way back to it.
    if (pathname.startsWith("/studio") || pathname.startsWith("/dashboard")) savePhoto(null);
    navigate({ to: "/" });
  }, [navigate, pathname]);
  return (
    <div className="min-h-dvh">
      <a
        href="#main"
        className="sr-only z-50 rounded-full bg-white px-4 py-2 font-semibold focus:not-sr-only focus:fixed focus:left-3 focus:top-3"
      >
        Skip to content
      </a>
      <AppHeader
        variant={pathname.startsWith("/studio") ? "studio" : "home"}
        session={hydrated ? session : SESSION_UNKNOWN}
        onBackToHome={backToHome}
      />
      {/* tabIndex -1: the skip link moves focus here, not only the scroll position. */}
      <div id="main" tabIndex={-1} className="outline-none">
        <Outlet />
      </div>
      <LazyAuthDialog />
      <LazyBuyCreditsDialog />
      <UpgradeDialogRoot />
      {hydrated && <Toaster />}
    </div>
  );
}

function HomeView() {
  const navigate = useNavigate();
  const hydrated = useHydrated();
  const onUploaded = useCallback((photo: CurrentPhoto) => {
    savePhoto(photo);
    navigate({ to: "/studio", search: { photo: photo.id } });
  }, [navigate]);
  const onReturn = useCallback((pending: { photo: CurrentPhoto }) => {
    savePhoto(pending.photo);
    navigate({ to: "/studio", search: { photo: pending.photo.id } });
  }, [navigate]);
  return (
    <LandingPage
      onUploaded={onUploaded}
      notice={hydrated && <PendingGenerationBanner onReturn={onReturn} />}
    />
  );
}

function PaymentReturnView() {
  const navigate = useNavigate();
  return (
    <>
      <HomeView />
      <LazyPaymentStatus
        sessionId={new URLSearchParams(location.search).get("session_id")}
        onContinue={() => navigate({ to: "/" })}
        onTryAgain={() => {
          // Try Again reopens the purchase this return came from: the packs or the plans.
          const plans = location.pathname.startsWith("/subscription");
          navigate({ to: "/" });
          if (plans) openUpgradeDialog();
          else openBuyCredits();
        }}
        onBackToHome={() => navigate({ to: "/" })}
      />
    </>
  );
}

function NotFound() {
  return (
    <main className="mx-auto grid min-h-[60vh] max-w-md place-items-center px-6 text-center">
      <div>
        <h1 className="text-3xl font-bold tracking-tight">Page not found</h1>
        <p className="mt-3 text-ink-600">
          This page doesn't exist. Let's get you back to styling.
        </p>
        <Link to="/" className={`${buttonClass()} mt-6`}>Go to Home</Link>
      </div>
    </main>
  );
}

const rootRoute = createRootRoute({
  component: RootLayout,
  notFoundComponent: NotFound,
});

const homeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  component: HomeView,
});

export interface StudioSearch {
  photo?: string;
}

export const studioRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/studio",
  validateSearch: (search: Record<string, unknown>): StudioSearch => ({
    photo: typeof search.photo === "string" ? search.photo : undefined,
  }),
  beforeLoad: ({ search }) => {
    const photo = loadPhoto();
    // Going to /studio with no photo goes home.
    if (!photo) throw redirect({ to: "/", replace: true });
    if (search.photo !== photo.id) {
      throw redirect({
        to: "/studio",
        search: { photo: photo.id },
        replace: true,
      });
    }
  },
  component: lazyRouteComponent(() => import("./studio-route.tsx")),
});

const dashboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/dashboard",
  // ?tab=profile|subscription|history|settings (deep links; the back button walks the tabs).
  validateSearch: (search: Record<string, unknown>): { tab?: DashboardTab } => ({
    tab: parseTab(search.tab),
  }),
  component: lazyRouteComponent(() => import("./dashboard-route.tsx")),
});

const paymentRoutes = [
  "/credit-purchase-success",
  "/subscription-success",
].map((path) =>
  createRoute({
    getParentRoute: () => rootRoute,
    path,
    component: PaymentReturnView,
  })
);
const cancelRoutes = ["/credit-purchase-cancel", "/subscription-cancel"].map((
  path,
) =>
  createRoute({
    getParentRoute: () => rootRoute,
    path,
    component: HomeView,
  })
);

const routeTree = rootRoute.addChildren([
  homeRoute,
  studioRoute,
  dashboardRoute,
  ...paymentRoutes,
  ...cancelRoutes,
]);

export const router = createRouter({
  routeTree,
  defaultPreload: "intent",
  scrollRestoration: true,
});

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
