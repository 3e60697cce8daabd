/**
 * Accounts and sessions through the real Hono app, on PGlite and Postgres.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { sign } from "hono/jwt";
import postgres from "postgres";
import { openDatabase } from "../../db/client.ts";
import { refreshTokens, users } from "../../db/schema.ts";
import { MESSAGES } from "../../server/auth/auth.schemas.ts";
import { hashRefreshToken, signAccessToken } from "../../server/auth/tokens.ts";
import { createApp } from "../../server/app.ts";
import { embeddedDatabaseInUse, setAdminRole } from "../../scripts/promote-admin.ts";
import { appVariant } from "../helpers/app-variant.ts";
import { backends } from "../helpers/backends.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { callApp, openTestContext, PASSWORD } from "../helpers/test-app.ts";

const uniqueEmail = () => `u${crypto.randomUUID().slice(0, 8)}@example.com`;
const b64url = (value: unknown) =>
  btoa(JSON.stringify(value)).replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");

/** Runs `fn` with console.error captured (and silenced); returns what it printed. */
async function captureConsoleError(fn: () => Promise<unknown>): Promise<string> {
  const original = console.error;
  const lines: string[] = [];
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  try {
    await fn();
  } finally {
    console.error = original;
  }
  return lines.join("\n");
}

/** The message of a rejected database call and of its driver-level cause. */
async function dbFailure(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (e) {
    const err = e as Error;
    return `${err.message} ${(err.cause as Error | undefined)?.message ?? ""}`;
  }
  assert.fail("expected the database to refuse the write");
}

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
        const loginCases: [Record<string, unknown>, string][] = [
          [{ email: "x@y.z" }, MESSAGES.passwordRequired],
          [{ password: PASSWORD }, MESSAGES.emailRequired],
          [{ email: "   ", password: PASSWORD }, MESSAGES.emailRequired],
          [{ email: "no-at-sign.example.com", password: PASSWORD }, MESSAGES.emailInvalid],
        ];
        for (const [body, message] of loginCases) {
          const login = await ctx.call("POST", "/api/auth/login", { body });
          assert.equal(login.status, 422, JSON.stringify(body));
          assert.equal(login.body.detail, message, JSON.stringify(body));
        }
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

        // Wrong algorithms: an unsigned token, and HS512 with the right secret.
        const claims = { sub: user.id, sid: crypto.randomUUID(), role: "user", exp: 9e9 };
        const unsigned = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims)}.`;
        const hs512 = await sign(claims, ctx.jwtSecret, "HS512");
        for (const token of [unsigned, hs512]) {
          const r = await ctx.call("GET", "/api/users/me", { token });
          assert.equal(r.status, 401);
          assert.equal(r.body.detail, "Could not validate credentials");
        }
      });

      await t.step("a validly signed token with a non-UUID sub or sid -> 401, not 500", async () => {
        const { user } = await ctx.register();
        const sid = crypto.randomUUID();
        for (const claims of [{ sub: "not-a-uuid", sid }, { sub: user.id, sid: "x" }, { sub: 42, sid }]) {
          const token = await sign(
            { ...claims, role: "user", exp: Math.floor(Date.now() / 1000) + 60 },
            ctx.jwtSecret,
          );
          const r = await ctx.call("GET", "/api/users/me", { token });
          assert.equal(r.status, 401, JSON.stringify(claims));
          assert.equal(r.body.detail, "Could not validate credentials");
        }
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

      await t.step("an expired refresh token -> 401", async () => {
        const s = await ctx.register();
        await ctx.database.db.update(refreshTokens).set({ expiresAt: new Date(Date.now() - 1000) })
          .where(eq(refreshTokens.tokenHash, await hashRefreshToken(s.refresh_token)));
        const r = await ctx.call("POST", "/api/auth/refresh", { body: { refresh_token: s.refresh_token } });
        assert.equal(r.status, 401);
        assert.equal(r.body.detail, "Invalid or expired refresh token");
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

      await t.step("logout with only the bearer (no body) revokes the session", async () => {
        const s = await ctx.register();
        const out = await ctx.call("POST", "/api/auth/logout", { token: s.access_token });
        assert.equal(out.status, 200);
        assert.equal((await ctx.call("GET", "/api/users/me", { token: s.access_token })).status, 401);
        const r = await ctx.call("POST", "/api/auth/refresh", { body: { refresh_token: s.refresh_token } });
        assert.equal(r.status, 401);
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
        // The deleted account no longer holds its email: it can be registered again, and
        // login finds the live account, not the deleted one.
        const again = await ctx.register({ email: email2.toUpperCase(), password: "Another1!pw" });
        assert.notEqual(again.user.id, s2.user.id);
        const login = await ctx.call("POST", "/api/auth/login", {
          body: { email: email2, password: "Another1!pw" },
        });
        assert.equal(login.status, 200);
        assert.equal(login.body.user.id, again.user.id);
      });

      await t.step("the database itself refuses a duplicate email, in any case or padding", async () => {
        const email = uniqueEmail();
        await ctx.register({ email });
        const row = (email: string) => ({ email, passwordHash: "x", fullName: "Direct Insert" });
        const db = ctx.database.db;
        assert.match(await dbFailure(db.insert(users).values(row(email))), /users_email_live_key/);
        for (const variant of [email.toUpperCase(), ` ${email}`, `${email} `]) {
          assert.match(
            await dbFailure(db.insert(users).values(row(variant))),
            /users_email_normalized/,
            variant,
          );
        }
        const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(users)
          .where(sql`lower(btrim(${users.email})) = ${email}`);
        assert.equal(n, 1);
      });

      await t.step("ADMIN_EMAILS -> role admin, credits read 999999, ledger untouched", async () => {
        const s = await ctx.register({ email: "Boss@Example.com" });
        assert.equal(s.user.role, "admin");
        assert.equal(s.user.credits, 999999);
        const credits = await ctx.call("GET", "/api/user/credits", { token: s.access_token });
        assert.deepEqual(credits.body, { credits: 999999 });
        const [row] = await ctx.database.db.select().from(users).where(eq(users.email, "boss@example.com"));
        assert.equal(row.credits, 10);
        assert.equal(row.role, "user"); // the list is read per request, never stored
      });

      await t.step(
        "removing an email from ADMIN_EMAILS demotes it: role user, the real balance",
        async () => {
          const { call } = appVariant(ctx, { WELCOME_CREDITS: "10" }); // the same database, no ADMIN_EMAILS
          const login = await call("POST", "/api/auth/login", {
            body: { email: "boss@example.com", password: PASSWORD },
          });
          assert.equal(login.status, 200);
          assert.equal(login.body.user.role, "user");
          assert.equal(login.body.user.credits, 10);
          const me = await call("GET", "/api/users/me", { token: login.body.access_token });
          assert.equal(me.body.role, "user");
          assert.equal(me.body.credits, 10);
        },
      );

      await t.step("`deno task admin [--revoke]`: promotes and demotes a stored admin", async () => {
        const email = uniqueEmail();
        const s = await ctx.register({ email });
        const me = async () => (await ctx.call("GET", "/api/users/me", { token: s.access_token })).body;
        const db = ctx.database.db;

        const promoted = await setAdminRole(db, ctx.config, email.toUpperCase(), true);
        assert.deepEqual(promoted, { ok: true, message: `${email} is now an admin` });
        assert.equal((await me()).role, "admin");
        assert.equal((await me()).credits, 999999);

        const revoked = await setAdminRole(db, ctx.config, email, false);
        assert.deepEqual(revoked, { ok: true, message: `${email} is no longer an admin` });
        assert.equal((await me()).role, "user");
        assert.equal((await me()).credits, 10);

        assert.equal((await setAdminRole(db, ctx.config, uniqueEmail(), true)).ok, false);
        // Revoking an ADMIN_EMAILS account says why it still is one.
        const envAdmin = await setAdminRole(db, ctx.config, "boss@example.com", false);
        assert.equal(envAdmin.ok, true);
        assert.match(envAdmin.message, /ADMIN_EMAILS/);
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

      await t.step(
        "a large Content-Length is refused with 413 up front, without reading the body",
        async () => {
          // The body never ends: only a refusal based on the header can answer at all.
          let pulled = 0;
          const body = new ReadableStream<Uint8Array>({
            pull: () => {
              pulled++;
            },
          });
          const res = await ctx.app.request("/api/auth/register", {
            method: "POST",
            headers: { "Content-Type": "application/json", "Content-Length": String(50 * 1024 * 1024) },
            body,
          });
          assert.equal(res.status, 413);
          assert.deepEqual(await res.json(), { detail: "Request body too large" });
          assert.ok(pulled <= 1, `the body was read (${pulled} pulls)`);
          await body.cancel();
        },
      );

      await t.step(
        "auth JSON routes given another Content-Type -> 415, not a 422 listing every field",
        async () => {
          for (const path of ["/api/auth/register", "/api/auth/login", "/api/auth/refresh"]) {
            for (const headers of [{ "Content-Type": "text/plain" }, {} as Record<string, string>]) {
              const res = await ctx.call("POST", path, {
                headers,
                body: headers["Content-Type"] ? '{"email":"a@b.co"}' : undefined,
              });
              assert.equal(res.status, 415, `${path} ${JSON.stringify(headers)}`);
              assert.deepEqual(res.body, { detail: "Content-Type must be application/json" });
            }
          }
          const charset = await ctx.call("POST", "/api/auth/login", {
            headers: { "Content-Type": "application/json; charset=utf-8" },
            body: { email: uniqueEmail(), password: PASSWORD },
          });
          assert.equal(charset.status, 401);
        },
      );

      await t.step("a malformed percent-escape in the path -> 400 JSON, not 500", async () => {
        const res = await ctx.call("GET", "/%E0%A4%A");
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { detail: "Malformed URL" });
      });

      await t.step("a failing query is logged with its SQL but never its parameters", async () => {
        const secret = `$argon2id$v=19$m=19456,t=2,p=1$SECRET-${crypto.randomUUID()}`;
        const probe = createApp({
          db: ctx.database.db,
          config: ctx.config,
          jwtSecret: ctx.jwtSecret,
          storage: ctx.storage,
          model: ctx.model,
        });
        // credits -1 breaks users_credits_nonnegative: a real driver error carrying the hash.
        probe.post("/test/failing-query", async () => {
          await ctx.database.db.insert(users).values({
            email: uniqueEmail(),
            passwordHash: secret,
            fullName: "Log Probe",
            credits: -1,
          });
          return new Response("unreachable");
        });
        let res: Awaited<ReturnType<ReturnType<typeof callApp>>> | undefined;
        const printed = await captureConsoleError(async () => {
          res = await callApp(probe)("POST", "/test/failing-query");
        });
        assert.equal(res?.status, 500);
        assert.deepEqual(res?.body, { detail: "Internal Server Error" });
        assert.match(printed, /unhandled error/);
        assert.match(printed, /Failed query: insert into \\"users\\"/);
        assert.match(printed, /users_credits_nonnegative/);
        assert.ok(!printed.includes("SECRET-"), printed);
        assert.ok(!printed.includes("params"), printed);
      });

      await t.step("unknown API path -> 404 JSON", async () => {
        const res = await ctx.call("GET", "/api/nope");
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { detail: "Not found" });
      });

      await t.step("rate limits", async (t) => {
        const limited = (res: { status: number; body: { detail?: string }; headers: Headers }) => {
          assert.equal(res.status, 429);
          assert.match(res.body.detail ?? "", /Too many attempts/);
          const retry = Number(res.headers.get("Retry-After"));
          assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
        };
        let ipCounter = 0;
        const freshIp = () => `198.51.100.${++ipCounter}`;

        await t.step("register per email, whatever its case or padding: the 4th -> 429", async () => {
          const { call } = appVariant(ctx, { AUTH_RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "true" });
          const email = uniqueEmail();
          const variants = [email, email.toUpperCase(), `  ${email} `];
          const statuses = [];
          for (const variant of variants) {
            const r = await call("POST", "/api/auth/register", {
              headers: { "X-Forwarded-For": freshIp() },
              body: { email: variant, password: PASSWORD, full_name: "R" },
            });
            statuses.push(r.status);
          }
          assert.deepEqual(statuses, [201, 409, 409]);
          limited(
            await call("POST", "/api/auth/register", {
              headers: { "X-Forwarded-For": freshIp() },
              body: { email, password: PASSWORD, full_name: "R" },
            }),
          );
        });

        await t.step("login per email from rotating addresses: the 4th -> 429", async () => {
          const { call } = appVariant(ctx, { AUTH_RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "true" });
          const email = uniqueEmail();
          const attempt = () =>
            call("POST", "/api/auth/login", {
              headers: { "X-Forwarded-For": freshIp() },
              body: { email, password: "Wrong1!pass" },
            });
          for (let i = 0; i < 3; i++) assert.equal((await attempt()).status, 401);
          limited(await attempt());
        });

        await t.step(
          "TRUST_PROXY: rotating the leftmost X-Forwarded-For entry does not escape the IP limit",
          async () => {
            const { call } = appVariant(ctx, { AUTH_RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "true" });
            const attempt = () =>
              call("POST", "/api/auth/login", {
                // The client wrote the left entry; our proxy appended the right one.
                headers: { "X-Forwarded-For": `${freshIp()}, 203.0.113.9` },
                body: { email: uniqueEmail(), password: "Wrong1!pass" },
              });
            for (let i = 0; i < 3; i++) assert.equal((await attempt()).status, 401);
            limited(await attempt());
          },
        );

        await t.step("without TRUST_PROXY, X-Forwarded-For is ignored", async () => {
          const { call } = appVariant(ctx, { AUTH_RATE_LIMIT_PER_MINUTE: "3" });
          const attempt = () =>
            call("POST", "/api/auth/register", {
              headers: { "X-Forwarded-For": freshIp() },
              body: { email: uniqueEmail(), password: PASSWORD, full_name: "R" },
            });
          for (let i = 0; i < 3; i++) assert.equal((await attempt()).status, 201);
          limited(await attempt());
        });

        await t.step("a 64 KB 'email' is limited like any other and never answers 500", async () => {
          const { call } = appVariant(ctx, { AUTH_RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "true" });
          const email = `${"a".repeat(60_000)}@example.com`;
          const attempt = () =>
            call("POST", "/api/auth/login", {
              headers: { "X-Forwarded-For": freshIp() },
              body: { email, password: "x" },
            });
          for (let i = 0; i < 3; i++) assert.equal((await attempt()).status, 422);
          limited(await attempt());
        });
      });

      await t.step("GET /api/health -> 200, and 503 once the database is gone", async () => {
        const ok = await ctx.call("GET", "/api/health");
        assert.equal(ok.status, 200);
        assert.deepEqual(ok.body, { status: "ok" });
        // Close the database under the running app; ctx.close() then reuses this close.
        const close = ctx.database.close;
        let closing: Promise<void> | undefined;
        ctx.database.close = () => closing ??= close();
        await ctx.database.close();
        const down = await ctx.call("GET", "/api/health");
        assert.equal(down.status, 503);
        assert.deepEqual(down.body, { status: "error", detail: "Database unavailable" });
      });
    } finally {
      await ctx.close();
    }
  });
}

Deno.test({
  name: "[postgres] two processes migrating one fresh database at once both succeed",
  ignore: !Deno.env.get("TEST_DATABASE_URL"),
}, async () => {
  const base = Deno.env.get("TEST_DATABASE_URL")!;
  const name = `styletwin_migrate_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const opened = await Promise.allSettled([1, 2, 3].map(() => openDatabase({ url: url.toString() })));
    try {
      for (const o of opened) {
        assert.equal(o.status, "fulfilled", o.status === "rejected" ? String(o.reason) : "");
      }
      const check = postgres(url.toString(), { max: 1 });
      const [{ n }] = await check`select count(*)::int as n from drizzle.__drizzle_migrations`;
      await check.end();
      const journalUrl = new URL("../../migrations/meta/_journal.json", import.meta.url);
      const journal = JSON.parse(await Deno.readTextFile(journalUrl));
      assert.equal(n, journal.entries.length); // each migration applied exactly once
    } finally {
      for (const o of opened) if (o.status === "fulfilled") await o.value.close();
    }
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
});

Deno.test("`deno task admin` refuses while a live server holds the embedded database", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "styletwin-pid-" });
  // A live process that is neither this test nor its parent stands in for the server.
  const server = new Deno.Command("sleep", { args: ["60"] }).spawn();
  try {
    await Deno.writeTextFile(`${dataDir}/server.pid`, `${server.pid}\n`);
    const refusal = embeddedDatabaseInUse({ databaseUrl: undefined, dataDir });
    assert.match(refusal ?? "", new RegExp(`pid ${server.pid}.*Stop the server first`));
    // Postgres is shared by design: no refusal.
    assert.equal(embeddedDatabaseInUse({ databaseUrl: "postgres://x@127.0.0.1/db", dataDir }), null);
    server.kill("SIGKILL");
    await server.status;
    // A stale file (the server died) does not block the task.
    assert.equal(embeddedDatabaseInUse({ databaseUrl: undefined, dataDir }), null);
  } finally {
    try {
      server.kill("SIGKILL");
    } catch { /* already gone */ }
    await server.status;
    await Deno.remove(dataDir, { recursive: true });
  }
});
