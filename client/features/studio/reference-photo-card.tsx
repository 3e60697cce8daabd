/** Reference photo card: thumbnail, remove, Change Photos / Upload Photos, count text. */
import { useState } from "react";
import { usePhotoUpload } from "../../lib/use-photo-upload.ts";
import type { CurrentPhoto } from "../../api/types.ts";
import { Button } from "../../ui/button.tsx";
import { UploadIcon, UserIcon, XIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { PhotoFileInput } from "../../ui/photo-file-input.tsx";

export interface ReferencePhotoCardProps {
  photo: CurrentPhoto | null;
  onChange(photo: CurrentPhoto | null): void;
  disabled?: boolean;
  /** Phones: no card and no thumbnail (the stage beside it shows the photo or its preview). */
  inline?: boolean;
  /** Why the model cannot style this photo at all (see usePhotoProblem), shown under the count. */
  problem?: string | null;
}

export function ReferencePhotoCard(
  { photo, onChange, disabled, inline = false, problem = null }: ReferencePhotoCardProps,
) {
  const { busy, pick, input } = usePhotoUpload(onChange);
  // The thumbnail failed to load: an anonymous upload expires after a day (or the server lost it).
  const [missingUrl, setMissingUrl] = useState<string | null>(null);
  const missing = photo !== null && missingUrl === photo.url;

  return (
    <section
      aria-labelledby="reference-photo-title"
      className={inline
        ? "flex min-w-0 items-center gap-4"
        : "flex items-center gap-4 rounded-3xl bg-white p-4 shadow-sm ring-1 ring-ink-100"}
    >
      <div className={`relative shrink-0 ${inline ? "hidden" : ""}`}>
        <div className="grid size-20 place-items-center overflow-hidden rounded-2xl bg-ink-100 text-ink-400">
          {busy ? <Spinner className="size-6 text-brand-600" /> : photo
            ? (
              missing ? <UserIcon className="size-8" /> : (
                <img
                  src={photo.url}
                  alt="Reference photo"
                  className="size-full object-cover"
                  onError={() => setMissingUrl(photo.url)}
                />
              )
            )
            : <UserIcon className="size-8" />}
        </div>
        {photo && !busy && (
          <button
            type="button"
            aria-label="Remove photo"
            disabled={disabled}
            onClick={() => onChange(null)}
            className="absolute -right-2 -top-2 grid size-7 place-items-center rounded-full bg-ink-900 text-white shadow ring-2 ring-white hover:bg-red-600"
          >
            <XIcon className="size-3.5" />
          </button>
        )}
      </div>
      <div className="min-w-0 flex-1">
        <h2 id="reference-photo-title" className="text-sm font-semibold">
          Reference Photo
        </h2>
        <p className="mt-0.5 text-sm text-ink-500" data-testid="photo-count">
          {photo ? "1 image(s) provided" : "No images provided"}
        </p>
        {problem && !missing && (
          <p
            role="alert"
            className={`mt-1 font-medium text-red-700 ${inline ? "text-xs" : "text-sm"}`}
            data-testid="photo-problem"
          >
            {problem}
          </p>
        )}
        {missing && (
          <p role="alert" className="mt-1 text-sm font-medium text-red-700" data-testid="photo-missing">
            This photo is no longer available. Please upload it again.
          </p>
        )}
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <Button
            variant="outline"
            size="sm"
            onClick={pick}
            disabled={busy || disabled}
          >
            {busy && inline ? <Spinner className="size-4" /> : <UploadIcon className="size-4" />}
            {photo && !missing ? "Change Photos" : "Upload Photos"}
          </Button>
          {inline && photo && !busy && (
            <Button
              variant="ghost"
              size="sm"
              aria-label="Remove photo"
              disabled={disabled}
              onClick={() => onChange(null)}
            >
              <XIcon className="size-4" /> Remove
            </Button>
          )}
        </div>
        <PhotoFileInput {...input} label="Choose a reference photo" testId="studio-file-input" />
      </div>
    </section>
  );
}
