/** Start a generation, poll it, keep the result (session storage survives a reload). */
import { useCallback, useEffect, useRef, useState } from "react";
import { api, queryClient } from "../../api/client.ts";
import { ApiError } from "../../api/http.ts";
import { ME_KEY, refreshCredits } from "../../api/session.ts";
import { toast } from "../../ui/toast.tsx";
import type { GeneratePayload } from "./option-model.ts";
import { pollGeneration, resultImages, type StatusResponse } from "./polling.ts";

export interface GenerationResult {
  photoId: string;
  images: string[];
  view360: boolean;
  notes: string[];
}

interface Pending {
  generationId: string;
  photoId: string;
  view360: boolean;
}

const RESULT_KEY = "styletwin.result";
const PENDING_KEY = "styletwin.pending";

function load<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? JSON.parse(raw) as T : null;
  } catch {
    return null;
  }
}
function save(key: string, value: unknown) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // ignore
  }
}

function abortableSleep(signal: AbortSignal) {
  return (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(t);
        resolve();
      }, { once: true });
    });
}

export const INSUFFICIENT_CREDITS = {
  title: "Insufficient Credits",
  description: "You need at least 2 credits to generate an image. Click 'Buy Credits' to purchase more.",
} as const;

export interface UseGenerationOptions {
  photoId: string | null;
  onInsufficientCredits(): void;
  onSignInRequired(): void;
  onCompleted(result: GenerationResult): void;
}

export function useGeneration(opts: UseGenerationOptions) {
  const optsRef = useRef(opts);
  optsRef.current = opts;
  const [generating, setGenerating] = useState(false);
  const [result, setResultState] = useState<GenerationResult | null>(() => {
    const r = load<GenerationResult>(RESULT_KEY);
    return r && r.photoId === opts.photoId ? r : null;
  });
  const abortRef = useRef<AbortController | null>(null);

  const setResult = useCallback((r: GenerationResult | null) => {
    setResultState(r);
    save(RESULT_KEY, r);
  }, []);

  // A new photo makes the old result meaningless for compare.
  useEffect(() => {
    setResultState((r) => r && r.photoId !== opts.photoId ? null : r);
  }, [opts.photoId]);

  const follow = useCallback(async (pending: Pending) => {
    abortRef.current?.abort();
    const ctrl = new AbortController();
    abortRef.current = ctrl;
    save(PENDING_KEY, pending);
    setGenerating(true);
    const outcome = await pollGeneration({
      fetchStatus: () =>
        api.json<StatusResponse>(
          `/api/generation/${encodeURIComponent(pending.generationId)}/status`,
        ),
      sleep: abortableSleep(ctrl.signal),
      signal: ctrl.signal,
    });
    if (outcome.kind === "aborted") return;
    save(PENDING_KEY, null);
    setGenerating(false);
    if (outcome.kind === "completed") {
      const images = resultImages(outcome.status, pending.view360);
      const r: GenerationResult = {
        photoId: pending.photoId,
        images,
        view360: pending.view360,
        notes: outcome.status.notes ?? [],
      };
      setResult(r);
      refreshCredits();
      toast({
        title: "Generation Complete!",
        description: "Your styled image is ready.",
        variant: "success",
      });
      optsRef.current.onCompleted(r);
    } else if (outcome.kind === "failed") {
      // The refund may land just after the failed status: read the balance twice.
      refreshCredits();
      setTimeout(refreshCredits, 2000);
      const why = outcome.status.error;
      toast({
        title: "Generation Failed",
        description: "The AI generation encountered an error. Please try again." +
          (why ? `\n${why}` : ""),
        variant: "destructive",
      });
    } else {
      toast({
        title: "Generation Timeout",
        description: "Generation is taking longer than expected. Please try again.",
        variant: "destructive",
      });
    }
  }, [setResult]);

  // Reload while generating: pick the job up again.
  useEffect(() => {
    const pending = load<Pending>(PENDING_KEY);
    if (pending && pending.photoId === optsRef.current.photoId) follow(pending);
    return () => abortRef.current?.abort();
  }, [follow]);

  const start = useCallback(async (payload: GeneratePayload) => {
    setGenerating(true);
    let generationId: string;
    try {
      ({ generationId } = await api.json<{ generationId: string }>(
        "/api/generate",
        { method: "POST", json: payload },
      ));
    } catch (err) {
      setGenerating(false);
      if (err instanceof ApiError && err.status === 402) {
        toast({ ...INSUFFICIENT_CREDITS, variant: "destructive" });
        queryClient.invalidateQueries({ queryKey: ME_KEY });
        optsRef.current.onInsufficientCredits();
        return;
      }
      if (err instanceof ApiError && err.status === 401) {
        optsRef.current.onSignInRequired();
        return;
      }
      toast({
        title: "Generation Failed",
        description: (err instanceof ApiError && err.detail) ||
          "Failed to start generation",
        variant: "destructive",
      });
      return;
    }
    // Show the debit right away.
    queryClient.invalidateQueries({ queryKey: ME_KEY });
    await follow({
      generationId,
      photoId: payload.photoId,
      view360: payload.view360,
    });
  }, [follow]);

  return { generating, result, start, clearResult: () => setResult(null) };
}
