/**
 * The Content-Security-Policy every response carries unless its route set its
 * own. Tokens live in localStorage, so this is the guard against XSS: scripts
 * only from our origin (the built client has no inline script and never
 * evals), no plugins, no framing, no <base> rewriting. Images may be blob:
 * (previews of a picked or captured photo, downloads) and data: (tiny inline
 * icons); the camera preview plays a mediastream.
 *
 * Styles: files from our origin, plus <style> elements carrying the page's
 * nonce (Radix dialogs inject one to lock scrolling). An HTML page gets a fresh
 * nonce per response, in its policy and in the `csp-nonce` cookie the client
 * reads at start-up (client/csp-setup.ts); the page body, served precompressed,
 * is never rewritten. Inline `style` attributes and scripts are never allowed.
 */
import type { Context, Next } from "hono";
import { setResponseHeader } from "./request-context.ts";

function policy(styleNonce?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    styleNonce ? `style-src 'self' 'nonce-${styleNonce}'` : "style-src 'self'",
    "style-src-attr 'none'",
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
}

/** The policy of every non-HTML response (and the shape of the HTML one, without a nonce). */
export const CONTENT_SECURITY_POLICY = policy();

function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

export async function contentSecurityPolicy(c: Context, next: Next) {
  await next();
  const headers = c.res.headers;
  if (headers.has("Content-Security-Policy")) return; // the route chose its own
  if ((headers.get("Content-Type") ?? "").startsWith("text/html")) {
    const nonce = newNonce();
    setResponseHeader(c, "Content-Security-Policy", policy(nonce));
    setResponseHeader(c, "Set-Cookie", `csp-nonce=${nonce}; Path=/; SameSite=Strict`, true);
  } else {
    setResponseHeader(c, "Content-Security-Policy", CONTENT_SECURITY_POLICY);
  }
}
