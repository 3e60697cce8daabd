/** The app's single API client and query client. */
import { type Query, QueryClient } from "@tanstack/react-query";
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

/**
 * A query of the signed-in account's own data: every query but the user itself and those marked
 * `meta: { shared: true }` (what every visitor sees alike: the catalogue, the offers). Marking the shared ones
 * rather than the private ones means a new query forgotten unmarked is refetched, never shown to another user.
 */
const accountQuery = (q: Query) => q.queryKey[0] !== ME_KEY[0] && q.meta?.shared !== true;

const accountChangeListeners = new Set<() => void>();

/**
 * Runs `fn` when another account signs in to this tab than the last one: what a feature keeps of the last
 * account (a result, a generation being waited for) is dropped. The same account signing in again (after its
 * session ended mid-generation) keeps it.
 */
export function onAccountChange(fn: () => void): () => void {
  accountChangeListeners.add(fn);
  return () => accountChangeListeners.delete(fn);
}

/** The id of the account this tab last had signed in (session storage: a tab's, as the result it keeps). */
const ACCOUNT_KEY = "styletwin.account";
/** The same in memory, for a browser that refuses session storage. */
let lastAccountId: string | null = null;

/**
 * The signed-in account is now `user` (null: signed out, or the session ended). Signing out drops every
 * account query (profile, stats, history, subscription); another account than the last one signing in drops
 * them too, and what features keep, so it never sees the last one's data nor saves it as its own.
 */
export function noteAccount(user: Pick<PublicUser, "id"> | null): void {
  if (!user) {
    queryClient.removeQueries({ predicate: accountQuery });
    return;
  }
  let last = lastAccountId;
  try {
    last = globalThis.sessionStorage?.getItem(ACCOUNT_KEY) ?? lastAccountId;
    globalThis.sessionStorage?.setItem(ACCOUNT_KEY, user.id);
  } catch { /* storage refused (private mode): this page's memory only */ }
  lastAccountId = user.id;
  if (last === user.id) return;
  queryClient.removeQueries({ predicate: accountQuery });
  for (const fn of accountChangeListeners) fn();
}

/** The account did something (a generation ended): its figures are read again when next shown. */
export function accountDataChanged(): Promise<void> {
  return queryClient.invalidateQueries({ predicate: accountQuery });
}

export const SESSION_EXPIRED = {
  title: "Session Expired",
  description: "You were signed out because your session could not be renewed. Please sign in again.",
} as const;

export const api = createApiClient({
  fetch: (input, init) => globalThis.fetch(input, init),
  tokens,
  onSessionEnded: () => {
    const wasSignedIn = queryClient.getQueryData<PublicUser | null>(ME_KEY) != null;
    noteAccount(null);
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
  if (!now) {
    noteAccount(null);
    queryClient.setQueryData(ME_KEY, null);
  } else {
    // Maybe another account: its data must not show (nor be saved) while the new user is fetched.
    queryClient.removeQueries({ predicate: accountQuery });
    queryClient.invalidateQueries({ queryKey: ME_KEY });
  }
});

// The user as a reload (or another tab's sign-in) fetched it: the same check as a sign-in's (session.ts).
queryClient.getQueryCache().subscribe((event) => {
  if (event.query.queryKey[0] !== ME_KEY[0] || event.type !== "updated" || event.action.type !== "success") {
    return;
  }
  const user = event.query.state.data as PublicUser | null | undefined;
  if (user) noteAccount(user);
});
