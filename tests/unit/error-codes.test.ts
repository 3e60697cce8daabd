/** The client branches on the server's error `code`, not on the wording of `detail`. */
import assert from "node:assert/strict";
import { ApiError, createApiClient, ERROR_CODES } from "../../client/api/http.ts";
import { AppError, DEFAULT_CODES } from "../../server/http/errors.ts";
import { json, memoryTokens as tokens } from "./client-fakes.ts";

Deno.test("error codes: ApiError carries the server's code beside its detail", async () => {
  const api = createApiClient({
    tokens: tokens("a", "r"),
    fetch: () => Promise.resolve(json({ detail: "any wording at all", code: "insufficient_credits" }, 402)),
  });
  const err = await api.json("/api/generate", { method: "POST", json: {} }).catch((e) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, ERROR_CODES.insufficientCredits);
  assert.equal(err.detail, "any wording at all");
});

Deno.test("error codes: a refresh answered rate_limited keeps the session", async () => {
  const store = tokens("old", "r");
  let ended = 0;
  const api = createApiClient({
    tokens: store,
    onSessionEnded: () => ended++,
    fetch: (input) =>
      Promise.resolve(
        String(input) === "/api/auth/refresh"
          ? json({ detail: "Too many attempts. Please try again in 5 seconds.", code: "rate_limited" }, 429)
          : json({ detail: "Could not validate credentials", code: "unauthorized" }, 401),
      ),
  });
  assert.equal(await api.refresh(), false);
  assert.equal(ended, 0);
  assert.equal(store.t.refresh, "r");
});

Deno.test("error codes: the client's codes are ones the server sends", () => {
  const serverCodes = new Set([
    ...Object.values(DEFAULT_CODES),
    "invalid_credentials",
    "invalid_refresh_token",
    "refresh_token_reused",
    "password_too_common",
    "email_taken",
  ]);
  for (const code of Object.values(ERROR_CODES)) assert.ok(serverCodes.has(code), code);
  assert.equal(new AppError(402, "x").code, "insufficient_credits");
  assert.equal(new AppError(429, "x", { code: "rate_limited" }).code, "rate_limited");
});
