import assert from "node:assert/strict";
import { loadConfig, localModelWorkersFor } from "../../server/config.ts";

Deno.test("local model render threads: one per core beyond the first, at most one per job, at least one", () => {
  assert.equal(localModelWorkersFor(2, 2), 1, "a 2-core machine: one render thread beside the face models");
  assert.equal(localModelWorkersFor(2, 1), 1);
  assert.equal(localModelWorkersFor(2, 8), 2, "no more threads than jobs run at once");
  assert.equal(localModelWorkersFor(6, 4), 3);
  assert.equal(localModelWorkersFor(0, 4), 1, "an API-only process still describes one");
  assert.equal(loadConfig({ DATA_DIR: "/tmp/unused", LOCAL_MODEL_WORKERS: "3" }).localModelWorkers, 3);
  assert.throws(() => loadConfig({ DATA_DIR: "/tmp/unused", LOCAL_MODEL_WORKERS: "0" }));
});
