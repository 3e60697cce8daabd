/**
 * The auth lookup cache (server/auth/access-cache.ts) through the real app on
 * PGlite and Postgres: reads by a signed-in user may reuse the account row for
 * up to a second, but every change made through this process shows on the very
 * next request, and a change the process cannot see (another server on the
 * same database, here a write through the raw driver) within a second.
 */
import assert from "node:assert/strict";
import { setAdminRole } from "../../scripts/promote-admin.ts";
import { apiTest, generate, uploadPhoto, waitFor } from "../helpers/api-test.ts";
import type { TestContext } from "../helpers/test-app.ts";
import { failingModel } from "../helpers/test-models.ts";

const me = async (ctx: TestContext, token: string) => await ctx.call("GET", "/api/users/me", { token });

/** A write through the driver itself, below drizzle: what another process's write looks like to this one. */
async function rawWrite(ctx: TestContext, text: string, params: unknown[]): Promise<void> {
  // deno-lint-ignore no-explicit-any
  const client = (ctx.database.db as any).$client;
  if (ctx.database.kind === "pglite") await client.query(text, params);
  else await client.unsafe(text, params);
}

apiTest(
  "access cache: a session revoked where this process cannot see it is refused within a second",
  async (ctx) => {
    const user = await ctx.register();
    const token = user.access_token;
    assert.equal((await me(ctx, token)).status, 200);
    const { sid } = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    await rawWrite(ctx, "update refresh_tokens set revoked_at = now() where family = $1", [sid]);
    const revokedAt = performance.now();
    // Ten reads at a time, as a busy client sends them: they share loads and background reloads,
    // and still none of them may be answered from a lookup read more than a second ago.
    const refused = await waitFor("the revoked session to be refused", async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => me(ctx, token)));
      return answers.every((res) => res.status === 401) ? answers[0] : undefined;
    }, { timeoutMs: 5_000, intervalMs: 25 });
    const took = performance.now() - revokedAt;
    assert.equal(refused.body.detail, "Session has ended");
    // One second, plus one polling step and a request's time on a loaded machine.
    assert.ok(took <= 1_000 + 250, `refused after ${took.toFixed(0)} ms`);
  },
);

apiTest("access cache: changes made through the server show on the very next read", async (ctx) => {
  const user = await ctx.register();
  const token = user.access_token;
  assert.equal((await me(ctx, token)).body.credits, 10);

  // A charge (a write request) shows at once.
  const { photoId } = await uploadPhoto(ctx, token);
  const started = await generate(ctx, token, { photoId });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  assert.equal((await me(ctx, token)).body.credits, 8);

  // An admin promotion and its revocation through the same database handle (`deno task admin`).
  assert.equal((await setAdminRole(ctx.database.db, ctx.config, user.user.email, true)).ok, true);
  assert.equal((await me(ctx, token)).body.role, "admin");
  assert.equal((await setAdminRole(ctx.database.db, ctx.config, user.user.email, false)).ok, true);
  assert.equal((await me(ctx, token)).body.role, "user");
  assert.equal((await me(ctx, token)).body.credits, 8);

  // Logout, then the next read is refused.
  const out = await ctx.call("POST", "/api/auth/logout", { token, body: {} });
  assert.ok(out.status === 200 || out.status === 204, JSON.stringify(out.body));
  const after = await me(ctx, token);
  assert.equal(after.status, 401);
  assert.equal(after.body.detail, "Session has ended");
});

apiTest(
  "access cache: a refund by the job runner (no request) shows on the next read",
  async (ctx) => {
    const user = await ctx.register();
    const token = user.access_token;
    const { photoId } = await uploadPhoto(ctx, token);
    assert.equal((await generate(ctx, token, { photoId })).status, 202);
    assert.equal((await me(ctx, token)).body.credits, 8);
    await ctx.drain();
    assert.equal((await me(ctx, token)).body.credits, 10);
  },
  { model: () => failingModel(false) },
);
