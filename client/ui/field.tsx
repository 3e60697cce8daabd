/**
 * Form fields: one label, one control and one inline error, wired the same way
 * everywhere (label `for` the control's id; while there is an error the control
 * is aria-invalid and aria-describedby the error text, which is announced as an
 * alert). `FormField` takes any control through a render function; `Field` is
 * the common case, a text input.
 */
import { type InputHTMLAttributes, type ReactNode, useId } from "react";

/** What the control inside a FormField must carry. */
export interface FieldControlProps {
  id: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

export interface FormFieldProps {
  label: string;
  error?: string | null;
  /** The control's id (generated when absent). */
  id?: string;
  className?: string;
  children(control: FieldControlProps): ReactNode;
}

export function FormField({ label, error, id, className = "", children }: FormFieldProps) {
  const autoId = useId();
  const controlId = id ?? autoId;
  const errorId = `${controlId}-error`;
  return (
    <div className={className}>
      <label htmlFor={controlId} className="mb-1.5 block text-sm font-medium text-ink-700">
        {label}
      </label>
      {children({
        id: controlId,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": error ? errorId : undefined,
      })}
      {error && (
        <p id={errorId} className="mt-1.5 text-sm font-medium text-red-600" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * The look of a text-like control (input, select, textarea); `box` is its
 * height and padding, which differ by control.
 */
export function controlClass(error?: string | null, box = "h-11 px-3.5"): string {
  const state = error
    ? "border-red-400 focus:border-red-500 focus:ring-red-100"
    : "border-ink-200 focus:border-brand-400 focus:ring-brand-100";
  return `block w-full rounded-xl border bg-white ${box} text-[15px] text-ink-900 shadow-sm outline-none transition placeholder:text-ink-400 focus:ring-4 ${state}`;
}

export interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  error?: string | null;
}

/** A labelled text input with its inline error. */
export function Field({ label, error, id, className, ...rest }: FieldProps) {
  return (
    <FormField label={label} error={error} id={id} className={className}>
      {(control) => <input {...control} className={controlClass(error)} {...rest} />}
    </FormField>
  );
}
