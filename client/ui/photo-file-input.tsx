/**
 * The hidden file picker behind the "Upload Photo(s)" buttons: opened through
 * its ref, it hands over the first chosen file and resets, so choosing the
 * same file again still fires.
 */
import type { Ref } from "react";

export interface PhotoFileInputProps {
  ref: Ref<HTMLInputElement>;
  label: string;
  testId: string;
  onFile(file: File | undefined): void;
}

export function PhotoFileInput({ ref, label, testId, onFile }: PhotoFileInputProps) {
  return (
    <input
      ref={ref}
      type="file"
      accept="image/*"
      multiple
      className="sr-only"
      tabIndex={-1}
      aria-label={label}
      data-testid={testId}
      onChange={(e) => {
        const file = e.target.files?.[0];
        e.target.value = "";
        onFile(file);
      }}
    />
  );
}
