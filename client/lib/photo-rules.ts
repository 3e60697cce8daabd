/**
 * The client-side photo checks (pure). The limit and the messages are
 * the server's own (server/photos/photo-limits.ts), so both sides agree.
 */
import { FILE_TOO_LARGE, INVALID_FILE_TYPE, MAX_UPLOAD_BYTES } from "../../server/photos/photo-limits.ts";
import { ApiError } from "../api/http.ts";
import { type ToastText, toToastText } from "./toast-text.ts";

export { MAX_UPLOAD_BYTES };
export type { ToastText };

/** Returns the toast for a rejected file, or null when the file may be uploaded. */
export function validatePhotoFile(
  file: { type: string; size: number },
): ToastText | null {
  if (!file.type.startsWith("image/")) return toToastText(INVALID_FILE_TYPE);
  if (file.size > MAX_UPLOAD_BYTES) return toToastText(FILE_TOO_LARGE);
  return null;
}

/** The toast for a failed upload: the server's reason, or the generic text. */
export function uploadErrorText(err: unknown): ToastText {
  return {
    title: "Upload Failed",
    description: (err instanceof ApiError && err.detail) || "Failed to upload photo",
  };
}
