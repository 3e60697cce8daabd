/**
 * The sign-in and sign-up rules, from the server's own zod
 * schemas so the messages come from one place. Pure: no DOM.
 */
import { loginSchema, MESSAGES, registerSchema } from "../../../server/auth/auth.schemas.ts";

export interface LoginForm {
  email: string;
  password: string;
}

export interface RegisterForm {
  full_name: string;
  email: string;
  password: string;
  confirmPassword: string;
}

export type FieldErrors<T> = Partial<Record<keyof T, string>>;

function firstIssues<T>(
  issues: { path: PropertyKey[]; message: string }[],
): FieldErrors<T> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? "");
    if (key && !(key in out)) out[key] = issue.message;
  }
  return out as FieldErrors<T>;
}

export function validateLogin(form: LoginForm): FieldErrors<LoginForm> {
  const parsed = loginSchema.safeParse(form);
  return parsed.success ? {} : firstIssues<LoginForm>(parsed.error.issues);
}

export function validateRegister(
  form: RegisterForm,
): FieldErrors<RegisterForm> {
  const parsed = registerSchema.safeParse({
    email: form.email,
    password: form.password,
    full_name: form.full_name,
  });
  const errors: FieldErrors<RegisterForm> = parsed.success
    ? {}
    : firstIssues<RegisterForm>(parsed.error.issues);
  if (!form.confirmPassword) errors.confirmPassword = MESSAGES.confirmRequired;
  else if (form.confirmPassword !== form.password) {
    errors.confirmPassword = MESSAGES.passwordsDiffer;
  }
  return errors;
}

export function hasErrors(errors: Record<string, string | undefined>): boolean {
  return Object.values(errors).some(Boolean);
}

/** "An error clears when the field is edited." */
export function clearFieldError<T>(
  errors: FieldErrors<T>,
  field: keyof T,
): FieldErrors<T> {
  if (!errors[field]) return errors;
  const next = { ...errors };
  delete next[field];
  return next;
}
