import type { Context } from "hono";
import { getConnInfo } from "hono/deno";

// Longer than any IPv6 text form; bounds rate-limit keys if the header is junk.
const MAX_ADDRESS_LENGTH = 64;

/**
 * The caller's address for rate limits. With TRUST_PROXY it is the RIGHTMOST
 * X-Forwarded-For entry: the one our proxy appended. Entries to its left come
 * from the client, who could rotate them to dodge per-IP limits.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("X-Forwarded-For")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded.slice(0, MAX_ADDRESS_LENGTH);
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // app.request() in tests has no connection
  }
}
