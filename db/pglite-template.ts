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
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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

/** The template for the current migrations, or undefined when it has not been built. */
export async function readDatabaseTemplate(): Promise<Blob | undefined> {
  try {
    return new Blob([await Deno.readFile(databaseTemplatePath())]);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/** Builds the template unless it exists; returns its path. */
export async function ensureDatabaseTemplate(startParams?: string[]): Promise<string> {
  const path = databaseTemplatePath();
  try {
    await Deno.stat(path);
    return path;
  } catch { /* build it */ }
  const pg = new PGlite({ startParams });
  try {
    await migrate(drizzle(pg), { migrationsFolder: MIGRATIONS });
    const dump = new Uint8Array(await (await pg.dumpDataDir("gzip")).arrayBuffer());
    await Deno.mkdir(CACHE_DIR, { recursive: true });
    // Written whole, then renamed: a server starting meanwhile never reads half a file.
    const tmp = `${path}.${Deno.pid}.tmp`;
    await Deno.writeFile(tmp, dump);
    await Deno.rename(tmp, path);
  } finally {
    await pg.close();
  }
  return path;
}
