/**
 * An <img> that shows `fallback` instead of a broken-image icon when the
 * image cannot be loaded (an expired upload, a dropped connection). The
 * fallback gets `retry`, which loads the image again.
 */
import { type ImgHTMLAttributes, type ReactNode, useState } from "react";

export interface SafeImageProps extends Omit<ImgHTMLAttributes<HTMLImageElement>, "onError"> {
  src: string;
  alt: string;
  fallback(retry: () => void): ReactNode;
  onFailed?(): void;
}

export function SafeImage({ src, fallback, onFailed, ...rest }: SafeImageProps) {
  // Failure is remembered per URL, so a new src gets its own chance.
  const [failed, setFailed] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  if (failed === src) {
    return (
      <>
        {fallback(() => {
          setFailed(null);
          setAttempt((n) => n + 1);
        })}
      </>
    );
  }
  return (
    <img
      key={`${src}#${attempt}`}
      src={src}
      {...rest}
      onError={() => {
        setFailed(src);
        onFailed?.();
      }}
    />
  );
}
