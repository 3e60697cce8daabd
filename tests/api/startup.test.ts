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
      const report = await health.json();
      assert.equal(report.status, "ok");
      assert.equal(report.components.model.status, "not_run_here"); // JOB_WORKERS=0
      // The embedded database is marked as in use (`deno task admin` refuses while it is).
      assert.match(await Deno.readTextFile(`${dataDir}/server.pid`), /^\d+\n$/);

      const home = await fetch(`${server.url}/`);
      assert.equal(home.status, 200);
      assert.match(home.headers.get("Content-Type") ?? "", /text\/html/);
      const homeHtml = await home.text();
      assert.match(homeHtml, /<div id="root">|StyleTwin/);
      const clientRoutes = [
        "/studio",
        "/dashboard",
        "/credit-purchase-success",
        "/subscription-success",
        "/credit-purchase-cancel",
        "/subscription-cancel",
        "/checkout/anything",
      ];
      for (const route of clientRoutes) {
        const res = await fetch(`${server.url}${route}`);
        assert.equal(res.status, 200, route);
        assert.equal(res.headers.get("Cache-Control"), "no-cache", route); // the shell is never cached
        assert.equal(await res.text(), homeHtml, route);
      }

      // Hashed build output is cached for a year; its name changes whenever its content does.
      const asset = /\/assets\/[\w-]+-[A-Z0-9]{8,}\.js/.exec(homeHtml)?.[0];
      assert.ok(asset, "index.html references a hashed script");
      const hashed = await fetch(`${server.url}${asset}`);
      assert.equal(hashed.status, 200);
      assert.equal(hashed.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
      assert.match(hashed.headers.get("Content-Type") ?? "", /javascript/);
      await hashed.body?.cancel();

      const malformed = await fetch(`${server.url}/%E0%A4%A`);
      assert.equal(malformed.status, 400);
      assert.deepEqual(await malformed.json(), { detail: "Malformed URL", code: "bad_request" });
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
    // A clean shutdown releases the embedded database.
    await assert.rejects(Deno.stat(`${dataDir}/server.pid`), Deno.errors.NotFound);

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

const ROOT = new URL("../../", import.meta.url);

/** Runs a command of the product to completion (bounded) and returns its exit code and output. */
async function runToEnd(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { DATABASE_URL: "", ...env },
    signal: AbortSignal.timeout(60_000),
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("startup: a second server on one DATA_DIR refuses to start; after kill -9 of the first a new one starts", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "styletwin-lock-" });
  try {
    const first = await startLiveServer({ dataDir, env: { JOB_WORKERS: "0" }, buildClient: false });
    let second;
    try {
      const pid = Number((await Deno.readTextFile(`${dataDir}/server.pid`)).trim());
      const refused = await runToEnd(["run", "-A", "main.ts"], {
        DATA_DIR: dataDir,
        PORT: "0",
        JOB_WORKERS: "0",
      });
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(`Another StyleTwin server \\(pid ${pid}\\) is using the embedded database in ${dataDir}`),
      );
      // The admin task refuses too while the server runs.
      const admin = await runToEnd(["run", "-A", "scripts/promote-admin.ts", "someone@example.com"], {
        DATA_DIR: dataDir,
      });
      assert.equal(admin.code, 1);
      assert.match(admin.stderr, new RegExp(`pid ${pid}.*Stop the server first`));
      // The first one still answers: the refused start changed nothing.
      const ok = await fetch(`${first.url}/api/health`);
      assert.equal(ok.status, 200);
      await ok.body?.cancel();

      // A crash leaves the pid file behind, but the kernel drops the lock with the process.
      Deno.kill(pid, "SIGKILL");
      await first.close({ keepData: true });
      assert.match(await Deno.readTextFile(`${dataDir}/server.pid`), new RegExp(`^${pid}\\n$`));
      second = await startLiveServer({ dataDir, env: { JOB_WORKERS: "0" }, buildClient: false });
      const health = await fetch(`${second.url}/api/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
    } finally {
      await first.close({ keepData: true });
      await second?.close({ keepData: true });
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
