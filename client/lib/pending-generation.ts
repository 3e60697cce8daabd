/**
 * The generation being waited for, kept in session storage until it ends
 * (completed, failed, or gone from the server). It survives a reload, a
 * Generation Timeout (the server job may still finish: credits were paid) and
 * Back to Home (the home page offers the way back to it).
 */
import type { CurrentPhoto } from "../api/types.ts";

export interface PendingGeneration {
  generationId: string;
  photoId: string;
  view360: boolean;
  /** The reference photo, so the studio can be reopened with it from the home page. */
  photo?: CurrentPhoto;
}

const KEY = "styletwin.pending";

export function loadPending(): PendingGeneration | null {
  try {
    const raw = globalThis.sessionStorage?.getItem(KEY);
    if (!raw) return null;
    const p = JSON.parse(raw);
    if (!p || typeof p.generationId !== "string" || typeof p.photoId !== "string") return null;
    const photo = p.photo && typeof p.photo.id === "string" && typeof p.photo.url === "string" &&
        p.photo.url.startsWith("/api/uploads/")
      ? { id: p.photo.id, url: p.photo.url, name: String(p.photo.name ?? "photo") }
      : undefined;
    return { generationId: p.generationId, photoId: p.photoId, view360: p.view360 === true, photo };
  } catch {
    return null;
  }
}

export function savePending(pending: PendingGeneration | null) {
  try {
    if (pending) globalThis.sessionStorage.setItem(KEY, JSON.stringify(pending));
    else globalThis.sessionStorage.removeItem(KEY);
  } catch {
    // storage disabled: the generation just won't survive a reload
  }
}
