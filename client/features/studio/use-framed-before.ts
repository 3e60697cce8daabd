/**
 * The "before" side of Before / After, framed like the result. The result is reframed to 9:16
 * around the face (per the chosen camera lens), while the uploaded photo is not; cropping the photo
 * to 9:16 in the browser would put the face somewhere else, so the divider would cut through
 * background on one side and face on the other. Instead the preview endpoint renders the photo
 * with only that framing (every other choice at its default), which is the result's framing
 * without the styling. If it cannot (no preview on this server, rate-limited), the plain photo is
 * used.
 */
import { useEffect, useState } from "react";
import { api } from "../../api/client.ts";
import type { GeneratePayload } from "./option-model.ts";

/** The generate body that frames the photo like `generated` and changes nothing else. */
export function framingOnly(generated: GeneratePayload, defaults: Record<string, string>): GeneratePayload {
  const options = { ...generated.options };
  for (const key of Object.keys(options) as (keyof typeof options)[]) {
    if (key !== "cameraLens") options[key] = defaults[key] ?? options[key];
  }
  return {
    photoId: generated.photoId,
    studioType: generated.studioType,
    options,
    view360: false,
    additionalInstructions: null,
  };
}

export function useFramedBefore(body: GeneratePayload | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  const key = body ? JSON.stringify(body) : null;
  useEffect(() => {
    setUrl(null);
    if (key === null) return;
    const ctrl = new AbortController();
    let made: string | null = null;
    (async () => {
      try {
        const res = await api.request("/api/preview", {
          method: "POST",
          json: JSON.parse(key),
          signal: ctrl.signal,
        });
        if (!res.ok || !(res.headers.get("content-type") ?? "").startsWith("image/")) {
          await res.body?.cancel();
          return;
        }
        const blob = await res.blob();
        if (ctrl.signal.aborted) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      } catch {
        // keep the plain photo
      }
    })();
    return () => {
      ctrl.abort();
      if (made) URL.revokeObjectURL(made);
    };
  }, [key]);
  return url;
}
