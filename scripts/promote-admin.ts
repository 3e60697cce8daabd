/**
 * `deno task admin <email>`: makes an existing account an admin (free
 * generation, credits shown as 999999). `deno task admin --revoke <email>`
 * makes it a user again. Uses the same DATABASE_URL / DATA_DIR as the server.
 * With the embedded database (no DATABASE_URL) it refuses while a server runs
 * on the same DATA_DIR: PGlite is one process's database.
 */
import { join } from "node:path";
import type { DbOrTx } from "../db/client.ts";
import { openDatabase } from "../db/client.ts";
import { runningServerPid } from "../db/server-pid.ts";
import { type Config, loadConfig } from "../server/config.ts";
import { findUserByEmail, setUserRole } from "../server/users/users.repository.ts";

export interface AdminTaskResult {
  ok: boolean;
  message: string;
}

/** Stores role "admin" (or "user" when revoking) on the live account with this email. */
export async function setAdminRole(
  db: DbOrTx,
  config: Pick<Config, "adminEmails">,
  rawEmail: string,
  admin: boolean,
): Promise<AdminTaskResult> {
  const email = rawEmail.trim().toLowerCase();
  const user = await findUserByEmail(db, email);
  if (!user) return { ok: false, message: `No account with email ${email}` };
  await setUserRole(db, user.id, admin ? "admin" : "user");
  if (admin) return { ok: true, message: `${email} is now an admin` };
  // The stored role is gone, but ADMIN_EMAILS is read at request time and would still win.
  const note = config.adminEmails.has(email)
    ? ` (still an admin while ADMIN_EMAILS lists it: remove it there too)`
    : "";
  return { ok: true, message: `${email} is no longer an admin${note}` };
}

/** A clear refusal when a server holds the embedded database, else null. */
export function embeddedDatabaseInUse(config: Pick<Config, "databaseUrl" | "dataDir">): string | null {
  if (config.databaseUrl) return null; // Postgres serves any number of clients
  const pid = runningServerPid(config.dataDir);
  if (pid === null) return null;
  return `A StyleTwin server (pid ${pid}) is using the embedded database in ${config.dataDir}. ` +
    `Stop the server first, then run this command again. ` +
    `(If no server is running, delete ${join(config.dataDir, "server.pid")}.)`;
}

async function main(args: string[]): Promise<number> {
  const revoke = args[0] === "--revoke";
  const email = (revoke ? args[1] : args[0])?.trim();
  if (!email || email.startsWith("--")) {
    console.error("usage: deno task admin [--revoke] <email>");
    return 2;
  }
  const config = loadConfig();
  const refusal = embeddedDatabaseInUse(config);
  if (refusal) {
    console.error(refusal);
    return 1;
  }
  const database = await openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, "db") });
  try {
    const result = await setAdminRole(database.db, config, email, !revoke);
    (result.ok ? console.log : console.error)(result.message);
    return result.ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
