/**
 * zod validation for Hono routes that answers the API's error shape:
 * 422 `{"detail": "<every message, in field order>"}`.
 */
import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { z } from "zod";
import { AppError } from "./errors.ts";

/** One message per field (the first rule it broke), fields in schema order. */
export function describeIssues(error: { issues: { message: string; path: PropertyKey[] }[] }): string {
  const byField = new Map<string, string>();
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".");
    if (!byField.has(field)) byField.set(field, issue.message);
  }
  return [...new Set(byField.values())].join("; ");
}

export function validate<
  T extends z.ZodType,
  Target extends keyof ValidationTargets,
>(
  target: Target,
  schema: T,
) {
  return zValidator(target, schema, (result) => {
    if (!result.success) throw new AppError(422, describeIssues(result.error));
  });
}
