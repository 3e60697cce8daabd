/** The in-memory rate limiter keeps its memory bounded whatever callers send. */
import assert from "node:assert/strict";
import { AppError } from "../../server/http/errors.ts";
import { MemoryRateLimitStore, RateLimiter } from "../../server/http/rate-limit.ts";

const status = (fn: () => void) => {
  try {
    fn();
    return 200;
  } catch (e) {
    assert.ok(e instanceof AppError);
    return e.status;
  }
};

Deno.test("rate limit: a limited IP cannot grow the map with new emails", () => {
  const limiter = new RateLimiter(3);
  const now = 1_000_000;
  for (let i = 0; i < 3; i++) limiter.hit(["login:ip:a", `login:email:${i}`], now);
  const size = limiter.size;
  for (let i = 3; i < 1000; i++) {
    assert.equal(status(() => limiter.hit(["login:ip:a", `login:email:${i}`], now)), 429);
  }
  assert.equal(limiter.size, size);
});

Deno.test("rate limit: 429 carries Retry-After until the window ends, then the key is free", () => {
  const limiter = new RateLimiter(1, { windowMs: 60_000 });
  limiter.hit(["k"], 0);
  try {
    limiter.hit(["k"], 15_000);
    assert.fail("expected 429");
  } catch (e) {
    assert.ok(e instanceof AppError);
    assert.equal(e.status, 429);
    assert.equal(e.headers["Retry-After"], "45");
  }
  assert.equal(status(() => limiter.hit(["k"], 60_000)), 200);
});

Deno.test("rate limit: the number of tracked keys is capped; the oldest are evicted first", () => {
  const limiter = new RateLimiter(1, { maxKeys: 100 });
  for (let i = 0; i < 1000; i++) limiter.hit([`ip:${i}`], 1_000 + i);
  assert.equal(limiter.size, 100);
  // The newest keys are still tracked (limited); the oldest were forgotten.
  assert.equal(status(() => limiter.hit(["ip:999"], 2_000)), 429);
  assert.equal(status(() => limiter.hit(["ip:0"], 2_000)), 200);
});

Deno.test("rate limit: expired windows are swept before anything live is evicted", () => {
  const limiter = new RateLimiter(1, { windowMs: 1_000, maxKeys: 10 });
  for (let i = 0; i < 5; i++) limiter.hit([`old:${i}`], 0);
  for (let i = 0; i < 5; i++) limiter.hit([`new:${i}`], 900);
  limiter.hit(["later"], 1_500); // the old windows are over: they go, the new ones stay
  assert.equal(limiter.size, 6);
  assert.equal(status(() => limiter.hit(["new:0"], 1_500)), 429);
});

Deno.test("rate limit store: rules are counted in order and the first one over its limit answers 429", async () => {
  const store = new MemoryRateLimitStore();
  const rules = (email: string) => [
    { key: "ip:a", limit: 5, windowMs: 60_000 },
    { key: `pair:a:${email}`, limit: 2, windowMs: 60_000 },
  ];
  await store.hit(rules("x"), 0);
  await store.hit(rules("x"), 0);
  await assert.rejects(
    () => store.hit(rules("x"), 0),
    (e) => e instanceof AppError && e.code === "rate_limited",
  );
  // Another email from the same address is its own pair (the address still counts).
  await store.hit(rules("y"), 0);
  await store.hit(rules("y"), 0);
  await assert.rejects(() => store.hit(rules("z"), 0), (e) => e instanceof AppError && e.status === 429);
  // A new window frees them.
  await store.hit(rules("x"), 60_000);
});
