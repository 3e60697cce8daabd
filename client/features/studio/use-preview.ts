/**
 * The live preview: while the user picks options and moves sliders, POST /api/preview (the same
 * body as generate; free, rate-limited) renders a small JPEG with the offline model. Requests are
 * debounced, and a newer choice aborts the request still in flight (AbortController), so only the
 * preview of the latest choices is ever shown. The first preview of a photo (a new upload with a
 * look already chosen) is asked for at once: the server prepares a new photo in steps, and a
 * preview asked for during the first (finding the face) waits for it only.
 */
import { useEffect, useRef, useState } from "react";
import { api } from "../../api/client.ts";
import { readDetail } from "../../api/http.ts";
import type { GeneratePayload } from "./option-model.ts";

export const PREVIEW_DEBOUNCE_MS = 300;

/** How long a change waits before its preview is asked for: none for the first preview of a photo. */
export function previewDelay(body: GeneratePayload, lastPhotoId: string | null): number {
  return body.photoId === lastPhotoId ? PREVIEW_DEBOUNCE_MS : 0;
}

export type PreviewState =
  /** Nothing to preview (signed out, no photo, nothing chosen): show the photo. */
  | { kind: "idle" }
  | { kind: "loading"; url: string | null }
  /**
   * `notes`: what the preview did not apply (from the X-Preview-Notes header); `refused`: the photo
   * takes none of the choices, so Generate would change nothing (X-Preview-Refused).
   */
  | { kind: "ready"; url: string; notes: string[]; refused: boolean }
  /** 422: these choices change nothing in the photo. */
  | { kind: "no-change"; detail: string | null }
  /** 429: too many previews a minute; the last image stays. */
  | { kind: "paused"; url: string | null }
  | { kind: "error"; url: string | null };

/** X-Preview-Notes: a URI-encoded JSON array of strings; anything else reads as none. */
export function previewNotes(header: string | null): string[] {
  if (!header) return [];
  try {
    const v = JSON.parse(decodeURIComponent(header));
    return Array.isArray(v) ? v.filter((n): n is string => typeof n === "string").slice(0, 5) : [];
  } catch {
    return [];
  }
}

/** The body a preview is rendered from: the generate body without the choices previews ignore. */
export function previewBody(p: GeneratePayload): GeneratePayload {
  return { ...p, view360: false };
}

export function usePreview(payload: GeneratePayload | null, enabled: boolean): PreviewState {
  const [state, setState] = useState<PreviewState>({ kind: "idle" });
  const urlRef = useRef<string | null>(null);
  /** The photo of the last preview asked for (see previewDelay). */
  const photoRef = useRef<string | null>(null);
  /**
   * The last answer the server gave and the body it answered (its image is urlRef's): when previews pause and
   * come back to the same choices (Generate turns them off while it runs, and a refused Generate ends at once),
   * it is shown again rather than asked for again.
   */
  const settledRef = useRef<{ key: string; state: PreviewState } | null>(null);
  const key = enabled && payload ? JSON.stringify(previewBody(payload)) : null;

  useEffect(() => {
    if (key === null) {
      setState({ kind: "idle" });
      return;
    }
    if (settledRef.current?.key === key) {
      setState(settledRef.current.state);
      return;
    }
    const ctrl = new AbortController();
    setState((s) => ({ kind: "loading", url: "url" in s ? s.url : null }));
    const body = JSON.parse(key) as GeneratePayload;
    const timer = setTimeout(async () => {
      photoRef.current = body.photoId;
      try {
        const res = await api.request("/api/preview", {
          method: "POST",
          json: body,
          signal: ctrl.signal,
        });
        if (ctrl.signal.aborted) return;
        if (res.status === 422) {
          const settled: PreviewState = { kind: "no-change", detail: await readDetail(res) };
          if (ctrl.signal.aborted) return;
          settledRef.current = { key, state: settled };
          setState(settled);
          return;
        }
        if (res.status === 429) {
          setState({ kind: "paused", url: urlRef.current });
          return;
        }
        if (!res.ok) {
          setState({ kind: "error", url: urlRef.current });
          return;
        }
        const notes = previewNotes(res.headers.get("X-Preview-Notes"));
        const refused = res.headers.get("X-Preview-Refused") === "true";
        const blob = await res.blob();
        if (ctrl.signal.aborted) return;
        const url = URL.createObjectURL(blob);
        if (urlRef.current) URL.revokeObjectURL(urlRef.current);
        urlRef.current = url;
        const settled: PreviewState = { kind: "ready", url, notes, refused };
        settledRef.current = { key, state: settled };
        setState(settled);
      } catch {
        if (!ctrl.signal.aborted) setState({ kind: "error", url: urlRef.current });
      }
    }, previewDelay(body, photoRef.current));
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [key]);

  useEffect(() => () => {
    if (urlRef.current) URL.revokeObjectURL(urlRef.current);
  }, []);

  return state;
}
