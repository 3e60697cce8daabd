/** The app's single API client and query client. */
import { QueryClient } from "@tanstack/react-query";
import { toast } from "../ui/toast.tsx";
import { createApiClient } from "./http.ts";
import { createTokenStore } from "./tokens.ts";
import type { PublicUser } from "./types.ts";

/** Query key of the signed-in user (null when signed out). */
export const ME_KEY = ["me"] as const;

export const tokens = createTokenStore(globalThis.localStorage, globalThis);

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 30_000 },
  },
});

export const SESSION_EXPIRED = {
  title: "Session Expired",
  description: "You were signed out because your session could not be renewed. Please sign in again.",
} as const;

export const api = createApiClient({
  fetch: (input, init) => globalThis.fetch(input, init),
  tokens,
  onSessionEnded: () => {
    const wasSignedIn = queryClient.getQueryData<PublicUser | null>(ME_KEY) != null;
    queryClient.setQueryData(ME_KEY, null);
    // Mid-session (the header showed a user): say why the account disappeared.
    if (wasSignedIn) toast({ ...SESSION_EXPIRED, variant: "destructive" });
  },
  withLock: (fn) =>
    globalThis.navigator?.locks ? globalThis.navigator.locks.request("styletwin-token-refresh", fn) : fn(),
});

// Another tab signed in, signed out or rotated the tokens: follow it.
let lastAccess = tokens.getAccess();
tokens.subscribe((source) => {
  const now = tokens.getAccess();
  const before = lastAccess;
  lastAccess = now;
  if (source !== "external" || now === before) return;
  if (!now) queryClient.setQueryData(ME_KEY, null);
  else queryClient.invalidateQueries({ queryKey: ME_KEY });
});
