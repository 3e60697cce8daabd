/**
 * Start a generation, follow it (status stream, polling as the fallback),
 * keep the result (session storage survives a reload). A paid generation is
 * never dropped while the server may still finish it: after a Generation
 * Timeout (or a 401 after signing out) its id stays stored and `checkAgain`
 * resumes polling; only a finished job or a 404 forgets it.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { api, onAccountChange, queryClient } from "../../api/client.ts";
import { ApiError, ERROR_CODES } from "../../api/http.ts";
import { generationApi, ok } from "../../api/typed.ts";
import { toToastText } from "../../lib/toast-text.ts";
import { ME_KEY, refreshCredits } from "../../api/session.ts";
import type { CurrentPhoto } from "../../api/types.ts";
import { loadPending, type PendingGeneration, savePending } from "../../lib/pending-generation.ts";
import { readSession, writeSession } from "../../lib/session-json.ts";
import { toast } from "../../ui/toast.tsx";
import {
  GENERATION_FAILED,
  INSUFFICIENT_CREDITS as INSUFFICIENT_CREDITS_MESSAGE,
} from "../../../server/generation/generation.schemas.ts";
import { abortableSleep } from "../../../server/abortable-sleep.ts";
import type { GeneratePayload } from "./option-model.ts";
import { followGeneration, resultImages, statusEvents } from "./polling.ts";

export interface GenerationResult {
  photoId: string;
  images: string[];
  view360: boolean;
  notes: string[];
}

/** Why the last generation shows no new result (rendered in the result panel). */
export type GenerationProblem =
  /** The job failed: the server's reason and notes (the toast carries only the fixed product text). */
  | { kind: "failed"; detail: string | null; notes: string[] }
  /** Gave up polling; the job may still finish: "Check again". */
  | { kind: "timeout" }
  /** The status call answered 401 (signed out): sign in, then "Check again". */
  | { kind: "signed-out" }
  /** The status call answered 404 (or another 4xx): the job is gone. */
  | { kind: "lost" };

const RESULT_KEY = "styletwin.result";

/**
 * Downloads and decodes `url` so the <img> that shows it next paints in the same frame, and so
 * the result's other requests (the framed Before, the credits) start after it rather than with
 * it. Never rejects (the <img> then shows its own fallback); gives up waiting after `ms`.
 */
function preloadImage(url: string, ms = 5000): Promise<void> {
  if (typeof Image === "undefined") return Promise.resolve();
  const img = new Image();
  img.src = url;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    img.decode().catch(() => {}),
    new Promise<void>((resolve) => timer = setTimeout(resolve, ms)),
  ]).finally(() => clearTimeout(timer));
}

// A result (and the generation awaited) belongs to the account that made it: another account in this tab
// starts without it.
onAccountChange(() => {
  saveResult(null);
  savePending(null);
});

function loadResult(): GenerationResult | null {
  return readSession(RESULT_KEY, (v) => v as GenerationResult | null);
}
function saveResult(value: GenerationResult | null) {
  writeSession(RESULT_KEY, value);
}

/** The toast texts, from the server's own messages. */
export const INSUFFICIENT_CREDITS = toToastText(INSUFFICIENT_CREDITS_MESSAGE);
export const GENERATION_FAILED_TOAST = {
  title: "Generation Failed",
  description: GENERATION_FAILED,
} as const;
export const GENERATION_TIMEOUT_TOAST = {
  title: "Generation Timeout",
  description: "Generation is taking longer than expected. Please try again.",
} as const;

export interface UseGenerationOptions {
  photo: CurrentPhoto | null;
  onInsufficientCredits(): void;
  onSignInRequired(): void;
  onCompleted(result: GenerationResult): void;
}

export function useGeneration(opts: UseGenerationOptions) {
  const optsRef = useRef(opts);
  optsRef.current = opts;
  const photoId = opts.photo?.id ?? null;
  const [generating, setGenerating] = useState(false);
  const [result, setResultState] = useState<GenerationResult | null>(() => {
    const r = loadResult();
    return r && r.photoId === photoId ? r : null;
  });
  const [problem, setProblem] = useState<GenerationProblem | null>(null);
  /** A 360 set while it runs: its angles' URLs in grid order as they arrive ("" = not ready yet). */
  const [progress360, setProgress360] = useState<string[] | null>(null);
  const abortRef = useRef<AbortController | null>(null);

  const setResult = useCallback((r: GenerationResult | null) => {
    setResultState(r);
    saveResult(r);
  }, []);

  // Another account signed in to this tab (the studio stays mounted under the sign-in dialog): the last
  // account's result, problem and awaited generation are not its own.
  useEffect(() =>
    onAccountChange(() => {
      abortRef.current?.abort();
      setGenerating(false);
      setResultState(null);
      setProblem(null);
      setProgress360(null);
    }), []);

  // A new photo makes the old result (and its problem) meaningless for compare.
  useEffect(() => {
    setResultState((r) => r && r.photoId !== photoId ? null : r);
    setProblem(null);
  }, [photoId]);

  const follow = useCallback(async (pending: PendingGeneration) => {
    abortRef.current?.abort();
    const ctrl = new AbortController();
    abortRef.current = ctrl;
    savePending(pending);
    setProblem(null);
    setGenerating(true);
    const base = `/api/generation/${encodeURIComponent(pending.generationId)}`;
    const outcome = await followGeneration({
      // The result the moment it is ready; polling (below) only when the stream fails.
      openStream: async () => {
        const res = await api.request(`${base}/events`, {
          headers: { Accept: "text/event-stream" },
          signal: ctrl.signal,
        });
        if (!res.ok || !res.body) {
          await res.body?.cancel();
          throw new Error(`status stream refused: ${res.status}`);
        }
        return statusEvents(res.body);
      },
      fetchStatus: () =>
        ok(
          generationApi.generation[":id"].status.$get({
            param: { id: encodeURIComponent(pending.generationId) },
          }),
        ),
      sleep: (ms) => abortableSleep(ms, ctrl.signal),
      signal: ctrl.signal,
      // Hosted models store a 360 set's angles as they complete: the grid fills angle by angle.
      onStatus: (s) => {
        const urls = s.resultUrls ?? {};
        if (pending.view360 && s.status === "processing" && Object.keys(urls).length > 0) {
          setProgress360((["front", "right", "left", "back"] as const).map((a) => urls[a] ?? ""));
        }
      },
    });
    if (outcome.kind === "aborted") return; // left the studio: the pending id stays stored
    const images = outcome.kind === "completed" ? resultImages(outcome.status, pending.view360) : [];
    // The progress stays up while the image downloads, then the result appears whole.
    if (images[0]) await preloadImage(images[0]);
    if (ctrl.signal.aborted) return;
    setProgress360(null);
    setGenerating(false);
    if (outcome.kind === "completed") {
      savePending(null);
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
      savePending(null);
      // The refund may land just after the failed status: read the balance twice.
      refreshCredits();
      setTimeout(refreshCredits, 2000);
      // The toast is the fixed product text; the server's reason goes to the result panel.
      setProblem({ kind: "failed", detail: outcome.status.error, notes: outcome.status.notes ?? [] });
      toast({ ...GENERATION_FAILED_TOAST, variant: "destructive" });
    } else if (outcome.kind === "timeout") {
      // The server may still finish (it retries a job up to 3 x 90 s) and the credits are paid:
      // keep the id so "Check again" (or a reload) picks the result up.
      setProblem({ kind: "timeout" });
      toast({ ...GENERATION_TIMEOUT_TOAST, variant: "destructive" });
    } else if (outcome.status === 401) {
      // Signed out meanwhile: the job is still this account's. Keep it for after signing in.
      setProblem({ kind: "signed-out" });
    } else {
      // 404: not there for this account (another user signed in, or it was removed).
      savePending(null);
      setProblem({ kind: "lost" });
    }
  }, [setResult]);

  // Reload, or back in the studio with the same photo: pick the job up again.
  useEffect(() => {
    const pending = loadPending();
    if (pending && pending.photoId === optsRef.current.photo?.id) follow(pending);
    return () => abortRef.current?.abort();
  }, [follow]);

  /** Resume polling the stored generation (after a timeout or signing in again). */
  const checkAgain = useCallback(() => {
    const pending = loadPending();
    if (pending && pending.photoId === optsRef.current.photo?.id) follow(pending);
    else setProblem(null);
  }, [follow]);

  const start = useCallback(async (payload: GeneratePayload) => {
    setGenerating(true);
    setProblem(null);
    let generationId: string;
    try {
      ({ generationId } = await ok(generationApi.generate.$post(
        { json: payload },
        // One key per click: a retry of this request (lost response, token refresh) is charged once.
        { headers: { "Idempotency-Key": crypto.randomUUID() } },
      )));
    } catch (err) {
      setGenerating(false);
      if (err instanceof ApiError && err.code === ERROR_CODES.insufficientCredits) {
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
    const photo = optsRef.current.photo;
    await follow({
      generationId,
      photoId: payload.photoId,
      view360: payload.view360,
      photo: photo?.id === payload.photoId ? photo : undefined,
    });
  }, [follow]);

  return {
    generating,
    result,
    problem,
    progress360,
    start,
    checkAgain,
    clearResult: () => setResult(null),
  };
}
