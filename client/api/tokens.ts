/**
 * The auth session storage: localStorage keys access_token / refresh_token.
 * Other tabs share the storage: their sign-in, sign-out and token rotation
 * arrive as `storage` events, which the store turns into change notifications.
 */
import type { TokenStore } from "./http.ts";

export const ACCESS_KEY = "access_token";
export const REFRESH_KEY = "refresh_token";

/** Why the tokens changed: this tab wrote them, or another tab did. */
export type TokenChangeSource = "local" | "external";
type Listener = (source: TokenChangeSource) => void;

export interface ObservableTokenStore extends TokenStore {
  /** Called after every change; `source` is "external" when another tab changed the storage. */
  subscribe(listener: Listener): () => void;
}

/** The part of a StorageEvent the store reads (testable without a DOM). */
export interface StorageChange {
  key: string | null;
  storageArea: Storage | null;
}

export function createTokenStore(
  storage: Storage,
  /** Where `storage` events arrive (globalThis in the browser); none in tests. */
  events?: Pick<EventTarget, "addEventListener">,
): ObservableTokenStore {
  const listeners = new Set<Listener>();
  const emit = (source: TokenChangeSource) => listeners.forEach((l) => l(source));
  const read = (key: string) => {
    try {
      return storage.getItem(key);
    } catch {
      return null;
    }
  };
  events?.addEventListener("storage", (e: Event) => {
    const change = e as unknown as StorageChange;
    // key null: the other tab called localStorage.clear().
    if (change.storageArea && change.storageArea !== storage) return;
    if (change.key === null || change.key === ACCESS_KEY || change.key === REFRESH_KEY) emit("external");
  });
  return {
    getAccess: () => read(ACCESS_KEY),
    getRefresh: () => read(REFRESH_KEY),
    set(access, refresh) {
      storage.setItem(ACCESS_KEY, access);
      storage.setItem(REFRESH_KEY, refresh);
      emit("local");
    },
    clear() {
      storage.removeItem(ACCESS_KEY);
      storage.removeItem(REFRESH_KEY);
      emit("local");
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
