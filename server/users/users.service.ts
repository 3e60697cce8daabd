/** Shapes users for the API; knows who is an admin. */
import type { Config } from "../config.ts";
import type { PublicUser } from "../auth/auth.schemas.ts";
import { ADMIN_CREDITS } from "../credits/credit-constants.ts";
import type { DbOrTx } from "../../db/client.ts";
import { findReferencedProfileImageKeys, type UserRow } from "./users.repository.ts";

/**
 * Admins are promoted in the database (`deno task admin`) or listed in ADMIN_EMAILS. The list is
 * read here, never copied into the row, so removing an email from it demotes that account.
 */
export function isAdmin(
  user: Pick<UserRow, "email" | "role" | "isVerified">,
  config: Pick<Config, "adminEmails">,
) {
  // A listed email counts whether or not it is verified: there is no verification flow, and an operator who
  // lists an address means that account. Whoever registers a listed address first is its admin, so register
  // it before listing it (README, Security); the risk is bounded: an admin only generates for free.
  return user.role === "admin" || config.adminEmails.has(user.email);
}

/** The balance the API shows for `user`: `balance`, or for an admin the 999999 sentinel (unlimited). */
export function shownCredits(
  user: Pick<UserRow, "email" | "role" | "isVerified">,
  balance: number,
  config: Pick<Config, "adminEmails">,
): number {
  return isAdmin(user, config) ? ADMIN_CREDITS : balance;
}

/** What a user may see of their own row, its balance as shownCredits shows it. */
export function toPublicUser(
  user: UserRow,
  config: Pick<Config, "adminEmails">,
): PublicUser {
  const admin = isAdmin(user, config);
  return {
    id: user.id,
    email: user.email,
    full_name: user.fullName,
    profile_image_url: user.profileImageUrl,
    credits: shownCredits(user, user.credits, config),
    created_at: user.createdAt.toISOString(),
    is_active: user.isActive,
    is_verified: user.isVerified,
    role: admin ? "admin" : "user",
  };
}

/** Which of these storage keys a profile image uses (the orphan blob sweep keeps them). */
export function profileImageKeysIn(db: DbOrTx, keys: string[]): Promise<Set<string>> {
  return findReferencedProfileImageKeys(db, keys);
}
