/** Open the sign-in/sign-up dialog from anywhere, optionally continuing after success. */
import { useSyncExternalStore } from "react";
import type { PublicUser } from "../../api/types.ts";

export type AuthMode = "login" | "register";

interface State {
  open: boolean;
  mode: AuthMode;
  onSuccess?: (user: PublicUser) => void;
  /** Why signing in is needed right now (e.g. to generate), shown above the form. */
  reason?: string;
}

const RETURNING_KEY = "styletwin.returning";

/** Someone has signed in or up on this device before: they get "Sign in" first, not "Sign up". */
export function isReturningVisitor(): boolean {
  try {
    return globalThis.localStorage?.getItem(RETURNING_KEY) === "1";
  } catch {
    return false;
  }
}

export function rememberReturningVisitor() {
  try {
    globalThis.localStorage?.setItem(RETURNING_KEY, "1");
  } catch {
    // storage unavailable (private mode): new visitors just see sign-up first again
  }
}

let state: State = { open: false, mode: "login" };
const listeners = new Set<() => void>();
const set = (next: State) => {
  state = next;
  listeners.forEach((l) => l());
};

/**
 * Opens the dialog in `mode`; without one it opens in the current mode, which
 * is login once the dialog has been closed for 200 ms (the product's reset rule).
 */
export function openAuthDialog(
  mode?: AuthMode,
  onSuccess?: (user: PublicUser) => void,
  reason?: string,
) {
  set({ open: true, mode: mode ?? state.mode, onSuccess, reason });
}

/**
 * An action needs an account (Generate): say why, and offer sign-up first to a visitor who has
 * never signed in on this device (returning visitors get sign-in).
 */
export function requireSignIn(reason: string, onSuccess?: (user: PublicUser) => void) {
  openAuthDialog(isReturningVisitor() ? "login" : "register", onSuccess, reason);
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
