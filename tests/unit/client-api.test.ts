import assert from "node:assert/strict";
import { ApiError, createApiClient } from "../../client/api/http.ts";
import { createFetchMe, meRetryDelay, SessionUnavailableError, shouldRetryMe } from "../../client/api/me.ts";
import { createTokenStore } from "../../client/api/tokens.ts";
import { json, memoryTokens } from "./client-fakes.ts";

/** A fake server: access tokens valid when in `valid`; refresh rotates. */
function fakeServer(opts: { refreshOk?: boolean; refreshDelay?: number } = {}) {
  const valid = new Set<string>();
  let refreshCalls = 0;
  let n = 0;
  const seen: { path: string; auth: string | null }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    const auth = new Headers(init?.headers).get("Authorization");
    seen.push({ path, auth });
    if (path === "/api/auth/refresh") {
      refreshCalls++;
      await new Promise((r) => setTimeout(r, opts.refreshDelay ?? 5));
      const body = JSON.parse(String(init?.body));
      if (opts.refreshOk === false || body.refresh_token !== "r1") {
        return json({ detail: "Invalid refresh token" }, 401);
      }
      const access = `a${++n}`;
      valid.add(access);
      return json({ access_token: access, refresh_token: `r1-rotated-${n}` });
    }
    const token = auth?.replace("Bearer ", "");
    if (!token || !valid.has(token)) {
      return json({ detail: "Not authenticated" }, 401);
    }
    return json({ ok: true, path });
  };
  return { fetch: fetch as typeof globalThis.fetch, seen, refreshCalls: () => refreshCalls };
}

/** A client over `fetch` that counts how often it reported the session ended. */
function countingClient(fetch: typeof globalThis.fetch, tokens: ReturnType<typeof memoryTokens>) {
  let ended = 0;
  const api = createApiClient({ fetch, tokens, onSessionEnded: () => ended++ });
  return { api, ended: () => ended };
}

Deno.test("api: sends the bearer token and parses JSON", async () => {
  const server = fakeServer();
  const tokens = memoryTokens("a0", "r1");
  const api = createApiClient({ fetch: server.fetch, tokens });
  // a0 is not valid: it refreshes first
  const body = await api.json<{ ok: boolean }>("/api/users/me");
  assert.equal(body.ok, true);
  assert.equal(server.seen[0].auth, "Bearer a0");
  assert.equal(server.seen.at(-1)?.auth, "Bearer a1");
});

Deno.test("api: parallel 401s share one refresh (single flight) and all retry once", async () => {
  const server = fakeServer({ refreshDelay: 20 });
  const tokens = memoryTokens("expired", "r1");
  const { api, ended } = countingClient(server.fetch, tokens);
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => api.json<{ path: string }>(`/api/x/${i}`)),
  );
  assert.equal(server.refreshCalls(), 1);
  assert.deepEqual(results.map((r) => r.path), [0, 1, 2, 3, 4].map((i) => `/api/x/${i}`));
  // The rotated refresh token is stored.
  assert.equal(tokens.t.access, "a1");
  assert.equal(tokens.t.refresh, "r1-rotated-1");
  assert.equal(ended(), 0);
  // 5 first tries + 1 refresh + 5 retries
  assert.equal(server.seen.length, 11);
});

Deno.test("api: when refresh fails, tokens are cleared and the session ends once", async () => {
  const server = fakeServer({ refreshOk: false });
  const tokens = memoryTokens("expired", "r1");
  const { api, ended } = countingClient(server.fetch, tokens);
  const errors = await Promise.allSettled([
    api.json("/api/a"),
    api.json("/api/b"),
    api.json("/api/c"),
  ]);
  for (const e of errors) {
    assert.equal(e.status, "rejected");
    assert.ok(e.status === "rejected" && e.reason instanceof ApiError);
    assert.equal(e.status === "rejected" && e.reason.status, 401);
    assert.equal(e.status === "rejected" && e.reason.detail, "Not authenticated");
  }
  assert.equal(server.refreshCalls(), 1);
  assert.equal(ended(), 1);
  assert.equal(tokens.t.access, null);
  assert.equal(tokens.t.refresh, null);
});

Deno.test("api: no refresh token means no refresh call and signed out", async () => {
  const server = fakeServer();
  const tokens = memoryTokens("expired", null);
  const { api, ended } = countingClient(server.fetch, tokens);
  const res = await api.request("/api/users/me");
  assert.equal(res.status, 401);
  assert.equal(server.refreshCalls(), 0);
  assert.equal(ended(), 1);
  assert.equal(tokens.t.access, null);
});

Deno.test("api: anonymous requests are not refreshed; auth:false sends no bearer", async () => {
  const server = fakeServer();
  const tokens = memoryTokens(null, null);
  const api = createApiClient({ fetch: server.fetch, tokens });
  const res = await api.request("/api/anything");
  assert.equal(res.status, 401);
  assert.equal(server.refreshCalls(), 0);
  const t2 = memoryTokens("a9", "r1");
  const api2 = createApiClient({ fetch: server.fetch, tokens: t2 });
  await api2.request("/api/auth/login", { method: "POST", json: {}, auth: false });
  assert.equal(server.seen.at(-1)?.auth, null);
});

Deno.test("api: a request that started before a refresh retries with the new token without refreshing again", async () => {
  const server = fakeServer();
  const tokens = memoryTokens("old", "r1");
  const api = createApiClient({ fetch: server.fetch, tokens });
  await api.json("/api/first"); // refreshes -> a1
  assert.equal(server.refreshCalls(), 1);
  // Simulate a late 401 for a request sent with "old".
  const lateFetch: typeof fetch = (input, init) => {
    const auth = new Headers(init?.headers).get("Authorization");
    if (auth === "Bearer old") return Promise.resolve(json({ detail: "x" }, 401));
    return server.fetch(input, init);
  };
  tokens.t.access = "old";
  const api2 = createApiClient({ fetch: lateFetch, tokens });
  const p = api2.request("/api/late");
  tokens.t.access = "a1"; // rotated by someone else meanwhile
  const res = await p;
  assert.equal(res.status, 200);
  assert.equal(server.refreshCalls(), 1);
});

Deno.test("api: error detail is read from {detail}", async () => {
  const api = createApiClient({
    fetch: () => Promise.resolve(json({ detail: "Email already registered" }, 409)),
    tokens: memoryTokens(null, null),
  });
  await assert.rejects(
    api.json("/api/auth/register", { method: "POST", json: {} }),
    (e) => e instanceof ApiError && e.status === 409 && e.detail === "Email already registered",
  );
});

Deno.test("api: two tabs sharing the tokens refresh once; the second uses the first's result", async () => {
  const server = fakeServer({ refreshDelay: 20 });
  const shared = memoryTokens("expired", "r1"); // localStorage, seen by both tabs
  // A lock shared by both tabs, like navigator.locks.
  let queue = Promise.resolve();
  const withLock = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.then(() => {}, () => {});
    return run;
  };
  let ended = 0;
  const tabA = createApiClient({
    fetch: server.fetch,
    tokens: shared,
    withLock,
    onSessionEnded: () => ended++,
  });
  const tabB = createApiClient({
    fetch: server.fetch,
    tokens: shared,
    withLock,
    onSessionEnded: () => ended++,
  });
  const [a, b] = await Promise.all([
    tabA.json<{ path: string }>("/api/a"),
    tabB.json<{ path: string }>("/api/b"),
  ]);
  assert.equal(a.path, "/api/a");
  assert.equal(b.path, "/api/b");
  // Without the lock the second tab would present r1 again: the server would see reuse.
  assert.equal(server.refreshCalls(), 1);
  assert.equal(shared.t.refresh, "r1-rotated-1");
  assert.equal(ended, 0);
});

// ---- Startup auth (fetchMe): only a refused session signs out; network errors and 5xx keep the tokens.

const USER = { id: "u1", email: "ada@example.com", full_name: "Ada", credits: 2 };

/**
 * A scripted server: `me` and `refresh` answer from queues ("ok", a status
 * number, or "network"); /users/me accepts only tokens the refresh issued.
 */
function scriptedServer(
  script: { me: (number | "ok" | "network")[]; refresh?: (number | "ok" | "network")[] },
) {
  const calls: string[] = [];
  let issued = 0;
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    calls.push(path);
    const step = (path === "/api/auth/refresh" ? script.refresh : script.me)?.shift() ?? "ok";
    if (step === "network") return Promise.reject(new TypeError("Failed to fetch"));
    if (typeof step === "number") return Promise.resolve(json({ detail: `status ${step}` }, step));
    if (path === "/api/auth/refresh") {
      issued++;
      return Promise.resolve(json({ access_token: `fresh${issued}`, refresh_token: `r-fresh${issued}` }));
    }
    assert.ok(new Headers(init?.headers).get("Authorization"));
    return Promise.resolve(json(USER));
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

function startup(script: Parameters<typeof scriptedServer>[0], refresh: string | null = "r1") {
  const server = scriptedServer(script);
  const tokens = memoryTokens("a0", refresh);
  const { api, ended } = countingClient(server.fetch, tokens);
  return { fetchMe: createFetchMe(api, tokens), tokens, server, ended };
}

Deno.test("startup: a network error keeps the tokens and asks for a retry", async () => {
  const s = startup({ me: ["network"] });
  await assert.rejects(s.fetchMe(), SessionUnavailableError);
  assert.equal(s.tokens.t.access, "a0");
  assert.equal(s.tokens.t.refresh, "r1");
  assert.equal(s.ended(), 0);
  assert.deepEqual(s.server.calls, ["/api/users/me"], "no refresh for a network error");
});

Deno.test("startup: a 5xx from /users/me keeps the tokens and asks for a retry", async () => {
  for (const status of [500, 502, 503, 504]) {
    const s = startup({ me: [status] });
    await assert.rejects(s.fetchMe(), SessionUnavailableError);
    assert.equal(s.tokens.t.access, "a0");
    assert.equal(s.ended(), 0);
  }
});

Deno.test("startup: 401, then a refresh that fails for network reasons or 5xx, keeps the tokens", async () => {
  for (const refreshStep of ["network", 500, 503, 429] as const) {
    const s = startup({ me: [401], refresh: [refreshStep] });
    await assert.rejects(s.fetchMe(), SessionUnavailableError, `refresh answered ${refreshStep}`);
    assert.equal(s.tokens.t.access, "a0", `refresh answered ${refreshStep}`);
    assert.equal(s.tokens.t.refresh, "r1");
    assert.equal(s.ended(), 0);
  }
});

Deno.test("startup: 401, then a refresh answered 401/4xx, clears the tokens (signed out)", async () => {
  for (const refreshStep of [401, 400, 403] as const) {
    const s = startup({ me: [401], refresh: [refreshStep] });
    assert.equal(await s.fetchMe(), null);
    assert.equal(s.tokens.t.access, null);
    assert.equal(s.tokens.t.refresh, null);
    assert.equal(s.ended(), 1);
  }
});

Deno.test("startup: 401 with no refresh token clears the tokens without a refresh call", async () => {
  const s = startup({ me: [401] }, null);
  assert.equal(await s.fetchMe(), null);
  assert.equal(s.tokens.t.access, null);
  assert.ok(!s.server.calls.includes("/api/auth/refresh"));
  assert.equal(s.ended(), 1);
});

Deno.test("startup: 401, refresh ok, /users/me ok: signed in with the rotated tokens", async () => {
  const s = startup({ me: [401, "ok"], refresh: ["ok"] });
  assert.deepEqual(await s.fetchMe(), USER);
  assert.equal(s.tokens.t.access, "fresh1");
  assert.equal(s.tokens.t.refresh, "r-fresh1");
});

Deno.test("startup: 401 even with the refreshed token: the account is refused, signed out", async () => {
  const s = startup({ me: [401, 401], refresh: ["ok"] });
  assert.equal(await s.fetchMe(), null);
  assert.equal(s.tokens.t.access, null);
  assert.equal(s.ended(), 1);
});

Deno.test("startup: no stored access token: anonymous, no request", async () => {
  const server = scriptedServer({ me: [] });
  const tokens = memoryTokens(null, null);
  const fetchMe = createFetchMe(createApiClient({ fetch: server.fetch, tokens }), tokens);
  assert.equal(await fetchMe(), null);
  assert.equal(server.calls.length, 0);
});

Deno.test("startup: recovers after the connection comes back (the retry signs in)", async () => {
  const s = startup({ me: ["network", 503, "ok"] });
  await assert.rejects(s.fetchMe(), SessionUnavailableError);
  await assert.rejects(s.fetchMe(), SessionUnavailableError);
  assert.deepEqual(await s.fetchMe(), USER);
  assert.equal(s.ended(), 0);
});

Deno.test("startup: retries only the unknown state, with capped exponential backoff", () => {
  assert.equal(shouldRetryMe(0, new SessionUnavailableError(new TypeError("x"))), true);
  assert.equal(shouldRetryMe(50, new SessionUnavailableError(new TypeError("x"))), true);
  assert.equal(shouldRetryMe(0, new Error("bug")), false);
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 10].map(meRetryDelay), [
    1000,
    2000,
    4000,
    8000,
    16000,
    30000,
    30000,
    30000,
  ]);
});

Deno.test("api: a 5xx refresh keeps the tokens; a 4xx refresh ends the session", async () => {
  for (
    const [status, cleared] of [[500, false], [503, false], [429, false], [401, true], [400, true]] as const
  ) {
    const tokens = memoryTokens("expired", "r1");
    let ended = 0;
    const api = createApiClient({
      fetch: (input) =>
        Promise.resolve(
          String(input) === "/api/auth/refresh" ? json({ detail: "x" }, status) : json({ detail: "no" }, 401),
        ),
      tokens,
      onSessionEnded: () => ended++,
    });
    assert.equal(await api.refresh(), false);
    assert.equal(tokens.t.access === null, cleared, `refresh answered ${status}`);
    assert.equal(ended, cleared ? 1 : 0);
  }
});

// ---- Other tabs: storage events on the token keys notify the store's subscribers.

Deno.test("tokens: another tab's sign-in/sign-out (storage event) notifies as external; own writes as local", () => {
  const storage = new Map<string, string>();
  const fakeStorage = {
    getItem: (k: string) => storage.get(k) ?? null,
    setItem: (k: string, v: string) => void storage.set(k, v),
    removeItem: (k: string) => void storage.delete(k),
  } as unknown as Storage;
  const events = new EventTarget();
  const store = createTokenStore(fakeStorage, events);
  const seen: string[] = [];
  store.subscribe((source) => seen.push(`${source}:${store.getAccess()}`));

  store.set("mine", "r-mine");
  assert.deepEqual(seen, ["local:mine"]);

  const storageEvent = (key: string | null, area: Storage | null = fakeStorage) =>
    Object.assign(new Event("storage"), { key, storageArea: area });
  // Another tab signs out.
  storage.clear();
  events.dispatchEvent(storageEvent("access_token"));
  assert.deepEqual(seen.at(-1), "external:null");
  // ...signs in again.
  storage.set("access_token", "theirs");
  events.dispatchEvent(storageEvent("access_token"));
  assert.deepEqual(seen.at(-1), "external:theirs");
  // localStorage.clear() in the other tab: key null.
  events.dispatchEvent(storageEvent(null));
  assert.equal(seen.length, 4);
  // Unrelated keys and other storage areas are ignored.
  events.dispatchEvent(storageEvent("styletwin.photo"));
  events.dispatchEvent(storageEvent("access_token", {} as Storage));
  assert.equal(seen.length, 4);
});
