/**
 * The dashboard's account API contract: profile, change password, stats,
 * export. Pure zod and types, no server imports: the client validates its
 * forms and types its fetchers with the same schemas.
 */
import * as z from "zod";
import { newPasswordSchema } from "../auth/auth.schemas.ts";

export const PROFILE_GENDERS = ["male", "female", "other", "prefer-not-to-say"] as const;
export type ProfileGender = typeof PROFILE_GENDERS[number];

/** Size limits of the profile (also what the form's inputs allow). */
export const PROFILE_LIMITS = {
  name: 50,
  phone: 32,
  location: 100,
  bio: 500,
  /** Serialised JSON bytes of styling_preferences. */
  preferencesBytes: 4096,
  preferencesKeys: 50,
  /** Nesting: a few levels describe any preference; 2,000 levels in 4 KB exported as 8 MB of indentation. */
  preferencesDepth: 8,
  listItems: 20,
  listItemLength: 50,
  /** A date of birth must give an age in this range. */
  minAge: 13,
  maxAge: 120,
} as const;

const L = PROFILE_LIMITS;

/** Trimmed text; "" and null both clear the field. */
const optionalText = (field: string, max: number) =>
  z.string({ error: `${field} must be text` })
    .trim()
    .max(max, `${field} must be at most ${max} characters`)
    .transform((s) => s === "" ? null : s)
    .nullable()
    .optional();

const PHONE_PATTERN = /^\+?[0-9][0-9 ()\-.]*[0-9]$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whole years between an ISO date and `today` (UTC). */
export function ageOn(iso: string, today: Date): number {
  const [y, m, d] = iso.split("-").map(Number);
  let age = today.getUTCFullYear() - y;
  const beforeBirthday = today.getUTCMonth() + 1 < m ||
    (today.getUTCMonth() + 1 === m && today.getUTCDate() < d);
  if (beforeBirthday) age--;
  return age;
}

/** A real calendar date written YYYY-MM-DD (2024-02-30 is refused, not rolled over). */
export function isIsoDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/**
 * An ISO date-time ("1990-02-03T00:00:00Z", as many clients serialise a date picker's value): its date
 * part is the date meant. Group 1 is that part.
 */
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

const dateOfBirthSchema = z.string({ error: "date_of_birth must be a date (YYYY-MM-DD)" })
  .trim()
  // Bounded before any pattern runs: the longest ISO date-time is 35 characters.
  .max(35, "date_of_birth must be a date (YYYY-MM-DD)")
  .transform((raw, ctx) => {
    if (raw === "") return null;
    const s = ISO_DATE_TIME.exec(raw)?.[1] ?? raw;
    if (!isIsoDate(s)) {
      ctx.addIssue({ code: "custom", message: "date_of_birth must be a date (YYYY-MM-DD)" });
      return z.NEVER;
    }
    const today = new Date();
    if (s > today.toISOString().slice(0, 10)) {
      ctx.addIssue({ code: "custom", message: "date_of_birth cannot be in the future" });
      return z.NEVER;
    }
    const age = ageOn(s, today);
    if (age < L.minAge || age > L.maxAge) {
      ctx.addIssue({
        code: "custom",
        message: `date_of_birth must give an age between ${L.minAge} and ${L.maxAge}`,
      });
      return z.NEVER;
    }
    return s;
  })
  .nullable()
  .optional();

const listSchema = (field: string) =>
  z.array(
    z.string({ error: `${field} must be a list of text` }).trim()
      .min(1, `${field} entries cannot be empty`)
      .max(L.listItemLength, `${field} entries must be at most ${L.listItemLength} characters`),
    { error: `${field} must be a list of text` },
  )
    .max(L.listItems, `${field} must have at most ${L.listItems} entries`)
    // Duplicates are dropped, order kept.
    .transform((list) => [...new Set(list)])
    .nullable()
    .optional();

/** How many objects and lists deep a JSON value nests (a string or number: 0). Iterative: no stack to overflow. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    for (const item of Object.values(v)) stack.push([item, depth + 1]);
  }
  return deepest;
}

const stylingPreferencesSchema = z.record(z.string(), z.unknown(), {
  error: "styling_preferences must be an object",
})
  .refine((o) => Object.keys(o).length <= L.preferencesKeys, {
    message: `styling_preferences must have at most ${L.preferencesKeys} keys`,
  })
  .refine((o) => new TextEncoder().encode(JSON.stringify(o)).length <= L.preferencesBytes, {
    message: `styling_preferences must be at most ${L.preferencesBytes} bytes of JSON`,
  })
  .refine((o) => depthOf(o) <= L.preferencesDepth, {
    message: `styling_preferences must nest at most ${L.preferencesDepth} levels deep`,
  })
  .nullable()
  .optional();

/**
 * PUT /api/users/profile. Only these keys are read; every other key (credits,
 * role, email, user_id ...) is dropped by the object schema, so nothing else
 * can be assigned through it. A key that is absent keeps its stored value;
 * null or "" clears it.
 */
export const profileUpdateSchema = z.object({
  first_name: optionalText("first_name", L.name),
  last_name: optionalText("last_name", L.name),
  phone: optionalText("phone", L.phone).refine((p) => p == null || PHONE_PATTERN.test(p), {
    message: "phone must be a phone number (digits, spaces and + - ( ) .)",
  }),
  date_of_birth: dateOfBirthSchema,
  gender: z.preprocess(
    (v) => v === "" ? null : v,
    z.enum(PROFILE_GENDERS, { error: `gender must be one of: ${PROFILE_GENDERS.join(", ")}` }).nullable()
      .optional(),
  ),
  location: optionalText("location", L.location),
  bio: optionalText("bio", L.bio),
  styling_preferences: stylingPreferencesSchema,
  favorite_styles: listSchema("favorite_styles"),
  color_preferences: listSchema("color_preferences"),
}, { error: "The profile must be a JSON object" });
export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

/** GET/PUT /api/users/profile answer. */
export interface Profile {
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  /** YYYY-MM-DD */
  date_of_birth: string | null;
  gender: ProfileGender | null;
  location: string | null;
  bio: string | null;
  styling_preferences: Record<string, unknown>;
  favorite_styles: string[];
  color_preferences: string[];
  profile_image_url: string | null;
  updated_at: string | null;
}

/** POST /api/users/change-password */
export const changePasswordSchema = z.object({
  current_password: z.string({ error: "current_password is required" })
    .min(1, "current_password is required")
    .max(256, "current_password must be at most 256 characters"),
  new_password: newPasswordSchema,
});
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

export const WRONG_CURRENT_PASSWORD = "Current password is incorrect";
export const SAME_PASSWORD = "The new password must be different from the current password";
export const PASSWORD_CHANGED = "Password changed. Other sessions have been signed out.";

/** One favourite style: an option value the user picked most often. */
export interface FavoriteStyle {
  /** Option key, e.g. lips. */
  option: string;
  /** Catalog id, e.g. classic-red. */
  value: string;
  label: string;
  count: number;
}

/** GET /api/users/stats */
export interface UserStats {
  total_generations: number;
  completed_generations: number;
  available_credits: number;
  /** Most used first, at most 3. */
  favorite_styles: FavoriteStyle[];
  /** 0-100: the share of PROFILE_COMPLETENESS_FIELDS that are filled. */
  profile_completeness: number;
}

/** The fields profile completeness counts (the profile image included). */
export const PROFILE_COMPLETENESS_FIELDS = [
  "first_name",
  "last_name",
  "phone",
  "date_of_birth",
  "gender",
  "location",
  "bio",
  "profile_image_url",
] as const;

/** `styletwin-data-export-2026-11-23.json` */
export function exportFilename(now: Date): string {
  return `styletwin-data-export-${now.toISOString().slice(0, 10)}.json`;
}

export const PROFILE_IMAGE_SIZE = 512;
