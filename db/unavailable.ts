/**
 * Whether an error means the database could not be reached or refused to serve (down, restarting, out of
 * connections), as opposed to a query's own fault. Such a request is answered 503 (try again), not 500.
 * postgres.js names connection failures by `code` (the socket's errno, or its own CONNECT_TIMEOUT and
 * CONNECTION_*); the server's own refusals are SQLSTATE classes 08 (connection exception) and 57P
 * (operator intervention: shutting down, starting up), and 53300 (too many connections). Drizzle wraps a
 * failed query's error as its `cause`.
 */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "53300",
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    // 08P01 (protocol violation) is a driver's or client's fault, not an outage.
    if (
      typeof code === "string" && code !== "08P01" && (CONNECTION_CODES.has(code) || /^(08|57P)/.test(code))
    ) {
      return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
