/**
 * Serves the built client from static/build: hashed assets with a year-long
 * immutable cache, other files briefly cached, and index.html (never cached)
 * for every client route so reloads and deep links work.
 */
import type { Context, Next } from "hono";
import { normalize, resolve, sep } from "node:path";
import { AppError } from "./errors.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
  ".map": "application/json",
};

const FALLBACK_PAGE =
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>StyleTwin</title></head>
<body><h1>StyleTwin</h1><p>The web client is not built. Run <code>deno task build</code> (or <code>deno task start</code>, which builds it).</p></body></html>`;

async function readFileOrNull(path: string): Promise<Uint8Array | null> {
  try {
    const info = await Deno.stat(path);
    return info.isFile ? await Deno.readFile(path) : null;
  } catch {
    return null;
  }
}

/** A malformed percent-escape (`/%E0%A4%A`) is the caller's mistake: 400, not a 500. */
function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    throw new AppError(400, "Malformed URL");
  }
}

export function staticClient(rootDir: string) {
  const root = resolve(rootDir);
  return async (c: Context, next: Next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    const path = decodePath(new URL(c.req.url).pathname);
    if (path.startsWith("/api/") || path === "/api") return next();
    // Resolve inside root only; "..", encoded slashes and NULs never escape it.
    const candidate = resolve(root, "." + normalize("/" + path));
    const inside = candidate.startsWith(root + sep) && !path.includes("\0");
    const ext = candidate.slice(candidate.lastIndexOf("."));
    if (inside && path !== "/" && TYPES[ext]) {
      const bytes = await readFileOrNull(candidate);
      if (bytes) {
        const immutable = path.startsWith("/assets/");
        return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
          "Content-Type": TYPES[ext],
          "Cache-Control": immutable ? "public, max-age=31536000, immutable" : "public, max-age=3600",
          "X-Content-Type-Options": "nosniff",
        });
      }
      // A missing asset is a 404, not the app shell (a stale tab asking for an old chunk).
      if (path.startsWith("/assets/")) return c.text("Not found", 404);
    }
    const index = await readFileOrNull(resolve(root, "index.html"));
    return c.body(
      index ? (index as Uint8Array<ArrayBuffer>) : FALLBACK_PAGE,
      200,
      {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-cache",
      },
    );
  };
}
