/**
 * A module-level open/closed flag React components subscribe to: how a dialog mounted once in
 * the root layout is opened from anywhere (a header button, a studio banner).
 */
import { useSyncExternalStore } from "react";

export interface OpenFlag {
  open(): void;
  close(): void;
  /** The flag's current value; re-renders the component when it changes. */
  useOpen(): boolean;
}

export function createOpenFlag(): OpenFlag {
  let isOpen = false;
  const listeners = new Set<() => void>();
  const set = (v: boolean) => {
    isOpen = v;
    listeners.forEach((l) => l());
  };
  const subscribe = (l: () => void) => {
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  };
  return {
    open: () => set(true),
    close: () => set(false),
    useOpen: () => useSyncExternalStore(subscribe, () => isOpen, () => false),
  };
}
