/** Opens the Choose Your Plan dialog from anywhere (the root layout mounts it). */
import { useSyncExternalStore } from "react";

let open = false;
const listeners = new Set<() => void>();
const set = (v: boolean) => {
  open = v;
  listeners.forEach((l) => l());
};

export function openUpgradeDialog() {
  set(true);
}
export function closeUpgradeDialog() {
  set(false);
}
export function useUpgradeDialogOpen(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => open,
    () => false,
  );
}
