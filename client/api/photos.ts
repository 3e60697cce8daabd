/** Photo upload: POST /api/upload-photo (the checks and texts the user sees are in lib/photo-rules.ts). */
import { api } from "./client.ts";
import type { CurrentPhoto, UploadResponse } from "./types.ts";

export async function uploadPhoto(file: File): Promise<CurrentPhoto> {
  const form = new FormData();
  form.append("file", file, file.name || "photo.jpg");
  const res = await api.json<UploadResponse>("/api/upload-photo", {
    method: "POST",
    body: form,
  });
  return { id: res.photoId, url: res.url, name: file.name || "photo.jpg" };
}
