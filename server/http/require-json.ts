/**
 * Refuses a body that is not declared as JSON with 415. Without this the zod
 * validator sees no body at all for text/plain and answers 422 listing every
 * field as missing, which sends the client looking in the wrong place.
 * validate("json", ...) applies it to every JSON route; routes that read JSON
 * some other way use the middleware.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AppError } from "./errors.ts";

// The media types hono's validator parses as JSON (application/json, application/*+json).
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

export function assertJsonContentType(c: Context): void {
  const mediaType = c.req.header("Content-Type")?.split(";")[0].trim() ?? "";
  if (mediaType.length > 100 || !JSON_MEDIA_TYPE.test(mediaType)) {
    throw new AppError(415, "Content-Type must be application/json", { code: "unsupported_media_type" });
  }
}

export const requireJson = createMiddleware(async (c, next) => {
  assertJsonContentType(c);
  await next();
});
