/**
 * Small factories for the account and security API tests: every test opens its
 * own database (a clone of one migrated PGlite, or a fresh Postgres database),
 * builds the real app and makes its own users, so each runs alone, with
 * `--filter`, in any order.
 */
import { type Backend, backends } from "../helpers/backends.ts";
import { openTestContext, PASSWORD, type TestContext } from "../helpers/test-app.ts";

export { PASSWORD };

/** Limits high enough that only the rate-limit tests ever meet them. */
export const RELAXED_LIMITS = {
  AUTH_RATE_LIMIT_PER_MINUTE: "10000",
  AUTH_IP_RATE_LIMIT_PER_MINUTE: "10000",
  AUTH_EMAIL_RATE_LIMIT_PER_HOUR: "10000",
};

export const uniqueEmail = () => `u${crypto.randomUUID().slice(0, 12)}@example.com`;

/**
 * Registers `name` as one test per backend (`[pglite] <name>`, `[postgres] <name>`), each with
 * its own database and app built from `env`.
 */
export function apiTest(
  name: string,
  fn: (ctx: TestContext, backend: Backend) => Promise<void>,
  env: Record<string, string> = {},
) {
  for (const backend of backends()) {
    Deno.test({ name: `[${backend.name}] ${name}`, ignore: backend.skip }, async () => {
      const ctx = await openTestContext(backend, { ...RELAXED_LIMITS, ...env });
      try {
        await fn(ctx, backend);
      } finally {
        await ctx.close();
      }
    });
  }
}

/** A signed-up user: its email, password and first session. */
export async function signUp(
  ctx: TestContext,
  overrides: { email?: string; password?: string; full_name?: string } = {},
) {
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? PASSWORD;
  const session = await ctx.register({ ...overrides, email, password });
  return { email: email.trim().toLowerCase(), password, session, id: session.user.id };
}

/** A new session (token family) for an existing user. */
export async function signIn(ctx: TestContext, email: string, password = PASSWORD) {
  const res = await ctx.call("POST", "/api/auth/login", { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { access_token: string; refresh_token: string };
}

/** POST /api/auth/refresh with this refresh token. */
export function refreshWith(ctx: TestContext, refreshToken: string) {
  return ctx.call("POST", "/api/auth/refresh", { body: { refresh_token: refreshToken } });
}

/** GET /api/users/me's status with this access token. */
export async function meStatus(ctx: TestContext, accessToken: string): Promise<number> {
  return (await ctx.call("GET", "/api/users/me", { token: accessToken })).status;
}
