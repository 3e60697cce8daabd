/**
 * A migrated, empty embedded database, built once per set of migrations and
 * PGlite version, so a fresh DATA_DIR starts by unpacking it (about a fifth
 * of the time of initdb plus every migration, measured under load) instead of
 * creating a cluster from scratch. The migrator still runs after it, so a
 * template older than the migrations folder is correct, only slower.
 *
 * Built by `deno task build` / `deno task start` (scripts/build-db-template.ts)
 * into node_modules/.cache/styletwin/: a build artifact of this checkout, like
 * node_modules itself, never committed.
 */
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileWhole } from "../server/write-file-whole.ts";

const MIGRATIONS = fileURLToPath(new URL("../migrations", import.meta.url));
const CACHE_DIR = fileURLToPath(new URL("../node_modules/.cache/styletwin", import.meta.url));

/** Names the template after everything that shapes its files: the migrations and PGlite's build. */
function templateKey(): string {
  const hash = createHash("sha256").update(import.meta.resolve("@electric-sql/pglite"));
  const files = [...Deno.readDirSync(MIGRATIONS)].filter((e) => e.isFile && e.name.endsWith(".sql"))
    .map((e) => e.name).sort();
  for (const name of files) hash.update(name).update(Deno.readFileSync(join(MIGRATIONS, name)));
  hash.update(Deno.readFileSync(join(MIGRATIONS, "meta", "_journal.json")));
  return hash.digest("hex").slice(0, 16);
}

export function databaseTemplatePath(): string {
  return join(CACHE_DIR, `pglite-${templateKey()}.tar.gz`);
}

/**
 * The same template unpacked, beside the archive: a fresh DATA_DIR is a copy of it. Copying its
 * ~1,100 files (39 MB) takes 50-90 ms on this 2-core machine; gunzipping and writing them from
 * the archive took 440-530 ms, a quarter of a fresh start, while the model workers load on the
 * other core.
 */
export function unpackedTemplatePath(archive: string): string {
  return archive.replace(/\.tar\.gz$/, "");
}

/**
 * Unpacks the template for the current migrations into `dataDir` (absent or
 * empty): a copy of its unpacked copy, or, when only the archive is there,
 * from the archive; false when it has not been built. The archive is streamed to disk
 * here rather than handed to PGlite as `loadDataDir`: PGlite holds the whole
 * archive, gzipped and unpacked, in memory while it writes the files, and the
 * process kept that ~130 MB (a fresh server idled at 498 MB against 365 MB
 * for the same database reopened). Files land in a sibling directory that is
 * renamed into place last, so a start interrupted halfway leaves no partial
 * cluster behind.
 */
export async function unpackDatabaseTemplate(dataDir: string): Promise<boolean> {
  await removeStaging(dataDir);
  const archive = databaseTemplatePath();
  const unpacked = unpackedTemplatePath(archive);
  if (existsSync(join(unpacked, "PG_VERSION"))) {
    await placeWhole(dataDir, (staging) => copyTree(unpacked, staging));
    return true;
  }
  return await unpackArchive(archive, dataDir);
}

/** `archive` unpacked into `dir` (absent or empty); false when there is no such archive. Exported for its test. */
export async function unpackArchive(archive: string, dir: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(archive);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
  await placeWhole(
    dir,
    (staging) => untar(file.readable.pipeThrough(new DecompressionStream("gzip")), staging),
  );
  return true;
}

/**
 * Fills a sibling of `dir` and renames it into place last, so an interruption never leaves half a
 * cluster behind. An empty `dir` is replaced by the rename; anything else in it makes the rename fail.
 */
async function placeWhole(dir: string, fill: (staging: string) => void | Promise<void>): Promise<void> {
  const staging = `${dir}.unpacking-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.mkdir(staging, { mode: 0o700 });
    await fill(staging);
    await Deno.rename(staging, dir);
  } catch (e) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw e;
  }
}

/**
 * Removes what a start killed while it filled `dataDir` left beside it (each staging directory is named
 * after its process, so a later start would never reuse it). Only for a DATA_DIR's database, which one
 * process opens at a time (decision 010's lock); the shared template's staging is not swept.
 */
async function removeStaging(dataDir: string): Promise<void> {
  const parent = join(dataDir, ".."), prefix = `${basename(dataDir)}.unpacking-`;
  for (const entry of await Array.fromAsync(Deno.readDir(parent)).catch(() => [])) {
    if (entry.name.startsWith(prefix)) await Deno.remove(join(parent, entry.name), { recursive: true });
  }
}

/** Copies the directories and regular files under `from` into `to` (an existing directory). */
function copyTree(from: string, to: string): void {
  for (const entry of Deno.readDirSync(from)) {
    const source = join(from, entry.name), target = join(to, entry.name);
    if (entry.isDirectory) {
      Deno.mkdirSync(target, { mode: 0o700 });
      copyTree(source, target);
    } else if (entry.isFile) Deno.copyFileSync(source, target);
  }
}

/** Writes a ustar stream's directories and regular files (what PGlite's dump holds) under `root`. */
async function untar(stream: ReadableStream<Uint8Array>, root: string): Promise<void> {
  const reader = stream.getReader();
  let buf: Uint8Array = new Uint8Array(0);
  let done = false;
  /** At least n bytes buffered, unless the stream ended first. */
  const fill = async (n: number) => {
    while (buf.length < n && !done) {
      const r = await reader.read();
      if (r.done) done = true;
      else buf = buf.length ? concat(buf, r.value) : r.value;
    }
  };
  const text = (b: Uint8Array) =>
    new TextDecoder().decode(b.subarray(0, b.indexOf(0) < 0 ? b.length : b.indexOf(0)));
  const octal = (b: Uint8Array) => parseInt(text(b).trim() || "0", 8);
  for (;;) {
    await fill(512);
    if (buf.length < 512) throw new Error("database template: truncated archive");
    const header = buf.subarray(0, 512);
    buf = buf.subarray(512);
    if (header.every((b) => b === 0)) return;
    const prefix = text(header.subarray(345, 500));
    const name = (prefix ? `${prefix}/` : "") + text(header.subarray(0, 100));
    const rel = name.split("/").filter((p) => p && p !== ".");
    if (rel.includes("..")) throw new Error(`database template: unsafe path ${name}`);
    const path = join(root, ...rel);
    const mode = octal(header.subarray(100, 108)) & 0o777;
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156] || 48);
    if (type === "5") {
      Deno.mkdirSync(path, { recursive: true, mode: mode || 0o700 });
      continue;
    }
    if (type !== "0") throw new Error(`database template: unexpected entry type ${type} (${name})`);
    Deno.mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    // Synchronous writes: a thousand small files, nothing else to serve while the database opens.
    const out = Deno.openSync(path, { write: true, create: true, truncate: true, mode: mode || 0o600 });
    try {
      let left = size;
      while (left > 0) {
        await fill(1);
        if (!buf.length) throw new Error("database template: truncated archive");
        const chunk = buf.subarray(0, Math.min(left, buf.length));
        for (let w = 0; w < chunk.length;) w += out.writeSync(chunk.subarray(w));
        buf = buf.subarray(chunk.length);
        left -= chunk.length;
      }
    } finally {
      out.close();
    }
    const pad = (512 - (size % 512)) % 512;
    await fill(pad);
    buf = buf.subarray(pad);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Builds the template (the archive, then its unpacked copy) unless it exists; returns the archive's path. */
export async function ensureDatabaseTemplate(startParams?: string[]): Promise<string> {
  const path = databaseTemplatePath();
  if (!existsSync(path)) {
    const pg = new PGlite({ startParams });
    try {
      await migrate(drizzle(pg), { migrationsFolder: MIGRATIONS });
      const dump = new Uint8Array(await (await pg.dumpDataDir("gzip")).arrayBuffer());
      await Deno.mkdir(CACHE_DIR, { recursive: true });
      await writeFileWhole(path, dump);
    } finally {
      await pg.close();
    }
  }
  const unpacked = unpackedTemplatePath(path);
  // Processes building the copy at once each finish: a rename onto a whole copy fails, and the
  // loser's staging directory is removed. A reader checks for PG_VERSION, which only a whole copy has.
  if (!existsSync(join(unpacked, "PG_VERSION"))) {
    await unpackArchive(path, unpacked).catch((e) => {
      if (!existsSync(join(unpacked, "PG_VERSION"))) throw e;
    });
  }
  return path;
}
