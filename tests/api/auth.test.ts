/**
 * Accounts and sessions through the real Hono app, on PGlite and Postgres.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { sign } from "hono/jwt";
import { users } from "../../db/schema.ts";
import { MESSAGES } from "../../server/auth/auth.schemas.ts";
import { signAccessToken } from "../../server/auth/tokens.ts";
import { backends } from "../helpers/backends.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { openTestContext, PASSWORD } from "../helpers/test-app.ts";

const uniqueEmail = () => `u${crypto.randomUUID().slice(0, 8)}@example.com`;

for (const backend of backends()) {
  Deno.test({ name: `[${backend.name}] auth: accounts and sessions`, ignore: backend.skip }, async (t) => {
    const ctx = await openTestContext(backend, {
      ADMIN_EMAILS: "boss@example.com",
      WELCOME_CREDITS: "10",
      AUTH_RATE_LIMIT_PER_MINUTE: "1000",
    });
    try {
      await t.step("register -> tokens, user, welcome credits; email trimmed and lower-cased", async () => {
        const res = await ctx.call("POST", "/api/auth/register", {
          body: { email: "  Mixed.Case@Example.COM ", password: PASSWORD, full_name: "  Ada Lovelace " },
        });
        assert.equal(res.status, 201);
        assert.equal(typeof res.body.access_token, "string");
        assert.equal(typeof res.body.refresh_token, "string");
        const u = res.body.user;
        assert.equal(u.email, "mixed.case@example.com");
        assert.equal(u.full_name, "Ada Lovelace");
        assert.equal(u.credits, 10);
        assert.equal(u.role, "user");
        assert.equal(u.is_active, true);
        assert.equal(u.is_verified, false);
        assert.equal(u.profile_image_url, null);
        assert.ok(!Number.isNaN(Date.parse(u.created_at)));
        assert.deepEqual(
          Object.keys(u).sort(),
          [
            "created_at",
            "credits",
            "email",
            "full_name",
            "id",
            "is_active",
            "is_verified",
            "profile_image_url",
            "role",
          ],
        );
        assert.ok(!JSON.stringify(res.body).includes("password"));
      });

      await t.step("duplicate email in another case -> 409", async () => {
        const res = await ctx.call("POST", "/api/auth/register", {
          body: { email: "MIXED.case@example.com", password: PASSWORD, full_name: "Someone" },
        });
        assert.equal(res.status, 409);
        assert.equal(res.body.detail, "Email already registered");
      });

      await t.step("each validation message -> 422 with detail", async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ password: PASSWORD, full_name: "A" }, MESSAGES.emailRequired],
          [{ email: "", password: PASSWORD, full_name: "A" }, MESSAGES.emailRequired],
          [{ email: "not-an-email", password: PASSWORD, full_name: "A" }, MESSAGES.emailInvalid],
          [{ email: uniqueEmail(), full_name: "A" }, MESSAGES.passwordRequired],
          [{ email: uniqueEmail(), password: "Aa1!", full_name: "A" }, MESSAGES.passwordShort],
          [{ email: uniqueEmail(), password: "alllowercase1!", full_name: "A" }, MESSAGES.passwordWeak],
          [{ email: uniqueEmail(), password: "NoDigits!!", full_name: "A" }, MESSAGES.passwordWeak],
          [{ email: uniqueEmail(), password: "NoSpecial12", full_name: "A" }, MESSAGES.passwordWeak],
          [{ email: uniqueEmail(), password: PASSWORD, full_name: "   " }, MESSAGES.fullNameRequired],
          [{ email: uniqueEmail(), password: PASSWORD }, MESSAGES.fullNameRequired],
        ];
        for (const [body, message] of cases) {
          const res = await ctx.call("POST", "/api/auth/register", { body });
          assert.equal(res.status, 422, JSON.stringify(body));
          assert.equal(res.body.detail, message, JSON.stringify(body));
        }
        const login = await ctx.call("POST", "/api/auth/login", { body: { email: "x@y.z" } });
        assert.equal(login.status, 422);
        assert.equal(login.body.detail, MESSAGES.passwordRequired);
        const malformed = await ctx.call("POST", "/api/auth/login", { body: "{not json" });
        assert.equal(malformed.status, 400);
        assert.equal(typeof malformed.body.detail, "string");
        // No partial write: nothing was created by the refused registrations.
        const [{ n }] = await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(users);
        assert.equal(n, 1);
      });

      await t.step("login, me, wrong credentials give the same 401", async () => {
        const email = uniqueEmail();
        await ctx.register({ email });
        const ok = await ctx.call("POST", "/api/auth/login", {
          body: { email: email.toUpperCase(), password: PASSWORD },
        });
        assert.equal(ok.status, 200);
        const me = await ctx.call("GET", "/api/users/me", { token: ok.body.access_token });
        assert.equal(me.status, 200);
        assert.equal(me.body.email, email);
        const wrongPassword = await ctx.call("POST", "/api/auth/login", {
          body: { email, password: "Wrong1!pass" },
        });
        const noAccount = await ctx.call("POST", "/api/auth/login", {
          body: { email: uniqueEmail(), password: PASSWORD },
        });
        assert.equal(wrongPassword.status, 401);
        assert.equal(noAccount.status, 401);
        assert.equal(wrongPassword.body.detail, noAccount.body.detail);
      });

      await t.step("missing, forged, expired and wrong-algorithm tokens -> 401", async () => {
        const { access_token, user } = await ctx.register();
        assert.equal((await ctx.call("GET", "/api/users/me")).status, 401);
        assert.equal(
          (await ctx.call("GET", "/api/users/me", { headers: { Authorization: "Basic abc" } })).status,
          401,
        );
        const [h, p] = access_token.split(".");
        const tampered = `${h}.${p.slice(0, -2)}xx.${access_token.split(".")[2]}`;
        assert.equal((await ctx.call("GET", "/api/users/me", { token: tampered })).status, 401);
        const forged = await sign(
          { sub: user.id, sid: "x", role: "admin", exp: 9e9 },
          "another-secret-0123456789abcdef0",
          "HS256",
        );
        assert.equal((await ctx.call("GET", "/api/users/me", { token: forged })).status, 401);
        const expired = await signAccessToken(
          { sub: user.id, sid: crypto.randomUUID(), role: "user" },
          ctx.jwtSecret,
          Date.now() - 16 * 60_000,
        );
        const res = await ctx.call("GET", "/api/users/me", { token: expired });
        assert.equal(res.status, 401);
        assert.equal(typeof res.body.detail, "string");
      });

      await t.step("refresh rotates; reusing a rotated token revokes the whole family", async () => {
        const first = await ctx.register();
        const r1 = await ctx.call("POST", "/api/auth/refresh", {
          body: { refresh_token: first.refresh_token },
        });
        assert.equal(r1.status, 200);
        assert.notEqual(r1.body.refresh_token, first.refresh_token);
        assert.equal((await ctx.call("GET", "/api/users/me", { token: r1.body.access_token })).status, 200);
        // The old token is presented again: theft. The family dies.
        const reuse = await ctx.call("POST", "/api/auth/refresh", {
          body: { refresh_token: first.refresh_token },
        });
        assert.equal(reuse.status, 401);
        const r2 = await ctx.call("POST", "/api/auth/refresh", {
          body: { refresh_token: r1.body.refresh_token },
        });
        assert.equal(r2.status, 401);
        assert.equal((await ctx.call("GET", "/api/users/me", { token: r1.body.access_token })).status, 401);
        const bogus = await ctx.call("POST", "/api/auth/refresh", { body: { refresh_token: "nope" } });
        assert.equal(bogus.status, 401);
        const missing = await ctx.call("POST", "/api/auth/refresh", { body: {} });
        assert.equal(missing.status, 422);
        assert.equal(missing.body.detail, "No refresh token available");
      });

      await t.step("logout revokes the session: access and refresh tokens stop working", async () => {
        const s = await ctx.register();
        const out = await ctx.call("POST", "/api/auth/logout", {
          token: s.access_token,
          body: { refresh_token: s.refresh_token },
        });
        assert.equal(out.status, 200);
        assert.equal((await ctx.call("GET", "/api/users/me", { token: s.access_token })).status, 401);
        const r = await ctx.call("POST", "/api/auth/refresh", { body: { refresh_token: s.refresh_token } });
        assert.equal(r.status, 401);
        assert.equal((await ctx.call("POST", "/api/auth/logout")).status, 401);
      });

      await t.step("a deactivated or deleted user cannot log in or refresh", async () => {
        const email = uniqueEmail();
        const s = await ctx.register({ email });
        await ctx.database.db.update(users).set({ isActive: false }).where(eq(users.email, email));
        assert.equal(
          (await ctx.call("POST", "/api/auth/login", { body: { email, password: PASSWORD } })).status,
          401,
        );
        assert.equal(
          (await ctx.call("POST", "/api/auth/refresh", { body: { refresh_token: s.refresh_token } })).status,
          401,
        );
        assert.equal((await ctx.call("GET", "/api/users/me", { token: s.access_token })).status, 401);
        const email2 = uniqueEmail();
        const s2 = await ctx.register({ email: email2 });
        await ctx.database.db.update(users).set({ deletedAt: new Date() }).where(eq(users.email, email2));
        assert.equal(
          (await ctx.call("POST", "/api/auth/login", { body: { email: email2, password: PASSWORD } })).status,
          401,
        );
        assert.equal(
          (await ctx.call("POST", "/api/auth/refresh", { body: { refresh_token: s2.refresh_token } })).status,
          401,
        );
      });

      await t.step("ADMIN_EMAILS -> role admin, credits read 999999, ledger untouched", async () => {
        const s = await ctx.register({ email: "Boss@Example.com" });
        assert.equal(s.user.role, "admin");
        assert.equal(s.user.credits, 999999);
        const credits = await ctx.call("GET", "/api/user/credits", { token: s.access_token });
        assert.deepEqual(credits.body, { credits: 999999 });
        const [row] = await ctx.database.db.select().from(users).where(eq(users.email, "boss@example.com"));
        assert.equal(row.credits, 10);
      });

      await t.step("users.credits equals the sum of each user's ledger rows", async () => {
        const audit = await ledgerMismatches(ctx.database.db);
        assert.ok(audit.users >= 5);
        assert.deepEqual(audit.mismatches, []);
        for (const entry of audit.entriesByUser.values()) assert.equal(entry.entries, 1); // the welcome grant
      });

      await t.step("oversized JSON bodies -> 413 before parsing", async () => {
        const res = await ctx.call("POST", "/api/auth/login", {
          body: JSON.stringify({ email: "a@b.co", password: "x".repeat(200_000) }),
        });
        assert.equal(res.status, 413);
        assert.equal(typeof res.body.detail, "string");
      });

      await t.step("unknown API path -> 404 JSON", async () => {
        const res = await ctx.call("GET", "/api/nope");
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { detail: "Not found" });
      });
    } finally {
      await ctx.close();
    }
  });

  Deno.test({ name: `[${backend.name}] auth: rate limits`, ignore: backend.skip }, async (t) => {
    const ctx = await openTestContext(backend, { AUTH_RATE_LIMIT_PER_MINUTE: "3" });
    try {
      await t.step("per email: the 4th login in a minute -> 429 with Retry-After", async () => {
        const email = uniqueEmail();
        for (let i = 0; i < 3; i++) {
          const r = await ctx.call("POST", "/api/auth/login", { body: { email, password: "Wrong1!pass" } });
          assert.equal(r.status, 401);
        }
        const limited = await ctx.call("POST", "/api/auth/login", {
          body: { email, password: "Wrong1!pass" },
        });
        assert.equal(limited.status, 429);
        assert.match(limited.body.detail, /Too many attempts/);
        const retry = Number(limited.headers.get("Retry-After"));
        assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      });
      await t.step("per IP: registrations from one address are capped", async () => {
        const headers = { "X-Forwarded-For": "203.0.113.9" }; // ignored without TRUST_PROXY: all tests share "unknown"
        let limited = 0;
        for (let i = 0; i < 5; i++) {
          const r = await ctx.call("POST", "/api/auth/register", {
            headers,
            body: { email: uniqueEmail(), password: PASSWORD, full_name: "R" },
          });
          if (r.status === 429) limited++;
        }
        assert.ok(limited >= 2, `expected 429s, got ${limited}`);
      });
    } finally {
      await ctx.close();
    }
  });
}
