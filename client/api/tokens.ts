/** The spec's auth session storage: localStorage keys access_token / refresh_token. */
import type { TokenStore } from "./http.ts";

export const ACCESS_KEY = "access_token";
export const REFRESH_KEY = "refresh_token";

type Listener = () => void;

export interface ObservableTokenStore extends TokenStore {
  subscribe(listener: Listener): () => void;
}

export function createTokenStore(storage: Storage): ObservableTokenStore {
  const listeners = new Set<Listener>();
  const emit = () => listeners.forEach((l) => l());
  const read = (key: string) => {
    try {
      return storage.getItem(key);
    } catch {
      return null;
    }
  };
  return {
    getAccess: () => read(ACCESS_KEY),
    getRefresh: () => read(REFRESH_KEY),
    set(access, refresh) {
      storage.setItem(ACCESS_KEY, access);
      storage.setItem(REFRESH_KEY, refresh);
      emit();
    },
    clear() {
      storage.removeItem(ACCESS_KEY);
      storage.removeItem(REFRESH_KEY);
      emit();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
