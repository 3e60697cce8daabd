/**
 * A part of the page that could not be loaded (the result image, the styling
 * options): what failed, the usual advice and a retry button. `RetryButton` is
 * that button alone, for the other "try once more" places.
 */
import { Button } from "./button.tsx";
import { RotateIcon } from "./icons.tsx";

export function RetryButton({ label, onClick }: { label: string; onClick(): void }) {
  return (
    <Button variant="outline" size="sm" className="mt-3" onClick={onClick}>
      <RotateIcon className="size-4" /> {label}
    </Button>
  );
}

export interface LoadFailedProps {
  title: string;
  retryLabel: string;
  onRetry(): void;
  /** The box: its size and background. */
  className: string;
}

export function LoadFailed({ title, retryLabel, onRetry, className }: LoadFailedProps) {
  return (
    <div role="alert" className={`grid place-items-center text-center ${className}`}>
      <div>
        <p className="text-sm font-semibold text-ink-900">{title}</p>
        <p className="mt-1 text-xs text-ink-500">Check your connection, then try again.</p>
        <RetryButton label={retryLabel} onClick={onRetry} />
      </div>
    </div>
  );
}
