/**
 * `deno task admin <email>`: makes an existing account an admin (free
 * generation, credits shown as 999999). `deno task admin --revoke <email>`
 * makes it a user again. Uses the same DATABASE_URL / DATA_DIR as the server.
 * With the embedded database (no DATABASE_URL) it refuses while a server runs
 * on the same DATA_DIR: PGlite is one process's database.
 */
import type { DbOrTx } from "../db/client.ts";
import type { Config } from "../server/config.ts";
import { findUserByEmail, setUserRole } from "../server/users/users.repository.ts";
import { withServerDatabase } from "./admin-cli.ts";

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

async function main(args: string[]): Promise<number> {
  const revoke = args[0] === "--revoke";
  const email = (revoke ? args[1] : args[0])?.trim();
  if (!email || email.startsWith("--")) {
    console.error("usage: deno task admin [--revoke] <email>");
    return 2;
  }
  return await withServerDatabase(async (db, config) => {
    const result = await setAdminRole(db, config, email, !revoke);
    (result.ok ? console.log : console.error)(result.message);
    return result.ok ? 0 : 1;
  });
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
