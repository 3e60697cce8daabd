/**
 * The first middleware: gives every request an id (`X-Request-Id` on every
 * response; taken from the request only behind a trusted proxy), and when the
 * response is ready writes exactly one JSON access line and records the
 * request's metrics. The line holds the method, the route PATTERN (never the
 * path with its ids and keys, never the query string), status, duration,
 * request id and the signed-in user's id when known; never headers or bodies,
 * so no token or password can reach it.
 */
import type { Context, Next } from "hono";
import { routePath } from "hono/route";
import { log } from "../log.ts";
import { recordRequest } from "../metrics/metrics.ts";

declare module "hono" {
  interface ContextVariableMap {
    requestId: string;
  }
}

// A proxy's id is echoed into logs and headers: accept only a short, plain token.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Sets a header on the final response. Headers of some responses are immutable (a
 * `Response.redirect`, a proxied `fetch`): those are copied into a new Response first.
 */
export function setResponseHeader(c: Context, name: string, value: string, append = false): void {
  try {
    if (append) c.res.headers.append(name, value);
    else c.res.headers.set(name, value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    if (append) c.res.headers.append(name, value);
    else c.res.headers.set(name, value);
  }
}

export function requestIdOf(c: Context): string {
  return c.get("requestId") ?? "";
}

/** The signed-in user's id, when the auth middleware ran and found one. */
function userIdOf(c: Context): string | undefined {
  const auth = (c.var as Record<string, unknown>).auth as { user?: { id?: unknown } } | null | undefined;
  return typeof auth?.user?.id === "string" ? auth.user.id : undefined;
}

export function requestContext(opts: { trustProxy: boolean }) {
  return async (c: Context, next: Next) => {
    const started = performance.now();
    const offered = opts.trustProxy ? c.req.header("X-Request-Id") : undefined;
    const id = offered && REQUEST_ID.test(offered) ? offered : crypto.randomUUID();
    c.set("requestId", id);
    try {
      await next();
    } finally {
      // Errors were turned into responses by onError inside next(); c.res is final here.
      setResponseHeader(c, "X-Request-Id", id);
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const route = routePath(c) || "*";
      const status = c.res.status;
      recordRequest(c.req.method, route, status, ms / 1000);
      log.info("request", {
        method: c.req.method,
        route,
        status,
        ms,
        request_id: id,
        ...(userIdOf(c) ? { user_id: userIdOf(c) } : {}),
      });
    }
  };
}
