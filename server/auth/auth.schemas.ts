/**
 * The account API contract (spec sections 5 and 7). Pure zod, no server
 * imports: the client validates its forms with the same rules and messages.
 */
import * as z from "zod";

// The spec's `{email}` pattern: something@something.something, no spaces.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PASSWORD_PATTERN = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[@$!%*?&]).+$/;

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
  .min(1, MESSAGES.emailRequired)
  .max(254, MESSAGES.emailInvalid)
  .regex(EMAIL_PATTERN, MESSAGES.emailInvalid);

/** Login only needs a password to be present; strength rules apply on register. */
export const loginSchema = z.object({
  email: emailSchema,
  password: z.string({ error: MESSAGES.passwordRequired }).min(
    1,
    MESSAGES.passwordRequired,
  ),
});

export const newPasswordSchema = z.string({ error: MESSAGES.passwordRequired })
  .min(1, MESSAGES.passwordRequired)
  .min(8, MESSAGES.passwordShort)
  // argon2 is fed at most this much; longer "passwords" are a DoS vector.
  .max(256, "Password must be at most 256 characters")
  .regex(PASSWORD_PATTERN, MESSAGES.passwordWeak);

export const registerSchema = z.object({
  email: emailSchema,
  password: newPasswordSchema,
  full_name: z.string({ error: MESSAGES.fullNameRequired })
    .trim()
    .min(1, MESSAGES.fullNameRequired)
    .max(120, "Full name must be at most 120 characters"),
});

export const refreshSchema = z.object({
  refresh_token: z.string({ error: "No refresh token available" }).min(
    1,
    "No refresh token available",
  ),
});

export const logoutSchema = z.object({ refresh_token: z.string().optional() });

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
