/**
 * Auth state (spec section 4): user, loading, isAuthenticated. The current user
 * is server state (query key "me"); the tokens decide whether to ask for it.
 */
import { useQuery } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { api, queryClient, tokens } from "./client.ts";
import { ApiError } from "./http.ts";
import type { AuthResponse, PublicUser } from "./types.ts";

export const ME_KEY = ["me"] as const;

/** Startup rule: use the stored access token; on failure refresh once; otherwise clear. */
export async function fetchMe(): Promise<PublicUser | null> {
  if (!tokens.getAccess()) return null;
  try {
    return await api.json<PublicUser>("/api/users/me");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      // The client already tried one refresh and ended the session if it failed.
      if (tokens.getAccess()) api.endSession();
      return null;
    }
    if (tokens.getRefresh() && await api.refresh()) {
      try {
        return await api.json<PublicUser>("/api/users/me");
      } catch {
        // fall through
      }
    }
    api.endSession();
    return null;
  }
}

function useHasToken(): boolean {
  return useSyncExternalStore(
    tokens.subscribe,
    () => tokens.getAccess() !== null,
    () => false,
  );
}

export interface Session {
  user: PublicUser | null;
  loading: boolean;
  isAuthenticated: boolean;
}

export function useSession(): Session {
  const hasToken = useHasToken();
  const me = useQuery({
    queryKey: ME_KEY,
    queryFn: fetchMe,
    enabled: hasToken,
    retry: false,
    staleTime: 60_000,
  });
  const user = hasToken ? me.data ?? null : null;
  return {
    user,
    loading: hasToken && me.isPending,
    isAuthenticated: user !== null,
  };
}

/** Login and register: store tokens and the user. */
export function startSession(res: AuthResponse) {
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
    queryClient.setQueryData(ME_KEY, null);
  }
}

/** Re-read the balance (after a generation). */
export async function refreshCredits(): Promise<void> {
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

export { formatCredits, isAdminBalance, userLabel } from "./session-format.ts";
