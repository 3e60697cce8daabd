/**
 * The account API contract: request shapes and the validation messages users read. Pure zod, no server
 * imports: the client validates its forms with the same rules and messages.
 */
import * as z from "zod";

const PASSWORD_CLASSES = [/[a-z]/, /[A-Z]/, /\d/, /[@$!%*?&]/];

/** Longest email accepted (RFC 5321's path limit); checked before anything else looks at it. */
export const MAX_EMAIL_LENGTH = 254;
export const MAX_PASSWORD_LENGTH = 256;
const PASSWORD_TOO_LONG = `Password must be at most ${MAX_PASSWORD_LENGTH} characters`;
/** Refresh tokens are 64 hex characters; anything much longer is not one. */
const MAX_REFRESH_TOKEN_LENGTH = 256;

/**
 * The `{email}` rule: something@something.something, no spaces (one "@", a dot
 * inside the domain). A single left-to-right scan, never a backtracking regex:
 * `^[^\s@]+@[^\s@]+\.[^\s@]+$` is quadratic on "a@" + thousands of dots + "@".
 */
export function isEmailAddress(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH || /\s/.test(value)) return false;
  const at = value.indexOf("@");
  if (at < 1 || at !== value.lastIndexOf("@")) return false;
  return value.slice(at + 2, -1).includes(".");
}

export const MESSAGES = {
  emailRequired: "Email is required",
  emailInvalid: "Email is invalid",
  passwordRequired: "Password is required",
  passwordShort: "Password must be at least 8 characters",
  passwordWeak: "Password must contain uppercase, lowercase, number, and special character",
  fullNameRequired: "Full name is required",
  confirmRequired: "Please confirm your password",
  passwordsDiffer: "Passwords do not match",
} as const;

export const emailSchema = z.string({ error: MESSAGES.emailRequired })
  .trim()
  // One refinement that decides in order: the length bound comes before any scan.
  .superRefine((value, ctx) => {
    if (value.length === 0) ctx.addIssue({ code: "custom", message: MESSAGES.emailRequired });
    else if (!isEmailAddress(value)) ctx.addIssue({ code: "custom", message: MESSAGES.emailInvalid });
  });

/** Login only needs a password to be present; strength rules apply on register. */
export const loginSchema = z.object({
  email: emailSchema,
  password: z.string({ error: MESSAGES.passwordRequired }).superRefine((value, ctx) => {
    if (value.length === 0) ctx.addIssue({ code: "custom", message: MESSAGES.passwordRequired });
    // argon2 is fed at most this much; a longer one cannot be anyone's password.
    else if (value.length > MAX_PASSWORD_LENGTH) ctx.addIssue({ code: "custom", message: PASSWORD_TOO_LONG });
  }),
});

export const newPasswordSchema = z.string({ error: MESSAGES.passwordRequired })
  .superRefine((value, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: "custom", message });
    if (value.length === 0) fail(MESSAGES.passwordRequired);
    else if (value.length < 8) fail(MESSAGES.passwordShort);
    // argon2 is fed at most this much; longer "passwords" are a DoS vector.
    else if (value.length > MAX_PASSWORD_LENGTH) fail(PASSWORD_TOO_LONG);
    else if (!PASSWORD_CLASSES.every((re) => re.test(value))) fail(MESSAGES.passwordWeak);
  });

export const registerSchema = z.object({
  email: emailSchema,
  password: newPasswordSchema,
  full_name: z.string({ error: MESSAGES.fullNameRequired })
    .trim()
    .min(1, MESSAGES.fullNameRequired)
    .max(120, "Full name must be at most 120 characters"),
});

export const refreshSchema = z.object({
  refresh_token: z.string({ error: "No refresh token available" })
    .min(1, "No refresh token available")
    .max(MAX_REFRESH_TOKEN_LENGTH, "Invalid or expired refresh token"),
});

export const logoutSchema = z.object({ refresh_token: z.string().max(MAX_REFRESH_TOKEN_LENGTH).optional() });

export type LoginInput = z.infer<typeof loginSchema>;
export type RegisterInput = z.infer<typeof registerSchema>;

/** The user object every auth answer and GET /api/users/me carry. */
export interface PublicUser {
  id: string;
  email: string;
  full_name: string;
  profile_image_url: string | null;
  credits: number;
  created_at: string;
  is_active: boolean;
  is_verified: boolean;
  role: "user" | "admin";
}

export interface AuthResponse {
  access_token: string;
  refresh_token: string;
  user: PublicUser;
}

export interface RefreshResponse {
  access_token: string;
  refresh_token: string;
}
