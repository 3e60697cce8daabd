/**
 * Builds the migrated empty embedded database a fresh DATA_DIR starts from
 * (db/pglite-template.ts); nothing to do when it is current. Part of
 * `deno task build`, `deno task start` and `deno task test` (built once before the test files start, so
 * their workers do not each build it).
 */
import { PGLITE_START_PARAMS } from "../db/client.ts";
import { ensureDatabaseTemplate } from "../db/pglite-template.ts";

const started = performance.now();
const path = await ensureDatabaseTemplate(PGLITE_START_PARAMS);
console.log(`database template: ${path} (${Math.round(performance.now() - started)} ms)`);
