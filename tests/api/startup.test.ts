/**
 * The real main.ts as a subprocess: it answers health, serves the client and
 * keeps its data across a restart (a user registered before can log in after).
 */
import assert from "node:assert/strict";
import { startLiveServer } from "../helpers/live-server.ts";
import { PASSWORD } from "../helpers/test-app.ts";

const ROOT = new URL("../../", import.meta.url);
/** Every request and subprocess of these tests is bounded; a hang fails the test, not the run. */
const WAIT_MS = 60_000;

/** Each test gets its own DATA_DIR (its own embedded database), removed afterwards. */
async function withDataDir(prefix: string, fn: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix });
  try {
    await fn(dataDir);
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

function fetchBounded(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(WAIT_MS) });
}

function postJson(url: string, body: unknown): Promise<Response> {
  return fetchBounded(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Runs a command of the product to completion (bounded) and returns its exit code and output. */
async function runToEnd(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { DATABASE_URL: "", ...env },
    signal: AbortSignal.timeout(WAIT_MS),
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("startup: main.ts serves health and the client", async () => {
  await withDataDir("styletwin-startup-", async (dataDir) => {
    const server = await startLiveServer({ dataDir, env: { JOB_WORKERS: "0" } });
    try {
      const health = await fetchBounded(`${server.url}/api/health`);
      assert.equal(health.status, 200);
      const report = await health.json();
      assert.equal(report.status, "ok");
      assert.equal(report.components.model.status, "not_run_here"); // JOB_WORKERS=0
      // The embedded database is marked as in use (`deno task admin` refuses while it is).
      assert.match(await Deno.readTextFile(`${dataDir}/server.pid`), /^\d+\n$/);

      const home = await fetchBounded(`${server.url}/`);
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
      // Home holds the prerendered landing page; every other client route gets one shell (an empty
      // root) that loads the same script.
      const script = (html: string) => /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
      let shellHtml: string | undefined;
      for (const route of clientRoutes) {
        const res = await fetchBounded(`${server.url}${route}`);
        assert.equal(res.status, 200, route);
        assert.equal(res.headers.get("Cache-Control"), "no-cache", route); // the shell is never cached
        const html = await res.text();
        assert.match(html, /<div id="root"><\/div>/, route);
        assert.equal(html, shellHtml ??= html, route);
        assert.equal(script(html), script(homeHtml), route);
      }

      // Hashed build output is cached for a year; its name changes whenever its content does.
      const asset = /\/assets\/[\w-]+-[A-Z0-9]{8,}\.js/.exec(homeHtml)?.[0];
      assert.ok(asset, "index.html references a hashed script");
      const hashed = await fetchBounded(`${server.url}${asset}`);
      assert.equal(hashed.status, 200);
      assert.equal(hashed.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
      assert.match(hashed.headers.get("Content-Type") ?? "", /javascript/);
      await hashed.body?.cancel();
      // A HEAD says the GET's length (it said 0), for the same encoding.
      const length = Number(hashed.headers.get("Content-Length"));
      assert.ok(length > 1000, `the script's length (${length})`);
      const head = await fetchBounded(`${server.url}${asset}`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("Content-Encoding"), hashed.headers.get("Content-Encoding"));
      assert.equal(Number(head.headers.get("Content-Length")), length);

      const malformed = await fetchBounded(`${server.url}/%E0%A4%A`);
      assert.equal(malformed.status, 400);
      assert.deepEqual(await malformed.json(), { detail: "Malformed URL", code: "bad_request" });
      const missingAsset = await fetchBounded(`${server.url}/assets/nope-123.js`);
      assert.equal(missingAsset.status, 404);
      await missingAsset.body?.cancel();
      const traversal = await fetchBounded(`${server.url}/..%2f..%2fdeno.json`);
      assert.doesNotMatch(await traversal.text(), /nodeModulesDir/);
    } finally {
      await server.close({ keepData: true });
    }
    // A clean shutdown releases the embedded database.
    await assert.rejects(Deno.stat(`${dataDir}/server.pid`), Deno.errors.NotFound);
  });
});

Deno.test("startup: main.ts keeps its data across a restart", async () => {
  await withDataDir("styletwin-restart-", async (dataDir) => {
    const email = `restart-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const options = { dataDir, env: { JOB_WORKERS: "0" }, buildClient: false };
    let server = await startLiveServer(options);
    try {
      const reg = await postJson(`${server.url}/api/auth/register`, {
        email,
        password: PASSWORD,
        full_name: "Restart Test",
      });
      assert.equal(reg.status, 201);
      await reg.body?.cancel();
    } finally {
      await server.close({ keepData: true });
    }

    server = await startLiveServer(options);
    try {
      const login = await postJson(`${server.url}/api/auth/login`, { email, password: PASSWORD });
      assert.equal(login.status, 200);
      const body = await login.json();
      assert.equal(body.user.email, email);
      assert.equal(body.user.credits, 10);
    } finally {
      await server.close({ keepData: true });
    }
  });
});

Deno.test("startup: a bad environment fails fast with a readable message", async () => {
  await withDataDir("styletwin-badenv-", async (dataDir) => {
    const out = await runToEnd(["run", "-A", "main.ts"], {
      PORT: "not-a-port",
      JOB_WORKERS: "-3",
      DATA_DIR: dataDir,
    });
    assert.equal(out.code, 1);
    assert.match(out.stderr, /Invalid configuration/);
    assert.match(out.stderr, /PORT/);
    assert.match(out.stderr, /JOB_WORKERS/);
  });
});

Deno.test("startup: a database it cannot reach, a port in use: one line naming the setting, exit 1", async () => {
  await withDataDir("styletwin-bootfail-", async (dataDir) => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const db = await runToEnd(["run", "-A", "main.ts"], {
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/styletwin",
      DATA_DIR: dataDir,
      JOB_WORKERS: "0",
    });
    assert.equal(db.code, 1);
    assert.match(db.stderr, /Could not start: opening the database failed \(check DATABASE_URL\)/);
    assert.doesNotMatch(db.stderr, /Uncaught|^ {4}at /m, "no stack trace");

    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const port = (taken.addr as Deno.NetAddr).port;
      const busy = await runToEnd(["run", "-A", "main.ts"], {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        JOB_WORKERS: "0",
      });
      assert.equal(busy.code, 1);
      assert.match(
        busy.stderr,
        new RegExp(`Could not start: listening failed \\(check PORT=${port} and HOST=127.0.0.1\\)`),
      );
      assert.doesNotMatch(busy.stderr, /Uncaught/);
    } finally {
      taken.close();
    }
  });
});

Deno.test("startup: a second server on one DATA_DIR refuses to start; after kill -9 of the first a new one starts", async () => {
  await withDataDir("styletwin-lock-", async (dataDir) => {
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
      const ok = await fetchBounded(`${first.url}/api/health`);
      assert.equal(ok.status, 200);
      await ok.body?.cancel();

      // A crash leaves the pid file behind, but the kernel drops the lock with the process.
      Deno.kill(pid, "SIGKILL");
      await first.close({ keepData: true });
      assert.match(await Deno.readTextFile(`${dataDir}/server.pid`), new RegExp(`^${pid}\\n$`));
      second = await startLiveServer({ dataDir, env: { JOB_WORKERS: "0" }, buildClient: false });
      const health = await fetchBounded(`${second.url}/api/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
    } finally {
      await first.close({ keepData: true });
      await second?.close({ keepData: true });
    }
  });
});
