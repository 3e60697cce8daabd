/**
 * The dashboard's calls: profile, profile image, stats, history pages,
 * subscription, change password, data export and account deletion, through
 * the typed client (api/typed.ts): paths, bodies and answers come from the
 * route modules.
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { accountDataChanged, ME_KEY, queryClient } from "../../api/client.ts";
import { ApiError } from "../../api/http.ts";
import { generationApi, ok, paymentsApi, usersApi } from "../../api/typed.ts";
import type { HistoryItem } from "../../../server/generation/generation.schemas.ts";
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
        return await ok(usersApi.users.profile.$get());
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
  return useQuery({ queryKey: STATS_KEY, queryFn: () => ok(usersApi.users.stats.$get()), enabled });
}

export function useSubscription() {
  return useQuery({
    queryKey: SUBSCRIPTION_KEY,
    // A failed fetch silently falls back to the inactive default.
    queryFn: () => ok(paymentsApi.users.subscription.$get()).catch(() => NO_SUBSCRIPTION),
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
    queryFn: ({ pageParam }) =>
      ok(generationApi.generations.$get({
        query: {
          limit: String(HISTORY_PAGE_SIZE),
          ...(pageParam ? { cursor: pageParam } : {}),
          ...(filter !== "all" ? { status: FILTER_STATUSES[filter] } : {}),
        },
      })),
    getNextPageParam: (last) => last.next_cursor,
    // A queued or processing item updates by itself: re-read until none is left.
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) => p.items.some(isPending)) ? HISTORY_POLL_MS : false,
  });
}

/**
 * Puts a write's result into the cached profile. A profile read still in flight may have been
 * answered before the write: it is cancelled first, so its older answer cannot land afterwards
 * and put the old values back on screen. When `change` has nothing to build on (the first read
 * had not ended), the profile is read again instead.
 */
async function updateCachedProfile(change: (cached: Profile | undefined) => Profile | undefined) {
  await queryClient.cancelQueries({ queryKey: PROFILE_KEY });
  const next = change(queryClient.getQueryData<Profile>(PROFILE_KEY));
  if (next) queryClient.setQueryData(PROFILE_KEY, next);
  else await queryClient.invalidateQueries({ queryKey: PROFILE_KEY });
}

export async function saveProfile(update: ProfileUpdate): Promise<Profile> {
  const profile = await ok(usersApi.users.profile.$put({ json: update }));
  await updateCachedProfile(() => profile);
  await queryClient.invalidateQueries({ queryKey: STATS_KEY });
  return profile;
}

export async function uploadProfileImage(file: File): Promise<string> {
  const form = new FormData();
  form.append("file", file, file.name || "profile.jpg");
  // The route reads the multipart body itself (no validator), so the form goes in as the raw body.
  const { image_url } = await ok(usersApi.users.profile.image.$post(undefined, { init: { body: form } }));
  await updateCachedProfile((p) => p && { ...p, profile_image_url: image_url });
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: STATS_KEY }),
    queryClient.invalidateQueries({ queryKey: ME_KEY }),
  ]);
  return image_url;
}

export function changePassword(current_password: string, new_password: string) {
  return ok(usersApi.users["change-password"].$post({ json: { current_password, new_password } }));
}

/** Downloads the export as a pretty-printed JSON file named with the date. */
export async function exportData(save: (blob: Blob, name: string) => void): Promise<string> {
  const res = await usersApi.users["data-export"].$get();
  if (!res.ok) throw new ApiError(res.status, null);
  const data = await res.json();
  const name = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") ?? "")?.[1] ??
    exportFilename(new Date());
  save(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }), name);
  return name;
}

export async function deleteAccount(): Promise<void> {
  await ok(usersApi.users.account.$delete());
}

/**
 * Cancels the plan at the end of its paid period (it does not renew; the credits stay). The subscription is
 * read again everywhere it is shown.
 */
export async function cancelSubscription(): Promise<SubscriptionSummary> {
  const summary = await ok(paymentsApi.payments.subscription.cancel.$post());
  queryClient.setQueryData(SUBSCRIPTION_KEY, summary);
  await accountDataChanged();
  return summary;
}
