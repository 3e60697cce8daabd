/**
 * Gives every image model a health() the job runner and GET /api/health can
 * trust. A model with its own health() is asked directly (its failure to load
 * still counts); one without it is `starting` until ready() resolves, `failed`
 * when ready() rejects (a model file that does not load, a worker that cannot
 * start), and `degraded` after several calls in a row failed.
 */
import type { ImageModel, ModelHealth } from "../imaging/image-model.ts";
import { log } from "../log.ts";

/** Consecutive failed calls after which a model without its own health() counts as degraded. */
const DEGRADED_AFTER_FAILURES = 3;

export function monitorModel(
  model: ImageModel,
): ImageModel & { health(): ModelHealth; ready(): Promise<void> } {
  let loaded: ModelHealth = { state: model.ready ? "starting" : "ready" };
  let failuresInARow = 0;
  let lastError = "";
  let lastCallAt: string | undefined;
  const readiness = model.ready ? model.ready() : Promise.resolve();
  readiness.then(
    () => {
      loaded = { state: "ready" };
    },
    (error) => {
      loaded = {
        state: "failed",
        detail: `The image model failed to load: ${(error as Error)?.message ?? error}`,
      };
      log.error("image model failed to load", { model: model.name, error });
    },
  );
  const health = (): ModelHealth => {
    if (loaded.state === "failed") return loaded;
    const own = model.health?.();
    if (own) return own;
    if (loaded.state === "starting") return loaded;
    if (failuresInARow >= DEGRADED_AFTER_FAILURES) {
      return {
        state: "degraded",
        detail: `The last ${failuresInARow} calls failed: ${lastError}`,
        lastCallAt,
      };
    }
    return { state: "ready", lastCallAt };
  };
  return {
    name: model.name,
    capabilities: model.capabilities,
    async generate(req) {
      try {
        const out = await model.generate(req);
        failuresInARow = 0;
        return out;
      } catch (error) {
        failuresInARow++;
        lastError = (error as Error)?.message ?? String(error);
        throw error;
      } finally {
        lastCallAt = new Date().toISOString();
      }
    },
    // A preparation is a hint, not a call: it does not count towards health.
    prepare: model.prepare?.bind(model),
    forget: model.forget?.bind(model),
    knownRefusal: model.knownRefusal?.bind(model),
    health,
    ready: () => readiness,
    close: () => model.close(),
  };
}
