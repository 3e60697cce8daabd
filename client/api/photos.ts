/** Photo upload: the spec's client-side checks and POST /api/upload-photo. */
import { api } from "./client.ts";
import { ApiError } from "./http.ts";
import type { CurrentPhoto, UploadResponse } from "./types.ts";
import type { ToastText } from "./photo-rules.ts";
export { MAX_UPLOAD_BYTES, validatePhotoFile } from "./photo-rules.ts";

export async function uploadPhoto(file: File): Promise<CurrentPhoto> {
  const form = new FormData();
  form.append("file", file, file.name || "photo.jpg");
  const res = await api.json<UploadResponse>("/api/upload-photo", {
    method: "POST",
    body: form,
  });
  return { id: res.photoId, url: res.url, name: file.name || "photo.jpg" };
}

export function uploadErrorText(err: unknown): ToastText {
  return {
    title: "Upload Failed",
    description: (err instanceof ApiError && err.detail) ||
      "Failed to upload photo",
  };
}
