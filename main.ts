/**
 * StyleTwin: one process serving the API under /api, the generation job
 * runner and the built client. Configuration comes from the environment
 * (server/config.ts; every variable is listed in README.md).
 */
import { join } from "node:path";
import { openDatabase } from "./db/client.ts";
import { DataDirInUseError, type DataDirLock, lockDataDir } from "./db/server-pid.ts";
import { createApp, photoForgetter } from "./server/app.ts";
import { loadJwtSecret } from "./server/auth/jwt-secret.ts";
import { ConfigError, loadConfig } from "./server/config.ts";
import { log, setLogLevel } from "./server/log.ts";
import { createStorage } from "./server/storage/create-storage.ts";
import { createImageModel, describeImageModel } from "./server/imaging/create-model.ts";
import { JobRunner, requeueOrphanedJobs } from "./server/generation/job-runner.ts";
import { startOrphanBlobSweeper } from "./server/generation/orphan-blob-sweep.ts";
import { monitorModel } from "./server/health/model-monitor.ts";
import { createPreviewer } from "./server/preview/previewer.ts";
import { startPhotoSweeper } from "./server/photos/photo-sweeps.ts";
import { startSessionSweeper } from "./server/auth/session-sweeper.ts";
import { tuneMalloc } from "./server/runtime-memory.ts";
import { riskySettings } from "./server/startup-warnings.ts";

// Before the database and the model workers allocate anything large.
tuneMalloc();

let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    Deno.exit(1);
  }
  throw e;
}
setLogLevel(config.logLevel);

/**
 * A boot step that fails stops the server with one line naming the setting to look at (a refused or unknown
 * database host, a DATA_DIR it may not write, a port in use), not an uncaught stack trace.
 */
async function bootStep<T>(what: string, setting: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    console.error(
      e instanceof DataDirInUseError ? why : `Could not start: ${what} failed (check ${setting}): ${why}`,
    );
    Deno.exit(1);
  }
}
const dataDirSetting = `DATA_DIR=${config.dataDir}`;

// Embedded PGlite belongs to this process alone: lock DATA_DIR before opening it. The OS
// holds the lock until this process ends in any way; a second server (or `deno task admin`)
// on the same DATA_DIR refuses to start meanwhile.
let dataDirLock: DataDirLock | undefined;
if (!config.databaseUrl) {
  dataDirLock = await bootStep(
    "locking the data directory",
    dataDirSetting,
    () => lockDataDir(config.dataDir),
  );
}
// JOB_WORKERS=0 runs the API only: no model workers, no runner (another process runs jobs).
// The workers load their models (seconds) while the database opens: start them first.
const creating = config.jobWorkers > 0 ? createImageModel(config) : undefined;
const database = await bootStep(
  "opening the database",
  config.databaseUrl ? "DATABASE_URL" : dataDirSetting,
  () => openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, "db") }),
);
const jwtSecret = await bootStep(
  "reading the JWT secret",
  `JWT_SECRET or ${dataDirSetting}`,
  () => loadJwtSecret(config),
);
for (const line of await riskySettings(database.db, config)) log.warn(line);
const storage = await bootStep(
  "opening the image storage",
  config.storage === "s3" ? "the S3_* settings" : dataDirSetting,
  () => createStorage(config),
);
// The monitor gives the model the health() that /api/health and the runner read.
const created = await creating;
const model = created ? monitorModel(created) : undefined;
// Live previews always render locally: with the local model active they share its workers.
const previewer = created ? createPreviewer(created) : undefined;
const runner = model
  ? new JobRunner({
    db: database.db,
    storage,
    model,
    workers: config.jobWorkers,
    timeoutMs: config.jobTimeoutMs,
    leaseMs: config.jobLeaseMs,
  })
  : undefined;
// The lock proves no other process runs this embedded database's jobs: take back a crash's orphans now.
if (database.kind === "pglite") await requeueOrphanedJobs(database.db);
runner?.start();
const sweeper = startPhotoSweeper({
  db: database.db,
  storage,
  forgetPhotos: model && photoForgetter({ model, previewer }),
});
const orphanSweeper = startOrphanBlobSweeper({ db: database.db, storage });
const sessionSweeper = startSessionSweeper(database.db);
const app = createApp({
  db: database.db,
  config,
  jwtSecret,
  storage,
  model: model ?? describeImageModel(config),
  onQueued: () => runner?.notify(),
  previewer,
});

const controller = new AbortController();
const server = await bootStep("listening", `PORT=${config.port} and HOST=${config.host}`, () =>
  Deno.serve({
    port: config.port,
    hostname: config.host,
    signal: controller.signal,
    onListen: ({ port, hostname }) => {
      log.info("listening", {
        port,
        url: `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`,
        database: database.kind,
        // From process start: the figure bench/startup.bench.ts holds to its target.
        startup_ms: Math.round(performance.now()),
      });
    },
  }, app.fetch));

/**
 * A shutdown that has not ended by then (a database that stopped answering holds it) exits anyway: inside
 * Docker's default 10 s between SIGTERM and SIGKILL (a clean one takes about a second).
 */
const SHUTDOWN_DEADLINE_MS = 8_000;

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) {
    // A second signal: the operator means it now.
    log.warn("second signal during shutdown: exiting now", { signal });
    Deno.exit(1);
  }
  stopping = true;
  log.info("shutting down", { signal });
  setTimeout(() => {
    log.error("shutdown did not finish in time: exiting", { deadline_ms: SHUTDOWN_DEADLINE_MS });
    Deno.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  controller.abort();
  await sweeper.stop();
  await orphanSweeper.stop();
  await sessionSweeper.stop();
  await server.finished;
  await runner?.stop();
  await previewer?.close();
  await model?.close();
  await database.close();
  dataDirLock?.release();
  Deno.exit(0);
}
function onSignal(signal: string) {
  shutdown(signal).catch((error) => {
    log.error("shutdown failed", { error: error instanceof Error ? error.message : String(error) });
    Deno.exit(1);
  });
}
Deno.addSignalListener("SIGINT", () => onSignal("SIGINT"));
Deno.addSignalListener("SIGTERM", () => onSignal("SIGTERM"));
