/**
 * `deno task bench`: every benchmark in its own process (no shared warm-up or
 * memory), in order. Each prints its own figures and ratios.
 */
import { SERVER_V8_FLAGS } from "../server/runtime-memory.ts";

const benches = [
  "bench/generation-queue.bench.ts",
  "bench/local-model.bench.ts",
  "bench/matte-quality.bench.ts",
  "bench/background-objects.bench.ts",
  "bench/halo.bench.ts",
  "bench/framing-quality.bench.ts",
  "bench/hair-quality.bench.ts",
  "bench/makeup-quality.bench.ts",
  "bench/health-under-load.bench.ts",
  "bench/client-bundle.bench.ts",
  "bench/api.bench.ts",
  "bench/startup.bench.ts",
  "bench/memory.bench.ts",
  "bench/lighthouse.bench.ts",
  "bench/browser-result.bench.ts",
];
let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file}`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    // The server's own V8 flags (small young generations, --expose-gc): the model benches measure time and
    // memory as `deno task start` runs the model; the local model bench reads worker heaps after a full GC.
    args: ["run", "-A", `--v8-flags=${SERVER_V8_FLAGS.join(",")}`, file],
    cwd: new URL("../", import.meta.url),
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) failed++;
}
Deno.exit(failed ? 1 : 0);
