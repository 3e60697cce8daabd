/**
 * Postgres going away under a running server: requests answer 503 `database_unavailable` with Retry-After
 * (they answered 500 "Internal Server Error"), and the same requests work again once it is back, without a
 * restart. The outage is a TCP proxy in front of the test's own database that drops every connection.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { openDatabase } from "../../db/client.ts";
import { isDatabaseUnavailable } from "../../db/unavailable.ts";
import type { Backend } from "../helpers/backends.ts";
import { openTestContext } from "../helpers/test-app.ts";

const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL");

/**
 * A TCP proxy to `target`. `cut()` drops every connection and stops listening (a client then meets a refused
 * connection, as when Postgres is down); `restore()` listens again on the same port.
 */
function startProxy(target: { hostname: string; port: number }) {
  // Aborting a pair's pipes closes both its sockets (a socket whose stream is being piped ignores close()).
  const pairs = new Set<AbortController>();
  let listener: Deno.Listener | null = null;
  const listen = (port: number) => {
    const l = Deno.listen({ hostname: "127.0.0.1", port });
    listener = l;
    (async () => {
      for await (const conn of l) {
        const stop = new AbortController();
        pairs.add(stop);
        (async () => {
          try {
            const upstream = await Deno.connect(target);
            const { signal } = stop;
            await Promise.all([
              conn.readable.pipeTo(upstream.writable, { signal }),
              upstream.readable.pipeTo(conn.writable, { signal }),
            ]);
          } catch {
            /* cut, or the peer went */
          } finally {
            pairs.delete(stop);
          }
        })();
      }
    })().catch(() => {});
    return (l.addr as Deno.NetAddr).port;
  };
  const port = listen(0);
  return {
    port,
    cut() {
      listener?.close();
      listener = null;
      for (const stop of pairs) stop.abort();
      pairs.clear();
    },
    restore() {
      if (!listener) listen(port);
    },
    close() {
      this.cut();
    },
  };
}

Deno.test({
  name:
    "[postgres] database outage: requests answer 503 database_unavailable, then work again without a restart",
  ignore: !TEST_DATABASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = new URL(TEST_DATABASE_URL!);
    const name = `styletwin_outage_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const proxy = startProxy({ hostname: url.hostname, port: Number(url.port || 5432) });
    const proxied = new URL(url);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    proxied.pathname = `/${name}`;
    const backend: Backend = {
      name: "postgres",
      skip: false,
      open: () => openDatabase({ url: proxied.toString() }),
    };
    const ctx = await openTestContext(backend);
    try {
      const user = await ctx.register();
      // The profile is read from the database on every call (the signed-in user may come from a short cache).
      const profile = () => ctx.call("GET", "/api/users/profile", { token: user.access_token });
      assert.equal((await profile()).status, 200);

      proxy.cut();
      const down = await profile();
      assert.equal(down.status, 503, JSON.stringify(down.body));
      assert.equal(down.body.code, "database_unavailable");
      assert.equal(down.headers.get("retry-after"), "30");
      const login = await ctx.call("POST", "/api/auth/login", {
        body: { email: user.user.email, password: "Sup3r$ecret" },
      });
      assert.equal(login.status, 503, JSON.stringify(login.body));

      proxy.restore();
      const back = await profile();
      assert.equal(back.status, 200, JSON.stringify(back.body));
      assert.deepEqual(back.body.favorite_styles, []);
    } finally {
      proxy.restore();
      await ctx.close().catch(() => {});
      proxy.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  },
});

Deno.test("database outage: what counts as the database being unreachable, and what does not", () => {
  for (const code of ["ECONNREFUSED", "CONNECT_TIMEOUT", "CONNECTION_CLOSED", "57P01", "08006", "53300"]) {
    assert.ok(isDatabaseUnavailable(Object.assign(new Error("x"), { code })), code);
    // Drizzle wraps a failed query's error as its cause.
    assert.ok(
      isDatabaseUnavailable(new Error("Failed query", { cause: Object.assign(new Error(), { code }) })),
    );
  }
  for (const code of ["23505", "42P01", "22P02", "08P01", undefined]) {
    assert.ok(!isDatabaseUnavailable(Object.assign(new Error("x"), { code })), String(code));
  }
});
