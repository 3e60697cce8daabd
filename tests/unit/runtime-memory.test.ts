/**
 * The server's V8 memory flags (server/runtime-memory.ts) can only be given
 * on the command line: every way the product starts passes the same list.
 */
import assert from "node:assert/strict";
import { SERVER_V8_FLAGS, tuneMalloc } from "../../server/runtime-memory.ts";

const flag = `--v8-flags=${SERVER_V8_FLAGS.join(",")}`;

Deno.test("runtime memory: deno task start and dev run main.ts with the server's V8 flags", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url))).tasks;
  for (const name of ["start", "dev"]) {
    const run = (tasks[name] as string).split("&&").map((c) => c.trim()).find((c) => c.endsWith("main.ts"));
    assert.ok(run?.includes(flag), `${name}: ${run}`);
  }
});

Deno.test("runtime memory: the Docker image runs main.ts with the server's V8 flags", async () => {
  const docker = await Deno.readTextFile(new URL("../../Dockerfile", import.meta.url));
  const cmd = docker.split("\n").find((l) => l.startsWith("CMD "));
  assert.deepEqual(JSON.parse(cmd!.slice(4)), ["deno", "run", "-A", flag, "main.ts"]);
});

Deno.test("runtime memory: glibc's malloc accepts the tuning", () => {
  assert.equal(tuneMalloc(), Deno.build.os === "linux" && Deno.build.env === "gnu");
});
