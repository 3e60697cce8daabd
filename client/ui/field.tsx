/** Labelled text input with an inline error (aria-invalid + aria-describedby). */
import { type InputHTMLAttributes, useId } from "react";

export interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  error?: string | null;
}

export function Field({ label, error, id, className = "", ...rest }: FieldProps) {
  const autoId = useId();
  const inputId = id ?? autoId;
  const errorId = `${inputId}-error`;
  return (
    <div className={className}>
      <label
        htmlFor={inputId}
        className="mb-1.5 block text-sm font-medium text-ink-700"
      >
        {label}
      </label>
      <input
        id={inputId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        className={`block h-11 w-full rounded-xl border bg-white px-3.5 text-[15px] text-ink-900 shadow-sm outline-none transition placeholder:text-ink-400 focus:ring-4 ${
          error
            ? "border-red-400 focus:border-red-500 focus:ring-red-100"
            : "border-ink-200 focus:border-brand-400 focus:ring-brand-100"
        }`}
        {...rest}
      />
      {error && (
        <p
          id={errorId}
          className="mt-1.5 text-sm font-medium text-red-600"
          role="alert"
        >
          {error}
        </p>
      )}
    </div>
  );
}
