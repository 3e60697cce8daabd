/**
 * 405 for an API path that exists under another method (`DELETE /api/styling-options`), with the
 * `Allow` header listing the methods it does take (RFC 9110 §15.5.6); 404 stays for paths no route
 * matches. The methods are read from the app's own routes through Hono's router, so a path matches
 * here exactly when it would match there.
 */
import type { Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** `allowed(path)`: the methods some route of `app` under `prefix` takes for `path`, HEAD with GET. */
export function methodsOfRoutes(app: Hono, prefix: string): (path: string) => string[] {
  // Built on first use: every route is registered by the time a request comes in.
  let router: TrieRouter<true> | undefined;
  return (path) => {
    if (!router) {
      router = new TrieRouter<true>();
      for (const r of app.routes) {
        // Middleware and catch-alls ("ALL") answer any method: they do not say what a path takes.
        if (r.method === "ALL" || !r.path.startsWith(prefix) || r.path.endsWith("*")) continue;
        router.add(r.method, r.path, true);
      }
    }
    const found: string[] = METHODS.filter((m) => router!.match(m, path)[0].length > 0);
    if (found.includes("GET")) found.splice(1, 0, "HEAD");
    return found;
  };
}
