/**
 * The Content-Security-Policy every response carries unless its route set its
 * own. Tokens live in localStorage, so this is the guard against XSS: scripts
 * only from our origin (the built client has no inline script), no inline
 * styles in markup, no plugins, no framing, no <base> rewriting. Images may be
 * blob: (previews of a picked photo, downloads) and data: (tiny inline icons).
 */
import type { Context, Next } from "hono";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob: mediastream:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export async function contentSecurityPolicy(c: Context, next: Next) {
  await next();
  if (!c.res.headers.has("Content-Security-Policy")) {
    c.res.headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  }
}
