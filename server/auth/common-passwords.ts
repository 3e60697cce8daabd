/**
 * Refuses the most common passwords: the first COMMON_PASSWORD_COUNT entries of
 * the frequency-ordered list shipped in @zxcvbn-ts/language-common (leaked
 * password corpora). The composition rule (upper, lower, digit, symbol) alone
 * accepts `Password1!`; attackers try exactly those first.
 *
 * A password is refused when, lower-cased, it is on the list, or its core is:
 * the password without its trailing run of digits and symbols, read with the
 * usual letter substitutions undone (`P@ssw0rd2024!` -> `password`).
 * Server-only: the list must not reach the client bundle.
 */
import { dictionary } from "@zxcvbn-ts/language-common";

export const COMMON_PASSWORD_COUNT = 5000;
export const COMMON_PASSWORD_MESSAGE =
  "This password is too common and easy to guess. Please choose a less predictable one.";

// Cores shorter than this ("abc", "qwe") would refuse too much; the full password is always checked.
const MIN_CORE_LENGTH = 4;
const LEET: Record<string, string> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "@": "a",
  "$": "s",
};

let common: Set<string> | undefined;
function commonSet(): Set<string> {
  common ??= new Set((dictionary["passwords-common"] as string[]).slice(0, COMMON_PASSWORD_COUNT));
  return common;
}

function unLeet(s: string): string {
  return s.replace(/[013457@$]/g, (ch) => LEET[ch]);
}

export function isCommonPassword(password: string): boolean {
  const set = commonSet();
  const lower = password.toLowerCase();
  if (set.has(lower) || set.has(unLeet(lower))) return true;
  const core = withoutTrailingNonLetters(lower);
  if (core.length < MIN_CORE_LENGTH) return false;
  const decoded = unLeet(core);
  return set.has(core) || set.has(decoded) || set.has(withoutTrailingNonLetters(decoded));
}

/** A loop, not `/[^a-z]+$/` (which backtracks quadratically over a long run of digits). */
function withoutTrailingNonLetters(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] < "a" || s[end - 1] > "z")) end--;
  return s.slice(0, end);
}
