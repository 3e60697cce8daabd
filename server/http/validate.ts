/**
 * zod validation for Hono routes that answers the API's error shape:
 * 422 `{"detail": "<every message, in field order>", "code": "validation_error"}`.
 *
 * JSON bodies get two guards before any schema runs: a body not declared as
 * JSON is refused with 415 (otherwise the validator sees no body and lists every
 * field as missing), and text no database column can hold, or a key zod would
 * silently drop, is refused with 422 (see findUnacceptedText).
 */
import { zValidator } from "@hono/zod-validator";
import type { Context, ValidationTargets } from "hono";
import type { z } from "zod";
import { AppError } from "./errors.ts";
import { assertJsonContentType } from "./require-json.ts";

/**
 * zod's own English messages ("Invalid option: expected one of ...", "Too big: expected number to be
 * <=100") do not say which field they are about; ours always do ("Email is required").
 */
const ZOD_DEFAULT_MESSAGE =
  /^(Invalid (input|option|discriminator|string|element|key|union)|Too (small|big)|Unrecognized key)/;

/**
 * One message per field (the first rule it broke), fields in schema order; a zod default message is
 * prefixed with its field's path ("package_id: Invalid option: ...").
 */
export function describeIssues(error: { issues: { message: string; path: PropertyKey[] }[] }): string {
  const byField = new Map<string, string>();
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".");
    if (byField.has(field)) continue;
    byField.set(
      field,
      field && ZOD_DEFAULT_MESSAGE.test(issue.message) ? `${field}: ${issue.message}` : issue.message,
    );
  }
  return [...new Set(byField.values())].join("; ");
}

/**
 * The first string (value or key) in a parsed JSON body that is refused before any schema runs, with its
 * path and why; or null. U+0000: Postgres cannot store it in text. A lone UTF-16 surrogate (`"\ud800"` is
 * valid JSON): Postgres' jsonb refuses it (a 500 from a profile's styling preferences), and text columns
 * would store it as U+FFFD, so two different emails could become one. A `__proto__` key: zod's records drop
 * it from their output without a word, so `{"options": {"__proto__": {...}}}` was a generation of the
 * defaults, charged. Iterative, so a deeply nested body cannot overflow the stack.
 */
export function findUnacceptedText(value: unknown): { path: string; why: string } | null {
  const refused = (text: string) =>
    text.includes("\0")
      ? "must not contain NUL (\\u0000) characters"
      : text.isWellFormed()
      ? null
      : "must be valid Unicode text (a lone surrogate such as \\ud800 is not)";
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      const why = refused(v);
      if (why) return { path, why };
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, path ? `${path}.${i}` : String(i)]));
    } else if (v !== null && typeof v === "object") {
      for (const [key, item] of Object.entries(v)) {
        const at = path ? `${path}.${key}` : key;
        const why = key === "__proto__" ? "is not an accepted field name" : refused(key);
        if (why) return { path: at, why };
        stack.push([item, at]);
      }
    }
  }
  return null;
}

async function guardJsonBody(c: Context): Promise<void> {
  assertJsonContentType(c);
  let body: unknown;
  try {
    body = await c.req.json(); // cached: the validator reads the same parsed body
  } catch {
    return; // malformed JSON: the validator answers 400
  }
  const found = findUnacceptedText(body);
  if (found !== null) {
    // The path as JSON would write it: a NUL or a lone surrogate in a key is shown escaped.
    const field = JSON.stringify(found.path).slice(1, -1) || "The request body";
    throw new AppError(422, `${field} ${found.why}`, { code: "validation_error" });
  }
}

export function validate<
  T extends z.ZodType,
  Target extends keyof ValidationTargets,
>(
  target: Target,
  schema: T,
) {
  const inner = zValidator(target, schema, (result) => {
    if (!result.success) throw new AppError(422, describeIssues(result.error));
  });
  if (target !== "json") return inner;
  return (async (c: Context, next: () => Promise<void>) => {
    await guardJsonBody(c);
    return await inner(c as never, next);
  }) as unknown as typeof inner;
}
