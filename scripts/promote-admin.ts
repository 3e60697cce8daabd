/**
 * `deno task admin <email>`: makes an existing account an admin (free
 * generation, credits shown as 999999). Uses the same DATABASE_URL / DATA_DIR
 * as the server; stop a PGlite server first (PGlite allows one process).
 */
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { loadConfig } from "../server/config.ts";
import { findUserByEmail, setUserRole } from "../server/users/users.repository.ts";

const email = Deno.args[0]?.trim().toLowerCase();
if (!email) {
  console.error("usage: deno task admin <email>");
  Deno.exit(2);
}
const config = loadConfig();
const database = await openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, "db") });
try {
  const user = await findUserByEmail(database.db, email);
  if (!user) {
    console.error(`No account with email ${email}`);
    Deno.exitCode = 1;
  } else {
    await setUserRole(database.db, user.id, "admin");
    console.log(`${email} is now an admin`);
  }
} finally {
  await database.close();
}
