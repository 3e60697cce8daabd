import { useSyncExternalStore } from "react";

let open = false;
const listeners = new Set<() => void>();
const set = (v: boolean) => {
  open = v;
  listeners.forEach((l) => l());
};

/** The buy-credits entry point (the full modal arrives with the payments issue). */
export function openBuyCredits() {
  set(true);
}
export function closeBuyCredits() {
  set(false);
}
export function useBuyCreditsOpen(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => open,
    () => false,
  );
}
