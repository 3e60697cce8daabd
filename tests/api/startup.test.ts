/**
 * The real main.ts as a subprocess: it answers health, serves the client and
 * keeps its data across a restart (a user registered before can log in after).
 */
import assert from "node:assert/strict";
import { startLiveServer } from "../helpers/live-server.ts";
import { PASSWORD } from "../helpers/test-app.ts";

Deno.test("startup: main.ts serves health and the client, and keeps data across a restart", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "styletwin-startup-" });
  try {
    const email = `restart-${crypto.randomUUID().slice(0, 8)}@example.com`;
    let server = await startLiveServer({ dataDir, env: { JOB_WORKERS: "0" } });
    try {
      const health = await fetch(`${server.url}/api/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: "ok" });

      const home = await fetch(`${server.url}/`);
      assert.equal(home.status, 200);
      assert.match(home.headers.get("Content-Type") ?? "", /text\/html/);
      assert.match(await home.text(), /<div id="root">|StyleTwin/);
      for (const route of ["/studio", "/dashboard", "/credit-purchase-success", "/checkout/sandbox/abc"]) {
        const res = await fetch(`${server.url}${route}`);
        assert.equal(res.status, 200, route);
        assert.match(await res.text(), /StyleTwin/);
      }
      const missingAsset = await fetch(`${server.url}/assets/nope-123.js`);
      assert.equal(missingAsset.status, 404);
      await missingAsset.body?.cancel();
      const traversal = await fetch(`${server.url}/..%2f..%2fdeno.json`);
      assert.doesNotMatch(await traversal.text(), /nodeModulesDir/);

      const reg = await fetch(`${server.url}/api/auth/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password: PASSWORD, full_name: "Restart Test" }),
      });
      assert.equal(reg.status, 201);
      await reg.body?.cancel();
    } finally {
      await server.close({ keepData: true });
    }

    server = await startLiveServer({ dataDir, env: { JOB_WORKERS: "0" } });
    try {
      const login = await fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      assert.equal(login.status, 200);
      const body = await login.json();
      assert.equal(body.user.email, email);
      assert.equal(body.user.credits, 10);
    } finally {
      await server.close({ keepData: true });
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("startup: a bad environment fails fast with a readable message", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: new URL("../../", import.meta.url),
    env: { PORT: "not-a-port", JOB_WORKERS: "-3", DATA_DIR: "/tmp/unused-styletwin" },
  }).output();
  assert.equal(out.code, 1);
  const err = new TextDecoder().decode(out.stderr);
  assert.match(err, /Invalid configuration/);
  assert.match(err, /PORT/);
  assert.match(err, /JOB_WORKERS/);
});
