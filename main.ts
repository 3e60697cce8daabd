/**
 * StyleTwin: one process serving the API under /api, the generation job
 * runner and the built client. Configuration comes from the environment
 * (server/config.ts; every variable is listed in README.md).
 */
import { join } from "node:path";
import { openDatabase } from "./db/client.ts";
import { removeServerPid, writeServerPid } from "./db/server-pid.ts";
import { createApp } from "./server/app.ts";
import { loadJwtSecret } from "./server/auth/jwt-secret.ts";
import { ConfigError, loadConfig } from "./server/config.ts";
import { log, setLogLevel } from "./server/log.ts";
import { LocalDiskStorage } from "./server/storage/local-disk-storage.ts";
import { createImageModel, describeImageModel } from "./server/imaging/create-model.ts";
import { JobRunner } from "./server/generation/job-runner.ts";
import { startPhotoSweeper } from "./server/photos/photos.service.ts";
import { startSessionSweeper } from "./server/auth/session-sweeper.ts";

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

// Embedded PGlite belongs to this process alone: mark DATA_DIR as in use before opening it
// (`deno task admin` refuses while the mark names a live process).
const pidDir = config.databaseUrl ? undefined : config.dataDir;
if (pidDir) writeServerPid(pidDir);
const database = await openDatabase({
  url: config.databaseUrl,
  dataDir: join(config.dataDir, "db"),
});
const jwtSecret = await loadJwtSecret(config);
const storage = new LocalDiskStorage(join(config.dataDir, "uploads"));
// JOB_WORKERS=0 runs the API only: no model workers, no runner (another process runs jobs).
const model = config.jobWorkers > 0 ? await createImageModel(config) : undefined;
const runner = model
  ? new JobRunner({
    db: database.db,
    storage,
    model,
    workers: config.jobWorkers,
    timeoutMs: config.jobTimeoutMs,
  })
  : undefined;
runner?.start();
const sweeper = startPhotoSweeper({ db: database.db, storage });
const sessionSweeper = startSessionSweeper(database.db);
const app = createApp({
  db: database.db,
  config,
  jwtSecret,
  storage,
  model: model ?? describeImageModel(config),
  onQueued: () => runner?.notify(),
});

const controller = new AbortController();
const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  signal: controller.signal,
  onListen: ({ port, hostname }) => {
    log.info("listening", {
      port,
      url: `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`,
      database: database.kind,
    });
  },
}, app.fetch);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  controller.abort();
  await sweeper.stop();
  await sessionSweeper.stop();
  await server.finished;
  await runner?.stop();
  await model?.close();
  await database.close();
  if (pidDir) removeServerPid(pidDir);
  Deno.exit(0);
}
Deno.addSignalListener("SIGINT", () => shutdown("SIGINT"));
Deno.addSignalListener("SIGTERM", () => shutdown("SIGTERM"));
