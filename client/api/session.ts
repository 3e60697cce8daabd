/**
 * Auth state: user, loading, isAuthenticated. The current user
 * is server state (query key "me"); the tokens decide whether to ask for it.
 */
import { useQuery } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { accountDataChanged, api, ME_KEY, noteAccount, queryClient, tokens } from "./client.ts";
import { createFetchMe, meRetryDelay, shouldRetryMe } from "./me.ts";
import type { AuthResponse, PublicUser } from "./types.ts";

export { ME_KEY };

/** Startup rule: a stored token is checked with GET /api/auth/me; a network error or 5xx keeps the tokens and is retried. */
export const fetchMe = createFetchMe(api, tokens);

function useHasToken(): boolean {
  return useSyncExternalStore(
    tokens.subscribe,
    () => tokens.getAccess() !== null,
    () => false,
  );
}

export interface Session {
  user: PublicUser | null;
  /** True until the auth state is known, including while the server is unreachable (retrying). */
  loading: boolean;
  isAuthenticated: boolean;
  /** The server could not be reached (or failed) while checking the stored session: retrying. */
  reconnecting: boolean;
}

export function useSession(): Session {
  const hasToken = useHasToken();
  const me = useQuery({
    queryKey: ME_KEY,
    queryFn: fetchMe,
    enabled: hasToken,
    retry: shouldRetryMe,
    retryDelay: meRetryDelay,
    staleTime: 60_000,
  });
  const user = hasToken ? me.data ?? null : null;
  const loading = hasToken && me.isPending;
  return {
    user,
    loading,
    isAuthenticated: user !== null,
    reconnecting: loading && me.failureCount > 0,
  };
}

/** Login and register: store tokens and the user. */
export function startSession(res: AuthResponse) {
  noteAccount(res.user);
  queryClient.setQueryData(ME_KEY, res.user);
  tokens.set(res.access_token, res.refresh_token);
}

/** Logout: call the server, then clear tokens and user whatever the answer. */
export async function endSessionOnServer(): Promise<void> {
  const refresh = tokens.getRefresh();
  try {
    await api.request("/api/auth/logout", {
      method: "POST",
      json: { refresh_token: refresh ?? undefined },
    });
  } catch (err) {
    console.warn("Logout request failed", err);
  } finally {
    tokens.clear();
    noteAccount(null);
    queryClient.setQueryData(ME_KEY, null);
  }
}

/** Re-read the balance (after a generation), and mark the account's other figures (stats, history) stale. */
export async function refreshCredits(): Promise<void> {
  void accountDataChanged();
  try {
    const { credits } = await api.json<{ credits: number }>(
      "/api/user/credits",
    );
    queryClient.setQueryData<PublicUser | null>(
      ME_KEY,
      (u) => u ? { ...u, credits } : u,
    );
  } catch {
    await queryClient.invalidateQueries({ queryKey: ME_KEY });
  }
}
