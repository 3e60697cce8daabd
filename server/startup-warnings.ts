/**
 * Settings that are allowed but risky, said once at boot (main.ts logs each line as a warning): the
 * process runs, and the operator reads why it might not be what they meant.
 */
import type { DbOrTx } from "../db/client.ts";
import type { Config } from "./config.ts";
import { findUserByEmail } from "./users/users.repository.ts";

export async function riskySettings(db: DbOrTx, config: Config): Promise<string[]> {
  const said: string[] = [];
  for (const email of config.adminEmails) {
    // Listed accounts are admins from registration on (users.service.ts): whoever registers it first.
    if (!await findUserByEmail(db, email)) {
      said.push(
        `ADMIN_EMAILS lists ${email}, which has no account yet: whoever registers it first is an admin ` +
          `(free generation). Register it now, or promote an account with deno task admin.`,
      );
    }
  }
  if (config.jwtSecret && config.jwtSecret.length < 32) {
    said.push(
      "JWT_SECRET is shorter than 32 characters: a short HMAC key can be guessed and tokens forged " +
        "(production refuses it).",
    );
  }
  if (config.jobWorkers === 0 && !config.databaseUrl) {
    // The embedded database is this process's alone (DATA_DIR is locked): no other process can take a job.
    said.push(
      "JOB_WORKERS=0 with the embedded database: no process can run generations (the database is this " +
        "process's alone), so each one is charged and stays queued. Set DATABASE_URL and run workers " +
        "elsewhere, or give this process JOB_WORKERS.",
    );
  }
  return said;
}
