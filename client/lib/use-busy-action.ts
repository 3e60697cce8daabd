/**
 * One user action at a time (save, upload, export, delete): `busy` while it
 * runs, so its button can show a spinner and refuse a second click, and a
 * failure shown as a destructive toast whose text the caller chooses (the
 * server's reason or its own fallback).
 */
import { useCallback, useState } from "react";
import { toast } from "../ui/toast.tsx";
import type { ToastText } from "./toast-text.ts";

export interface BusyAction {
  busy: boolean;
  /** Runs `work`; when it throws, toasts `failure(err)`. Resolves either way. */
  run(work: () => Promise<void>, failure: (err: unknown) => ToastText): Promise<void>;
}

export function useBusyAction(): BusyAction {
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (work: () => Promise<void>, failure: (err: unknown) => ToastText) => {
    setBusy(true);
    try {
      await work();
    } catch (err) {
      toast({ ...failure(err), variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, run };
}
