/**
 * What GET /api/health reports: each component's state and whether the
 * product can generate right now. Unhealthy (503) when the database or the
 * storage cannot be used, or when this process runs jobs and its image model
 * cannot (starting, or failed to load); load balancers and HEALTHCHECK act on
 * the status code, operators read the components.
 */
import type { Db } from "../../db/client.ts";
import { jobQueueSummary } from "../generation/generation.service.ts";
import type { ModelHealth } from "../imaging/image-model.ts";
import { log } from "../log.ts";
import type { BlobStorage } from "../storage/storage.ts";

export interface HealthDeps {
  db: Db;
  storage: BlobStorage;
  /** Name of the storage kind (local | s3) for the report. */
  storageKind: string;
  /** The model's name, and its health when this process runs jobs (JOB_WORKERS > 0). */
  model: { name: string; health?: () => ModelHealth };
}

type Check = { status: "ok" } | { status: "error"; detail: string };

export interface HealthReport {
  status: "ok" | "unavailable";
  components: {
    database: Check;
    storage: Check & { kind: string };
    /** `not_run_here`: JOB_WORKERS=0, another process runs the model. */
    model: {
      name: string;
      status: ModelHealth["state"] | "not_run_here";
      detail?: string;
      lastCallAt?: string;
    };
    jobs: {
      status: "ok" | "error";
      queued?: number;
      running?: number;
      oldestQueuedAgeSeconds?: number | null;
    };
  };
}

/** Each check is bounded, so one hung dependency cannot hang the health check itself. */
const CHECK_TIMEOUT_MS = 3_000;

async function check(name: string, probe: () => Promise<void>, detail: string): Promise<Check> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: "ok" };
  } catch (error) {
    log.warn(`health check: ${name} unavailable`, { error });
    return { status: "error", detail };
  } finally {
    clearTimeout(timer);
  }
}

/** A storage probe that succeeded less than this ago answers a health check without a new one. */
export const STORAGE_PROBE_FRESH_MS = 10_000;
/** From this age on, a check answered from the last probe also starts the next one, in the background. */
export const STORAGE_PROBE_REFRESH_AFTER_MS = 2_000;

interface StorageProbes {
  lastOk?: number;
  inFlight?: Promise<Check>;
}
const storageProbes = new WeakMap<BlobStorage, StorageProbes>();

/**
 * The storage check. Its probe writes and removes a file: two trips through the runtime's thread
 * pool, 25-120 ms while model workers hold both cores (the database check took 1-7 ms at the same
 * time), so a probe that succeeded recently answers instead: a check answered from a probe older
 * than STORAGE_PROBE_REFRESH_AFTER_MS starts the next one, and one older than
 * STORAGE_PROBE_FRESH_MS waits for a new one. A failed probe is never reused: every check after it
 * probes again, so a failure shows on the first check after the background probe that met it
 * (health polled every few seconds: within a few seconds), and a recovery at once.
 */
function storageCheck(storage: BlobStorage, nowMs: number): Promise<Check> {
  let probes = storageProbes.get(storage);
  if (!probes) storageProbes.set(storage, probes = {});
  const state = probes;
  const probe = () =>
    state.inFlight ??= check("storage", () => storage.ping(), "Storage unavailable").then((result) => {
      state.lastOk = result.status === "ok" ? nowMs : undefined;
      return result;
    }).finally(() => {
      state.inFlight = undefined;
    });
  const age = state.lastOk === undefined ? Infinity : nowMs - state.lastOk;
  if (age >= 0 && age < STORAGE_PROBE_FRESH_MS) {
    if (age >= STORAGE_PROBE_REFRESH_AFTER_MS) probe();
    return Promise.resolve({ status: "ok" });
  }
  return probe();
}

export async function healthReport(deps: HealthDeps, now = new Date()): Promise<HealthReport> {
  // The job counts are the database check: one round trip, not a ping and then the counts (on
  // PGlite every query waits its turn behind the open transactions of a burst of requests).
  let counts: Awaited<ReturnType<typeof jobQueueSummary>> | undefined;
  const [database, storage] = await Promise.all([
    check("database", async () => {
      counts = await jobQueueSummary(deps.db);
    }, "Database unavailable"),
    storageCheck(deps.storage, now.getTime()),
  ]);
  const jobs: HealthReport["components"]["jobs"] = counts
    ? {
      status: "ok",
      queued: counts.queued,
      running: counts.running,
      oldestQueuedAgeSeconds: counts.oldestQueuedAt
        ? Math.max(0, Math.round((now.getTime() - counts.oldestQueuedAt.getTime()) / 1000))
        : null,
    }
    : { status: "error" };
  const modelHealth = deps.model.health?.();
  const model: HealthReport["components"]["model"] = modelHealth
    ? { name: deps.model.name, status: modelHealth.state, ...pick(modelHealth) }
    : { name: deps.model.name, status: "not_run_here" };
  const canGenerate = model.status === "ready" || model.status === "degraded" ||
    model.status === "not_run_here";
  const ok = database.status === "ok" && storage.status === "ok" && canGenerate;
  return {
    status: ok ? "ok" : "unavailable",
    components: { database, storage: { ...storage, kind: deps.storageKind }, model, jobs },
  };
}

function pick(h: ModelHealth): { detail?: string; lastCallAt?: string } {
  return {
    ...(h.detail ? { detail: h.detail } : {}),
    ...(h.lastCallAt ? { lastCallAt: h.lastCallAt } : {}),
  };
}
