/**
 * The database backends API tests run on: PGlite always, Postgres when
 * TEST_DATABASE_URL is set (.ci/run sets it and fails if those tests did not
 * run). Each opened backend is a fresh database that is removed on close.
 */
import postgres from "postgres";
import { type Database, openDatabase } from "../../db/client.ts";
import { templateDataDir } from "./db-template.ts";

export interface Backend {
  name: "pglite" | "postgres";
  /** Set when the backend cannot run here; tests register as ignored so the gap is visible. */
  skip: boolean;
  open(): Promise<Database>;
}

const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL");

export function backends(): Backend[] {
  return [
    // An in-memory PGlite loaded from the migrated template (the migrator then finds nothing to do).
    { name: "pglite", skip: false, open: async () => openDatabase({ loadDataDir: await templateDataDir() }) },
    { name: "postgres", skip: !TEST_DATABASE_URL, open: openFreshPostgres },
  ];
}

async function openFreshPostgres(): Promise<Database> {
  const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  const name = `styletwin_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() });
  return {
    ...database,
    close: async () => {
      await database.close();
      const dropper = postgres(TEST_DATABASE_URL!, {
        max: 1,
        onnotice: () => {},
      });
      try {
        await dropper.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
