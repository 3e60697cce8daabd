/**
 * zod validation for Hono routes that answers the API's error shape:
 * 422 `{"detail": "<every message, in field order>", "code": "validation_error"}`.
 *
 * JSON bodies get two guards before any schema runs: a body not declared as
 * JSON is refused with 415 (otherwise the validator sees no body and lists every
 * field as missing), and a NUL character anywhere in the body is refused with
 * 422 (Postgres cannot store it in text: it would surface as a 500).
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
 * The path of the first string (value or key) holding U+0000, or null. Iterative, so a
 * deeply nested body cannot overflow the stack.
 */
export function findNulPath(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      if (v.includes("\0")) return path;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, path ? `${path}.${i}` : String(i)]));
    } else if (v !== null && typeof v === "object") {
      for (const [key, item] of Object.entries(v)) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes("\0")) return at;
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
  const path = findNulPath(body);
  if (path !== null) {
    const field = path.replace(/\0/g, "\\u0000") || "The request body";
    throw new AppError(422, `${field} must not contain NUL (\\u0000) characters`, {
      code: "validation_error",
    });
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
