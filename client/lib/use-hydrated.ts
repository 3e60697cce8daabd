/**
 * False while React renders the page the build prerendered (client/prerender.tsx) and while it
 * hydrates that markup, true from the render after. What depends on this browser's storage (the
 * signed-in account, a generation still running) waits for it, so the markup hydration compares
 * is the build's and nothing flashes: the page never shows the signed-out buttons to an account
 * that is signed in. A page mounted without prerendered markup sees true at once.
 */
import { useSyncExternalStore } from "react";

const never = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(never, () => true, () => false);
}
