/** The spec's client-side photo checks (pure). */
export const MAX_UPLOAD_BYTES = 10485760;

export interface ToastText {
  title: string;
  description: string;
}

/** Returns the spec's toast for a rejected file, or null when the file may be uploaded. */
export function validatePhotoFile(
  file: { type: string; size: number },
): ToastText | null {
  if (!file.type.startsWith("image/")) {
    return {
      title: "Invalid File Type",
      description: "Please upload an image file.",
    };
  }
  if (file.size > MAX_UPLOAD_BYTES) {
    return {
      title: "File Too Large",
      description: "Please upload an image smaller than 10MB.",
    };
  }
  return null;
}
