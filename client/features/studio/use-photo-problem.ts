/**
 * Whether the photo can be styled at all, asked once per photo when the studio shows it
 * (GET /api/photos/{id}/check). With the local model making the final image, a photo with no usable
 * face, or with several faces none of which stands out, fails every generation (charged, then
 * refunded); the reference photo card says why before the user chooses anything, instead of the first
 * preview saying it. Any other answer (a failure, a hosted model) says nothing.
 */
import { useEffect, useState } from "react";
import { api } from "../../api/client.ts";

/** Answers by photo id for this page's life: a photo's faces do not change. */
const known = new Map<string, string | null>();

export function usePhotoProblem(photoId: string | null, enabled: boolean): string | null {
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    setProblem(photoId && enabled ? known.get(photoId) ?? null : null);
    if (!photoId || !enabled || known.has(photoId)) return;
    const ctrl = new AbortController();
    (async () => {
      try {
        const res = await api.request(`/api/photos/${encodeURIComponent(photoId)}/check`, {
          signal: ctrl.signal,
        });
        if (!res.ok) {
          await res.body?.cancel();
          return;
        }
        const body = await res.json() as { usable?: unknown; detail?: unknown };
        const found = body.usable === false && typeof body.detail === "string" ? body.detail : null;
        known.set(photoId, found);
        if (!ctrl.signal.aborted) setProblem(found);
      } catch {
        // Unknown: the first preview or the generation will say it.
      }
    })();
    return () => ctrl.abort();
  }, [photoId, enabled]);
  return problem;
}
