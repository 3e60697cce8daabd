/**
 * What every operator command (`deno task admin`, `promo`, `sandbox`) does around its work: read
 * the server's configuration, refuse while a server holds the embedded database (PGlite is one
 * process's database), open the same database as the server, turn a refused request into its
 * message and exit code 1, and close the database.
 */
import { join } from "node:path";
import { type Db, openDatabase } from "../db/client.ts";
import { runningServerPid } from "../db/server-pid.ts";
import { type Config, loadConfig } from "../server/config.ts";
import { AppError } from "../server/http/errors.ts";

/** A clear refusal when a server holds the embedded database, else null. */
export function embeddedDatabaseInUse(config: Pick<Config, "databaseUrl" | "dataDir">): string | null {
  if (config.databaseUrl) return null; // Postgres serves any number of clients
  const pid = runningServerPid(config.dataDir);
  if (pid === null) return null;
  return `A StyleTwin server (pid ${pid}) is using the embedded database in ${config.dataDir}. ` +
    `Stop the server first, then run this command again. ` +
    `(If no server is running, delete ${join(config.dataDir, "server.pid")}.)`;
}

/** Runs `work` on the server's database and returns the command's exit code. */
export async function withServerDatabase(
  work: (db: Db, config: Config) => Promise<number>,
): Promise<number> {
  const config = loadConfig(Deno.env.toObject(), { operator: true });
  const refusal = embeddedDatabaseInUse(config);
  if (refusal) {
    console.error(refusal);
    return 1;
  }
  const database = await openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, "db") });
  try {
    return await work(database.db, config);
  } catch (error) {
    if (error instanceof AppError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await database.close();
  }
}
