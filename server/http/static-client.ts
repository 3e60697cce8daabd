/**
 * Serves the built client (static/build) from memory: hashed assets with a
 * year-long immutable cache, other files briefly cached, index.html (the
 * prerendered landing page) for `/` and shell.html (the same page with an
 * empty root) for every other client route, both revalidated on every visit,
 * so reloads and deep links work and no route first shows the landing page. Every file carries an ETag (a matching If-None-Match answers 304)
 * and goes out as the build's brotli or gzip copy when the browser accepts one.
 * The files are read once; a rebuild (a new index.html) is picked up within a
 * second, or at once when a new hashed asset is asked for.
 */
import type { Context, Next } from "hono";
import { join, normalize, relative, resolve, sep } from "node:path";
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

const IMMUTABLE = "public, max-age=31536000, immutable";
const SHORT = "public, max-age=3600";
/** The pages name the current hashed assets: always revalidate them (a 304 costs one round trip). */
const REVALIDATE = "no-cache";
const PAGES = new Set(["/index.html", "/shell.html"]);
/** How often the build directory is checked for a rebuild. */
const RELOAD_CHECK_MS = 1000;

type Encoding = "br" | "gzip";

interface Representation {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

interface StaticFile {
  type: string;
  cacheControl: string;
  identity: Representation;
  br?: Representation;
  gzip?: Representation;
}

async function etagOf(bytes: Uint8Array<ArrayBuffer>, suffix = ""): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
  return `"${hex}${suffix}"`;
}

async function listFiles(dir: string, out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) await listFiles(path, out);
    else if (entry.isFile) out.push(path);
  }
  return out;
}

/** Reads every servable file of `root` with its precompressed copies; null when there is no build. */
async function loadBuild(root: string): Promise<Map<string, StaticFile> | null> {
  const files = new Map<string, StaticFile>();
  let paths: string[];
  try {
    paths = await listFiles(root);
  } catch {
    return null;
  }
  const onDisk = new Set(paths);
  for (const path of paths) {
    const ext = path.slice(path.lastIndexOf("."));
    if (!TYPES[ext]) continue; // .br / .gz copies are read with their file
    const urlPath = "/" + relative(root, path).split(sep).join("/");
    const body = await Deno.readFile(path);
    const file: StaticFile = {
      type: TYPES[ext],
      cacheControl: PAGES.has(urlPath) ? REVALIDATE : urlPath.startsWith("/assets/") ? IMMUTABLE : SHORT,
      identity: { body, etag: await etagOf(body) },
    };
    for (const [enc, suffix] of [["br", ".br"], ["gzip", ".gz"]] as const) {
      if (!onDisk.has(path + suffix)) continue;
      const copy = await Deno.readFile(path + suffix);
      // A copy that is not smaller is not worth its Content-Encoding.
      if (copy.byteLength < body.byteLength) file[enc] = { body: copy, etag: await etagOf(body, `-${enc}`) };
    }
    files.set(urlPath, file);
  }
  return files.has("/index.html") ? files : null;
}

/** The encoding to send: brotli, else gzip, when the request accepts it (q > 0). */
function pickEncoding(acceptEncoding: string | undefined, file: StaticFile): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q && Number(q.slice(2)) === 0) continue;
    accepted.add(name.trim());
  }
  if (file.br && (accepted.has("br") || accepted.has("*"))) return "br";
  if (file.gzip && (accepted.has("gzip") || accepted.has("*"))) return "gzip";
  return null;
}

/** True when If-None-Match names `etag` (weak comparison, as RFC 9110 asks for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === bare);
}

/** A malformed percent-escape (`/%E0%A4%A`) is the caller's mistake: 400, not a 500. */
function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    throw new AppError(400, "Malformed URL");
  }
}

/** The build in memory, reloaded when index.html changes on disk. */
class BuildCache {
  private files: Map<string, StaticFile> | null = null;
  private stamp: string | null = null;
  private checkedAt = -Infinity;
  private loading: Promise<void> | null = null;

  constructor(private readonly root: string) {}

  async get(forceCheck = false): Promise<Map<string, StaticFile> | null> {
    const now = performance.now();
    if (forceCheck || now - this.checkedAt >= RELOAD_CHECK_MS) {
      this.checkedAt = now;
      this.loading ??= this.reloadIfChanged().finally(() => this.loading = null);
      await this.loading;
    }
    return this.files;
  }

  private async reloadIfChanged(): Promise<void> {
    let stamp: string | null = null;
    try {
      const info = await Deno.stat(join(this.root, "index.html"));
      stamp = `${info.mtime?.getTime()}:${info.ino}:${info.size}`;
    } catch { /* not built (yet) */ }
    if (stamp === this.stamp) return;
    // A rebuild swaps the directory while we read: keep the old files on a failed read.
    const files = stamp ? await loadBuild(this.root).catch(() => null) : null;
    if (files || !stamp) {
      this.files = files;
      this.stamp = stamp;
    }
  }
}

export function staticClient(rootDir: string) {
  const root = resolve(rootDir);
  const cache = new BuildCache(root);
  return async (c: Context, next: Next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    const path = decodePath(new URL(c.req.url).pathname);
    if (path.startsWith("/api/") || path === "/api") return next();
    const key = normalize("/" + path).split(sep).join("/");
    let files = await cache.get();
    let file = files?.get(key);
    if (!file && key.startsWith("/assets/")) {
      // A rebuild's new asset may be asked for before the periodic check notices the rebuild.
      files = await cache.get(true);
      file = files?.get(key);
      // A missing asset is a 404, not the app shell (a stale tab asking for an old chunk).
      if (!file) return c.text("Not found", 404);
    }
    if (key === "/") file = files?.get("/index.html");
    else if (!file || path.includes("\0")) file = files?.get("/shell.html") ?? files?.get("/index.html");
    if (!file) {
      return c.body(FALLBACK_PAGE, 200, {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-cache",
      });
    }

    const encoding = pickEncoding(c.req.header("Accept-Encoding"), file);
    const rep = encoding ? file[encoding]! : file.identity;
    const headers: Record<string, string> = {
      "Content-Type": file.type,
      "Cache-Control": file.cacheControl,
      "ETag": rep.etag,
      "X-Content-Type-Options": "nosniff",
    };
    if (file.br || file.gzip) headers["Vary"] = "Accept-Encoding";
    if (etagMatches(c.req.header("If-None-Match"), rep.etag)) return c.body(null, 304, headers);
    if (encoding) headers["Content-Encoding"] = encoding;
    // Said outright: Hono answers a HEAD with the GET's headers and no body, which left the length at 0.
    headers["Content-Length"] = String(rep.body.byteLength);
    return c.body(rep.body, 200, headers);
  };
}
