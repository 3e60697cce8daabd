/**
 * The migrated empty embedded database (db/pglite-template.ts) for tests: built once per
 * checkout, as `deno task start` builds it, and shared by every test process. A live server's
 * fresh DATA_DIR starts from it, and an in-memory PGlite for an API test is loaded from it,
 * instead of running initdb and every migration each time: 5.5 s of CPU per database on this
 * 2-core machine, against under 1 s to load the template.
 */
import { PGLITE_START_PARAMS } from "../../db/client.ts";
import { ensureDatabaseTemplate } from "../../db/pglite-template.ts";

let built: Promise<string> | undefined;

/** The template's path, built first when it is missing (test workers and processes may build it at once: each writes its own temporary file, the last rename wins). */
export function ensureTemplateBuilt(): Promise<string> {
  built ??= ensureDatabaseTemplate(PGLITE_START_PARAMS);
  return built;
}

let unpacked: Promise<Blob> | undefined;

/** The template as PGlite's `loadDataDir` takes it, ungzipped once per process (each load would again). */
export function templateDataDir(): Promise<Blob> {
  unpacked ??= (async () => {
    const file = await Deno.open(await ensureTemplateBuilt());
    return await new Response(file.readable.pipeThrough(new DecompressionStream("gzip"))).blob();
  })();
  return unpacked;
}
