/**
 * The photo being styled lives on the server; its id and URL are kept in
 * session storage (and the id in the studio URL) so a reload keeps it.
 */
import type { CurrentPhoto } from "../api/types.ts";
import { readSession, writeSession } from "./session-json.ts";

const KEY = "styletwin.photo";

/** A stored photo, if it has the shape of one (an id and a URL under /api/uploads/). */
export function parsePhoto(p: unknown): CurrentPhoto | null {
  const v = p as Partial<CurrentPhoto> | null;
  if (v && typeof v.id === "string" && typeof v.url === "string" && v.url.startsWith("/api/uploads/")) {
    return { id: v.id, url: v.url, name: String(v.name ?? "photo") };
  }
  return null;
}

export function loadPhoto(): CurrentPhoto | null {
  return readSession(KEY, parsePhoto);
}

export function savePhoto(photo: CurrentPhoto | null) {
  writeSession(KEY, photo);
}
