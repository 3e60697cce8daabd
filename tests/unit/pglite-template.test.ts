/**
 * A fresh embedded database starts from the migrated template
 * (db/pglite-template.ts): every migration is applied, and an existing
 * database is reopened as it is, never replaced by the template.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase, PGLITE_START_PARAMS } from "../../db/client.ts";
import {
  databaseTemplatePath,
  ensureDatabaseTemplate,
  unpackArchive,
  unpackedTemplatePath,
} from "../../db/pglite-template.ts";
import { writeFileWhole } from "../../server/write-file-whole.ts";

const journal = JSON.parse(
  await Deno.readTextFile(new URL("../../migrations/meta/_journal.json", import.meta.url)),
) as { entries: unknown[] };

/** openDatabase({ dataDir }) is always PGlite, whose execute() answers { rows }. */
const pgliteRows = (result: unknown) => (result as { rows: { n: number }[] }).rows;

Deno.test({
  name: "pglite template: a fresh DATA_DIR is fully migrated; an existing one keeps its rows",
  sanitizeResources: false, // PGlite keeps its WASM module loaded
  fn: async () => {
    assert.equal(await ensureDatabaseTemplate(PGLITE_START_PARAMS), databaseTemplatePath());
    await Deno.stat(databaseTemplatePath());
    const dir = await Deno.makeTempDir({ prefix: "styletwin-template-" });
    try {
      const dataDir = join(dir, "db");
      const first = await openDatabase({ dataDir });
      const applied = await first.db.execute(
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      assert.equal(pgliteRows(applied)[0].n, journal.entries.length);
      await first.db.execute(
        sql`insert into users (email, password_hash, full_name) values ('kept@example.com', 'x', 'Kept')`,
      );
      await first.close();

      const again = await openDatabase({ dataDir });
      const kept = await again.db.execute(sql`select count(*)::int as n from users`);
      assert.equal(pgliteRows(kept)[0].n, 1);
      await again.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "pglite template: without it, a fresh DATA_DIR is created and fully migrated (a start without the template)",
  sanitizeResources: false, // PGlite keeps its WASM module loaded
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "styletwin-no-template-" });
    try {
      const database = await openDatabase({ dataDir: join(dir, "db"), fromTemplate: false });
      const applied = await database.db.execute(
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      assert.equal(pgliteRows(applied)[0].n, journal.entries.length);
      await database.db.execute(
        sql`insert into users (email, password_hash, full_name) values ('fresh@example.com', 'x', 'Fresh')`,
      );
      const users = await database.db.execute(sql`select count(*)::int as n from users`);
      assert.equal(pgliteRows(users)[0].n, 1);
      await database.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Every regular file under `root`: relative path -> its bytes' SHA-1. */
async function tree(root: string, dir = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of Deno.readDirSync(join(root, dir))) {
    const rel = join(dir, e.name);
    if (e.isDirectory) { for (const [k, v] of await tree(root, rel)) out.set(k, v); }
    else {
      const digest = await crypto.subtle.digest("SHA-1", await Deno.readFile(join(root, rel)));
      out.set(rel, [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
    }
  }
  return out;
}

Deno.test("pglite template: the unpacked copy a fresh DATA_DIR is copied from holds the archive's files, byte for byte", async () => {
  const archive = await ensureDatabaseTemplate(PGLITE_START_PARAMS);
  const dir = await Deno.makeTempDir({ prefix: "styletwin-template-archive-" });
  try {
    assert.equal(await unpackArchive(archive, join(dir, "db")), true);
    const fromArchive = await tree(join(dir, "db"));
    const copy = await tree(unpackedTemplatePath(archive));
    assert.ok(fromArchive.size > 100, `the archive holds a cluster (${fromArchive.size} files)`);
    assert.deepEqual([...copy.keys()].sort(), [...fromArchive.keys()].sort());
    for (const [path, digest] of fromArchive) assert.equal(copy.get(path), digest, path);
    // No staging directory is left beside it.
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["db"]);
    assert.equal(await unpackArchive(join(dir, "missing.tar.gz"), join(dir, "other")), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "pglite template: what a start killed while it unpacked left beside DATA_DIR is removed by the next",
  sanitizeResources: false, // PGlite keeps its WASM module loaded
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "styletwin-template-stale-" });
    try {
      const stale = join(dir, "db.unpacking-4242-deadbeef");
      await Deno.mkdir(join(stale, "base"), { recursive: true });
      await Deno.writeTextFile(join(stale, "base", "half"), "x".repeat(1000));
      await Deno.mkdir(join(dir, "other.unpacking-1-keep")); // not this database's
      const database = await openDatabase({ dataDir: join(dir, "db") });
      const applied = await database.db.execute(
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      assert.equal(pgliteRows(applied)[0].n, journal.entries.length);
      await database.close();
      assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
        "db",
        "other.unpacking-1-keep",
      ]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("pglite template: concurrent writers of the template each finish, and the file is one of them whole", async () => {
  // `deno test --parallel` runs test files as workers of one process: two of them once wrote the template
  // through one temporary file (<path>.<pid>.tmp) and the second rename failed with ENOENT.
  const dir = await Deno.makeTempDir({ prefix: "styletwin-template-write-" });
  try {
    const path = join(dir, "template.tar.gz");
    const versions = Array.from({ length: 12 }, (_, i) => new Uint8Array(200_000 + i * 10_000).fill(i + 1));
    await Promise.all(versions.map((v) => writeFileWhole(path, v)));
    const written = await Deno.readFile(path);
    const which = versions.findIndex((v) => v.length === written.length);
    assert.ok(which >= 0, `the file is one writer's whole (${written.length} bytes)`);
    assert.ok(written.every((b) => b === which + 1), "and only that writer's bytes");
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name),
      ["template.tar.gz"],
      "no temporary file left",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
