/**
 * The Postgres server a bench measures: BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL, else the local one (postgres@127.0.0.1:5432, trust auth)
 * when it answers within a second; undefined when there is none (the bench
 * then prints that Postgres was skipped).
 */
import postgres from "postgres";

export const LOCAL_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres";

export async function benchPostgresUrl(): Promise<string | undefined> {
  const set = Deno.env.get("BENCH_DATABASE_URL") ?? Deno.env.get("TEST_DATABASE_URL");
  if (set) return set;
  const sql = postgres(LOCAL_POSTGRES_URL, { max: 1, connect_timeout: 1, onnotice: () => {} });
  try {
    await sql`select 1`;
    return LOCAL_POSTGRES_URL;
  } catch {
    return undefined;
  } finally {
    await sql.end({ timeout: 1 });
  }
}
