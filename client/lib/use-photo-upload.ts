/**
 * Uploading one chosen photo, shared by the landing card and the studio's
 * reference photo: the client-side checks first (a rejected file never leaves
 * the browser), then the upload with a busy flag, and a toast for either
 * failure.
 */
import { useCallback, useState } from "react";
import { uploadPhoto } from "../api/photos.ts";
import type { CurrentPhoto } from "../api/types.ts";
import { toast } from "../ui/toast.tsx";
import { uploadErrorText, validatePhotoFile } from "./photo-rules.ts";

export interface PhotoUpload {
  busy: boolean;
  /** Checks and uploads the file (nothing when no file was chosen). */
  upload(file: File | undefined): Promise<void>;
}

export function usePhotoUpload(onUploaded: (photo: CurrentPhoto) => void): PhotoUpload {
  const [busy, setBusy] = useState(false);
  const upload = useCallback(async (file: File | undefined) => {
    if (!file) return;
    const invalid = validatePhotoFile(file);
    if (invalid) {
      toast({ ...invalid, variant: "destructive" });
      return;
    }
    setBusy(true);
    try {
      onUploaded(await uploadPhoto(file));
    } catch (err) {
      toast({ ...uploadErrorText(err), variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }, [onUploaded]);
  return { busy, upload };
}
