/**
 * The photo being styled lives on the server; its id and URL are kept in
 * session storage (and the id in the studio URL) so a reload keeps it.
 */
import type { CurrentPhoto } from "../api/types.ts";

const KEY = "styletwin.photo";

export function loadPhoto(): CurrentPhoto | null {
  try {
    const raw = globalThis.sessionStorage?.getItem(KEY);
    if (!raw) return null;
    const p = JSON.parse(raw);
    if (
      p && typeof p.id === "string" && typeof p.url === "string" &&
      p.url.startsWith("/api/uploads/")
    ) {
      return { id: p.id, url: p.url, name: String(p.name ?? "photo") };
    }
  } catch {
    // ignore
  }
  return null;
}

export function savePhoto(photo: CurrentPhoto | null) {
  try {
    if (photo) globalThis.sessionStorage.setItem(KEY, JSON.stringify(photo));
    else globalThis.sessionStorage.removeItem(KEY);
  } catch {
    // storage full or disabled: the photo just won't survive a reload
  }
}
