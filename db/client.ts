/**
 * Opens the database: embedded PGlite under DATA_DIR/db when no DATABASE_URL
 * is set, postgres.js otherwise. Both run the same migrations folder and the
 * same drizzle queries, so services never know which one they talk to.
 */
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { unpackDatabaseTemplate } from "./pglite-template.ts";
import * as schema from "./schema.ts";
import { bumpWriteEpoch, writeEpochLogger } from "./write-epoch.ts";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** The handle passed into a `db.transaction` callback. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Repositories accept either the database or an open transaction. */
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

const MIGRATIONS = new URL("../migrations", import.meta.url).pathname;

export interface OpenOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string;
  /** PGlite data directory; undefined means in-memory (tests). */
  dataDir?: string;
  /** A prepared PGlite data dir tarball to start from (tests clone one migrated database). */
  loadDataDir?: Blob;
  /**
   * A fresh `dataDir` starts from the migrated template when it was built (the default); false creates the
   * cluster and runs every migration, as a server started without the template does (the Docker image).
   */
  fromTemplate?: boolean;
}

/**
 * PGlite's own start parameters (0.5's `defaultStartParams`; an explicit list replaces them, so
 * they are repeated here) plus smaller memory settings. Postgres' defaults (128 MB shared
 * buffers) size a server for many connections; PGlite is one connection in our process, and
 * its pages are cached by the OS anyway. Measured on a reopened database: 826 MB RSS with the
 * defaults, 568 MB with these, and the reopen itself twice as fast.
 */
export const PGLITE_START_PARAMS = [
  "--single",
  "-F",
  "-O",
  "-j",
  "-c",
  "search_path=public",
  "-c",
  "exit_on_error=false",
  "-c",
  "log_checkpoints=false",
  "-c",
  "max_worker_processes=0",
  "-c",
  "max_parallel_workers=0",
  "-c",
  "max_parallel_workers_per_gather=0",
  "-c",
  "io_method=sync",
  "-c",
  "max_parallel_maintenance_workers=0",
  // Ours:
  "-c",
  "shared_buffers=16MB",
  "-c",
  "work_mem=4MB",
  "-c",
  "maintenance_work_mem=16MB",
  "-c",
  "temp_buffers=2MB",
  "-c",
  "wal_buffers=1MB",
];

/** Any constant works; it only has to be the same in every StyleTwin process. */
const MIGRATION_LOCK_KEY = 0x5751_7e11;

/**
 * Several processes sharing one Postgres may start together; drizzle's migrator is not
 * safe to run concurrently (both create its schema and table, both apply the same file).
 * A session-level advisory lock, held on one reserved connection, runs them one at a time;
 * the later one then finds nothing to apply.
 */
async function withMigrationLock(client: postgres.Sql, migrate: () => Promise<void>) {
  const conn = await client.reserve();
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await migrate();
    } finally {
      await conn`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    conn.release();
  }
}

/**
 * Attaches the write counter (db/write-epoch.ts) to a new handle: the logger moves it when a
 * write is sent, and again when a transaction ends (its writes are visible only then).
 */
function watchWrites(db: Db, logger: ReturnType<typeof writeEpochLogger>): Db {
  logger.attach(db);
  const transaction = db.transaction.bind(db);
  db.transaction = (async (...args: Parameters<Db["transaction"]>) => {
    try {
      return await transaction(...args);
    } finally {
      bumpWriteEpoch(db);
    }
  }) as Db["transaction"];
  return db;
}

/**
 * PGlite's transactions, one at a time, each started on a new event-loop turn. PGlite runs them
 * one after another anyway (one connection), but queued on its own lock they follow each other
 * through promise callbacks alone: a burst of 10 generate requests then held the event loop for
 * their whole queue (~80 ms), and a request arriving meanwhile (GET /api/health) was neither read
 * nor answered until all of them had committed. Taking turns here, with a timer between turns,
 * lets that request in between two transactions, and its query waits for one transaction at most.
 */
function takeTurns(db: Db): Db {
  const transaction = db.transaction.bind(db);
  let last: Promise<unknown> = Promise.resolve();
  let open = 0; // transactions running or waiting for their turn
  db.transaction = ((...args: Parameters<Db["transaction"]>) => {
    // Alone, a transaction starts at once; behind others, a timer after the one before it ends
    // (only a timer lets Deno read sockets: setImmediate and MessageChannel did not).
    const behind = open++ > 0;
    const turn = last.then(() => behind ? new Promise((next) => setTimeout(next, 0)) : undefined)
      .then(() => transaction(...args))
      .finally(() => open--);
    last = turn.catch(() => {});
    return turn;
  }) as Db["transaction"];
  return db;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const logger = writeEpochLogger();
  if (opts.url) {
    // Quiet NOTICEs ("relation already exists, skipping") from the migrator.
    // connect_timeout: a database that does not answer fails a request in 10 s (503), not 30.
    const client = postgres(opts.url, { max: 10, connect_timeout: 10, onnotice: () => {} });
    const db = watchWrites(drizzlePostgres(client, { schema, logger }) as unknown as Db, logger);
    await withMigrationLock(client, () => migratePostgres(db as never, { migrationsFolder: MIGRATIONS }));
    return { db, kind: "postgres", close: () => client.end({ timeout: 5 }) };
  }
  if (opts.dataDir) {
    Deno.mkdirSync(opts.dataDir, { recursive: true });
    // A fresh directory starts from the migrated template when it was built (a fifth of the time).
    if (!opts.loadDataDir && opts.fromTemplate !== false && !existsSync(join(opts.dataDir, "PG_VERSION"))) {
      await unpackDatabaseTemplate(opts.dataDir);
    }
  }
  const client = new PGlite({
    dataDir: opts.dataDir,
    loadDataDir: opts.loadDataDir,
    startParams: PGLITE_START_PARAMS,
  });
  await client.waitReady;
  const db = takeTurns(watchWrites(drizzlePglite(client, { schema, logger }) as unknown as Db, logger));
  await migratePglite(db as never, { migrationsFolder: MIGRATIONS });
  return { db, kind: "pglite", close: () => client.close() };
}
