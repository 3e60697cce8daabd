/**
 * One client build for the whole test run. Every browser and start-up test file runs a live server
 * that serves static/build/, and each file is its own process under `deno test --parallel`: built
 * per file, the client was built about 13 times per run (4 s of esbuild and Tailwind each on a
 * 2-core machine). The build is stamped with a hash of what it is built from; a file whose stamp
 * matches uses it, and one file builds while the others wait on a lock file. A change to any of
 * those sources changes the hash, so no test serves a stale client.
 */
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUILD = join(ROOT, "static", "build");
const STAMP = join(BUILD, ".sources-hash");
const LOCK = join(ROOT, "static", ".build.lock");
/** A lock older than this was left by a test process that died mid-build. */
const STALE_LOCK_MS = 120_000;

/**
 * What the build reads: the client, the server modules it imports (schemas, the catalogue), the
 * build script, the public files and the lockfile (for the npm packages bundled).
 */
const SOURCES = ["client", "server", "scripts/build-client.ts", "static/public", "deno.lock", "deno.json"];

async function* filesUnder(path: string): AsyncGenerator<string> {
  const info = await Deno.stat(path).catch(() => undefined);
  if (!info) return;
  if (info.isFile) {
    yield path;
    return;
  }
  const names = [];
  for await (const e of Deno.readDir(path)) names.push(e.name);
  for (const name of names.sort()) yield* filesUnder(join(path, name));
}

/** SHA-256 over every source file's path and bytes. */
export async function sourcesHash(): Promise<string> {
  const hash = createHash("sha256");
  for (const source of SOURCES) {
    for await (const file of filesUnder(join(ROOT, source))) {
      hash.update(relative(ROOT, file)).update("\0").update(await Deno.readFile(file)).update("\0");
    }
  }
  return hash.digest("hex");
}

const current = (want: string) => Deno.readTextFile(STAMP).then((s) => s === want, () => false);

async function acquireLock(): Promise<Deno.FsFile> {
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  while (true) {
    try {
      return await Deno.open(LOCK, { write: true, createNew: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      const age = await Deno.stat(LOCK).then((s) => Date.now() - (s.mtime?.getTime() ?? 0), () => 0);
      if (age > STALE_LOCK_MS) await Deno.remove(LOCK).catch(() => {});
      if (Date.now() > deadline) throw new Error(`the client build lock ${LOCK} was never released`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Builds static/build/ unless it was built from the sources as they are now. */
export async function buildClientOnce(): Promise<void> {
  const want = await sourcesHash();
  if (await current(want)) return;
  const lock = await acquireLock();
  try {
    // Another test file may have built it while this one waited.
    if (await current(want)) return;
    const { buildClient } = await import("../../scripts/build-client.ts");
    await buildClient({ minify: true });
    await Deno.writeTextFile(STAMP, want);
  } finally {
    lock.close();
    await Deno.remove(LOCK).catch(() => {});
  }
}
