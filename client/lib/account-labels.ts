/** How an account is shown in the header and the dashboard: credits pill text, user label (pure). */
import { ADMIN_CREDITS, type PublicUser } from "../api/types.ts";

export function isAdminBalance(credits: number | undefined | null): boolean {
  return credits === ADMIN_CREDITS;
}

/** Header credits pill text: credits or 0; 999999 shows ∞ (Admin). */
export function formatCredits(user: Pick<PublicUser, "credits" | "full_name" | "email"> | null): string {
  if (!user) return "0";
  if (isAdminBalance(user.credits)) return "∞ (Admin)";
  return String(user.credits ?? 0);
}

/** A full name's first word and the rest (either may be empty). */
export function splitFullName(fullName: string | null | undefined): { first: string; last: string } {
  const [first = "", ...rest] = (fullName ?? "").trim().split(/\s+/);
  return { first, last: rest.join(" ") };
}

/** Header label: first name or email prefix, fallback User. */
export function userLabel(user: Pick<PublicUser, "credits" | "full_name" | "email"> | null): string {
  const { first } = splitFullName(user?.full_name);
  if (first) return first;
  const prefix = user?.email?.split("@")[0];
  return prefix || "User";
}
