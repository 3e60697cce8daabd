/**
 * The generation being waited for, kept in session storage until it ends
 * (completed, failed, or gone from the server). It survives a reload, a
 * Generation Timeout (the server job may still finish: credits were paid) and
 * Back to Home (the home page offers the way back to it).
 */
import type { CurrentPhoto } from "../api/types.ts";
import { parsePhoto } from "./current-photo.ts";
import { readSession, writeSession } from "./session-json.ts";

export interface PendingGeneration {
  generationId: string;
  photoId: string;
  view360: boolean;
  /** The reference photo, so the studio can be reopened with it from the home page. */
  photo?: CurrentPhoto;
}

const KEY = "styletwin.pending";

export function loadPending(): PendingGeneration | null {
  return readSession(KEY, (v) => {
    const p = v as Partial<PendingGeneration> | null;
    if (!p || typeof p.generationId !== "string" || typeof p.photoId !== "string") return null;
    const photo = parsePhoto(p.photo) ?? undefined;
    return { generationId: p.generationId, photoId: p.photoId, view360: p.view360 === true, photo };
  });
}

export function savePending(pending: PendingGeneration | null) {
  writeSession(KEY, pending);
}
