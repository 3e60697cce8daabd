/** Open the sign-in/sign-up dialog from anywhere, optionally continuing after success. */
import { useSyncExternalStore } from "react";
import type { PublicUser } from "../../api/types.ts";

export type AuthMode = "login" | "register";

interface State {
  open: boolean;
  mode: AuthMode;
  onSuccess?: (user: PublicUser) => void;
}

let state: State = { open: false, mode: "login" };
const listeners = new Set<() => void>();
const set = (next: State) => {
  state = next;
  listeners.forEach((l) => l());
};

/**
 * Opens the dialog in `mode`; without one it opens in the current mode, which
 * is login once the dialog has been closed for 200 ms (the spec's reset).
 */
export function openAuthDialog(
  mode?: AuthMode,
  onSuccess?: (user: PublicUser) => void,
) {
  set({ open: true, mode: mode ?? state.mode, onSuccess });
}

export function closeAuthDialog() {
  set({ ...state, open: false });
}

export function setAuthMode(mode: AuthMode) {
  set({ ...state, mode });
}

export function resetAuthDialog() {
  if (!state.open) set({ open: false, mode: "login" });
}

export function takeOnSuccess() {
  const cb = state.onSuccess;
  state = { ...state, onSuccess: undefined };
  return cb;
}

export function useAuthDialog(): State {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
    () => state,
  );
}
