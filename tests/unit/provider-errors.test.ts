/**
 * The shared HTTP-status table of the hosted providers: the same status gives the same kind
 * whichever provider answered, a provider's own rules come first, a wait the provider asked for
 * is kept only where the request is retried, and a request with no answer is a timeout or
 * unavailable.
 */
import assert from "node:assert/strict";
import { httpProviderError, transportError } from "../../server/imaging/hosted/provider-errors.ts";

Deno.test("provider errors: the common table by status, with the provider's name and code in the message", () => {
  const cases: [number, string][] = [
    [401, "auth"],
    [403, "auth"],
    [429, "rate_limited"],
    [408, "unavailable"],
    [500, "unavailable"],
    [503, "unavailable"],
    [400, "config"],
    [404, "config"],
    [409, "config"],
  ];
  for (const [status, kind] of cases) {
    const e = httpProviderError("Gemini", { status, message: "nope", reason: "R", retryAfterMs: 2000 });
    assert.equal(e.kind, kind, `status ${status}`);
    assert.equal(e.status, status);
    assert.equal(e.reason, "R");
    const retried = kind === "rate_limited" || kind === "unavailable";
    assert.equal(e.retryAfterMs, retried ? 2000 : undefined, `status ${status}`);
  }
  assert.equal(
    httpProviderError("Gemini", { status: 401, message: "bad key" }).message,
    "Gemini refused the API key (401): bad key",
  );
  assert.equal(
    httpProviderError("OpenAI", { status: 429, message: "slow down", reason: "rate_limit_exceeded" }).message,
    "OpenAI rate limit (429 rate_limit_exceeded): slow down",
  );
  assert.equal(
    httpProviderError("fal", { status: 502, message: "Bad Gateway" }).message,
    "fal unavailable (502): Bad Gateway",
  );
});

Deno.test("provider errors: a provider's own rules win over the common table", () => {
  const rules = [
    { when: (f: { reason?: string }) => f.reason === "moderation_blocked", kind: "blocked" as const },
    { when: (f: { status: number }) => f.status === 409, kind: "unavailable" as const },
  ];
  const blocked = httpProviderError(
    "OpenAI",
    { status: 400, message: "no", reason: "moderation_blocked" },
    rules,
  );
  assert.equal(blocked.kind, "blocked");
  assert.equal(blocked.message, "OpenAI declined the request (moderation_blocked): no");
  assert.equal(httpProviderError("OpenAI", { status: 409, message: "busy" }, rules).kind, "unavailable");
  assert.equal(httpProviderError("OpenAI", { status: 401, message: "key" }, rules).kind, "auth");
});

Deno.test("provider errors: no answer is a timeout when aborted, else unavailable", () => {
  const aborted = new AbortController();
  aborted.abort();
  const timeout = transportError("fal", new Error("socket closed"), aborted.signal);
  assert.equal(timeout.kind, "timeout");
  assert.equal(timeout.message, "fal did not answer in time: socket closed");
  assert.equal(
    transportError("fal", Object.assign(new Error("x"), { name: "TimeoutError" })).kind,
    "timeout",
  );
  const refused = transportError("Gemini", new TypeError("connection refused"));
  assert.equal(refused.kind, "unavailable");
  assert.equal(refused.message, "Gemini could not be reached: connection refused");
});
