/**
 * The dashboard's calls: profile, profile image, stats, history pages,
 * subscription, change password, data export and account deletion. Shapes
 * come from the server's schema modules.
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { api, ME_KEY, queryClient } from "../../api/client.ts";
import { ApiError } from "../../api/http.ts";
import type { HistoryItem, HistoryPage } from "../../../server/generation/generation.schemas.ts";
import type { SubscriptionSummary } from "../../../server/payments/payments.schemas.ts";
import {
  exportFilename,
  type Profile,
  type ProfileUpdate,
  type UserStats,
} from "../../../server/users/users.schemas.ts";

export type { HistoryItem, Profile, ProfileUpdate, SubscriptionSummary, UserStats };

export const PROFILE_KEY = ["dashboard", "profile"] as const;
export const STATS_KEY = ["dashboard", "stats"] as const;
export const HISTORY_KEY = ["dashboard", "history"] as const;
export const SUBSCRIPTION_KEY = ["dashboard", "subscription"] as const;

/** The product's default when the subscription cannot be fetched. */
export const NO_SUBSCRIPTION: SubscriptionSummary = {
  plan: "none",
  status: "inactive",
  current_period_end: null,
  credits_remaining: 0,
};

const HISTORY_PAGE_SIZE = 10;
/** While an item is queued or processing the list re-reads itself this often. */
export const HISTORY_POLL_MS = 2000;

/** The server's detail, or null (the caller picks its fallback text). */
export function serverDetail(err: unknown): string | null {
  return err instanceof ApiError ? err.detail : null;
}

export function useProfile() {
  return useQuery({
    queryKey: PROFILE_KEY,
    queryFn: async () => {
      try {
        return await api.json<Profile>("/api/users/profile");
      } catch (err) {
        // A failed profile fetch is only logged; the form starts empty.
        console.warn("Failed to load the profile", err);
        throw err;
      }
    },
    retry: false,
  });
}

export function useStats(enabled = true) {
  return useQuery({ queryKey: STATS_KEY, queryFn: () => api.json<UserStats>("/api/users/stats"), enabled });
}

export function useSubscription() {
  return useQuery({
    queryKey: SUBSCRIPTION_KEY,
    // A failed fetch silently falls back to the inactive default.
    queryFn: () => api.json<SubscriptionSummary>("/api/users/subscription").catch(() => NO_SUBSCRIPTION),
  });
}

export function isPending(item: Pick<HistoryItem, "status">): boolean {
  return item.status === "queued" || item.status === "processing";
}

/** The History tab's filter: every item, or one status (queued counts as processing). */
export type HistoryFilter = "all" | "completed" | "processing" | "failed";
const FILTER_STATUSES: Record<Exclude<HistoryFilter, "all">, string> = {
  completed: "completed",
  processing: "queued,processing",
  failed: "failed",
};

export function useHistory(filter: HistoryFilter = "all", enabled = true) {
  return useInfiniteQuery({
    queryKey: [...HISTORY_KEY, filter],
    enabled,
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: String(HISTORY_PAGE_SIZE) });
      if (pageParam) params.set("cursor", pageParam);
      if (filter !== "all") params.set("status", FILTER_STATUSES[filter]);
      return api.json<HistoryPage>(`/api/generations?${params}`);
    },
    getNextPageParam: (last) => last.next_cursor,
    // A queued or processing item updates by itself: re-read until none is left.
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) => p.items.some(isPending)) ? HISTORY_POLL_MS : false,
  });
}

export async function saveProfile(update: ProfileUpdate): Promise<Profile> {
  const profile = await api.json<Profile>("/api/users/profile", { method: "PUT", json: update });
  queryClient.setQueryData(PROFILE_KEY, profile);
  await queryClient.invalidateQueries({ queryKey: STATS_KEY });
  return profile;
}

export async function uploadProfileImage(file: File): Promise<string> {
  const form = new FormData();
  form.append("file", file, file.name || "profile.jpg");
  const { image_url } = await api.json<{ image_url: string }>("/api/users/profile/image", {
    method: "POST",
    body: form,
  });
  queryClient.setQueryData<Profile>(PROFILE_KEY, (p) => p ? { ...p, profile_image_url: image_url } : p);
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: STATS_KEY }),
    queryClient.invalidateQueries({ queryKey: ME_KEY }),
  ]);
  return image_url;
}

export function changePassword(current_password: string, new_password: string) {
  return api.json<{ message: string }>("/api/users/change-password", {
    method: "POST",
    json: { current_password, new_password },
  });
}

/** Downloads the export as a pretty-printed JSON file named with the date. */
export async function exportData(save: (blob: Blob, name: string) => void): Promise<string> {
  const res = await api.request("/api/users/data-export");
  if (!res.ok) throw new ApiError(res.status, null);
  const data = await res.json();
  const name = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") ?? "")?.[1] ??
    exportFilename(new Date());
  save(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }), name);
  return name;
}

export async function deleteAccount(): Promise<void> {
  await api.json("/api/users/account", { method: "DELETE" });
}
