/**
 * Uploading one chosen photo, shared by the landing card and the studio's
 * reference photo: the client-side checks first (a rejected file never leaves
 * the browser), then the upload with a busy flag, and a toast for either
 * failure.
 */
import { type RefObject, useCallback, useRef } from "react";
import { uploadPhoto } from "../api/photos.ts";
import type { CurrentPhoto } from "../api/types.ts";
import { toast } from "../ui/toast.tsx";
import { uploadErrorText, validatePhotoFile } from "./photo-rules.ts";
import { useBusyAction } from "./use-busy-action.ts";

export interface PhotoUpload {
  busy: boolean;
  /** Checks and uploads the file (nothing when no file was chosen). */
  upload(file: File | undefined): Promise<void>;
  /** Opens the file picker (call it inside the user's tap). */
  pick(): void;
  /** Spread onto the hidden PhotoFileInput that `pick` opens. */
  input: { ref: RefObject<HTMLInputElement | null>; onFile(file: File | undefined): void };
}

export function usePhotoUpload(onUploaded: (photo: CurrentPhoto) => void): PhotoUpload {
  const inputRef = useRef<HTMLInputElement>(null);
  const { busy, run } = useBusyAction();
  const upload = useCallback(async (file: File | undefined) => {
    if (!file) return;
    const invalid = validatePhotoFile(file);
    if (invalid) {
      toast({ ...invalid, variant: "destructive" });
      return;
    }
    await run(async () => onUploaded(await uploadPhoto(file)), uploadErrorText);
  }, [onUploaded, run]);
  const pick = useCallback(() => inputRef.current?.click(), []);
  return { busy, upload, pick, input: { ref: inputRef, onFile: upload } };
}
