/** The header for every screen: brand, credits, account actions. */
import { Link, useNavigate } from "@tanstack/react-router";
import { endSessionOnServer as logout, type Session } from "../api/session.ts";
import { formatCredits, userLabel } from "../lib/account-labels.ts";
import { ADMIN_CREDITS } from "../api/types.ts";
import { BUY_CREDITS_THRESHOLD } from "../../server/credits/credit-constants.ts";
import { openAuthDialog } from "../features/auth/auth-dialog-store.ts";
import { openBuyCredits } from "../features/payments/buy-credits-store.ts";
import { Brand } from "../ui/brand.tsx";
import { Button } from "../ui/button.tsx";
import { ArrowLeftIcon, CoinIcon, LogoutIcon, UserIcon } from "../ui/icons.tsx";
import { toast } from "../ui/toast.tsx";

export type HeaderVariant = "home" | "studio";

export interface AppHeaderProps {
  variant: HeaderVariant;
  session: Session;
  /** Back to Home (and the brand link): leaving the studio or dashboard clears the photo. */
  onBackToHome(): void;
}

function CreditsPill({ session }: { session: Session }) {
  const admin = session.user?.credits === ADMIN_CREDITS;
  return (
    <span
      className="inline-flex h-9 items-center gap-1.5 whitespace-nowrap rounded-full bg-brand-50 px-3 text-sm max-[360px]:px-2 font-semibold text-brand-800 ring-1 ring-brand-100"
      aria-label={`Credits: ${formatCredits(session.user)}`}
      data-testid="credits-pill"
    >
      <CoinIcon className="size-4 text-brand-600" />
      <span className="tabular-nums">{formatCredits(session.user)}</span>
      {!admin && <span className="max-sm:sr-only">credits</span>}
    </span>
  );
}

function UserLabel(
  { session, className = "" }: { session: Session; className?: string },
) {
  return (
    <span
      className={`inline-flex max-w-36 items-center gap-2 text-sm font-medium text-ink-700 ${className}`}
      data-testid="user-label"
    >
      <span className="grid size-8 shrink-0 place-items-center rounded-full bg-ink-900 text-xs font-bold uppercase text-white">
        {userLabel(session.user).slice(0, 1) || <UserIcon className="size-4" />}
      </span>
      <span className="truncate">{userLabel(session.user)}</span>
    </span>
  );
}

export function AppHeader({ variant, session, onBackToHome }: AppHeaderProps) {
  const navigate = useNavigate();
  const { user, loading } = session;

  async function onLogout() {
    await logout();
    toast({
      title: "Logged Out",
      description: "You have been successfully logged out.",
    });
  }

  const anonymousButtons = (
    <>
      <Button variant="ghost" size="sm" onClick={() => openAuthDialog("login")}>
        Login
      </Button>
      <Button size="sm" onClick={() => openAuthDialog("register")}>
        Sign Up
      </Button>
    </>
  );

  return (
    <header className="sticky top-0 z-40 border-b border-ink-100/80 bg-white/85 backdrop-blur-lg">
      {/* Under 360 px: 8 px margins, 4 px gaps, a narrower credits pill, Subscription and Buy Credits */}
      {/* (below). On a 320 px phone the home header was 13 px too wide, the studio's with Buy Credits 7. */}
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-2 px-3 max-[360px]:px-2 sm:gap-3 sm:px-6">
        {/* The studio's header holds the most (Back to Home, credits, Buy Credits, Dashboard, the name): */}
        {/* under 900 px its buttons show their icons alone and the name its initial, as on phones. In */}
        {/* full it needed 854 px, so a 640-899 px window (a tablet held upright) scrolled sideways. */}
        {variant === "studio" && (
          <Button
            variant="ghost"
            size="sm"
            className="max-[900px]:w-9 max-[900px]:px-0"
            onClick={onBackToHome}
          >
            <ArrowLeftIcon className="size-4" />
            <span className="max-[900px]:sr-only">Back to Home</span>
          </Button>
        )}
        <Link
          to="/"
          onClick={(e) => {
            e.preventDefault();
            onBackToHome();
          }}
          className="rounded-xl"
          aria-label="StyleTwin home"
        >
          {/* Phones: the logo only when the account buttons need the room. */}
          <Brand compact={variant === "studio" || user !== null} />
        </Link>
        <div className="ml-auto flex items-center gap-1.5 max-[360px]:gap-1 sm:gap-3">
          {loading
            ? session.reconnecting
              ? (
                // The stored session could not be checked (offline, server error): still signed in as far
                // as we know, retrying. Never the signed-out buttons.
                <span
                  role="status"
                  data-testid="session-reconnecting"
                  className="inline-flex h-9 items-center gap-2 rounded-full bg-amber-50 px-3 text-sm font-medium text-amber-900 ring-1 ring-amber-200"
                >
                  <span aria-hidden="true" className="size-2 animate-pulse rounded-full bg-amber-500" />
                  Reconnecting...
                </span>
              )
              : (
                // Text for screen readers, not an aria-label: a span without a role may not carry one
                // (Lighthouse: aria-prohibited-attr; the prerendered landing page shows this until hydrated).
                <span className="h-9 w-28 animate-pulse rounded-full bg-ink-100">
                  <span className="sr-only">Loading account</span>
                </span>
              )
            : !user
            ? anonymousButtons
            : variant === "home"
            ? (
              <>
                <CreditsPill session={session} />
                <Button
                  variant="outline"
                  size="sm"
                  className="max-[360px]:px-2.5"
                  onClick={() => navigate({ to: "/dashboard" })}
                >
                  Subscription
                </Button>
                <UserLabel session={session} className="max-sm:[&>span+span]:sr-only" />
                <Button
                  variant="ghost"
                  size="sm"
                  className="w-9 px-0"
                  aria-label="Logout"
                  title="Logout"
                  onClick={onLogout}
                >
                  <LogoutIcon className="size-5" />
                </Button>
              </>
            )
            : (
              <>
                <CreditsPill session={session} />
                {user.credits < BUY_CREDITS_THRESHOLD && (
                  <Button size="sm" className="max-[360px]:px-2.5" onClick={openBuyCredits}>
                    Buy Credits
                  </Button>
                )}
                <Button
                  variant="outline"
                  size="sm"
                  className="max-[900px]:w-9 max-[900px]:px-0"
                  onClick={() => navigate({ to: "/dashboard" })}
                >
                  <UserIcon className="size-4 min-[900px]:hidden" />
                  <span className="max-[900px]:sr-only">Dashboard</span>
                </Button>
                {/* Under 900 px: the initial shown, the name kept for screen readers (phones: on the home header too). */}
                <UserLabel session={session} className="max-[900px]:[&>span+span]:sr-only" />
              </>
            )}
        </div>
      </div>
    </header>
  );
}
