import type { Context } from "hono";
import { getConnInfo } from "hono/deno";

/** The caller's address for rate limits; X-Forwarded-For only when TRUST_PROXY is set. */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("X-Forwarded-For")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // app.request() in tests has no connection
  }
}
