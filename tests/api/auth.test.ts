/**
 * Accounts and sessions through the real Hono app, on PGlite and Postgres. Each test builds
 * its own database and users (security-context.ts), so any one runs alone with --filter.
 * Expected user-facing texts are the product's literal strings.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { sign } from "hono/jwt";
import postgres from "postgres";
import { openDatabase } from "../../db/client.ts";
import { refreshTokens, users } from "../../db/schema.ts";
import { hashRefreshToken, signAccessToken } from "../../server/auth/tokens.ts";
import { createApp } from "../../server/app.ts";
import { setAdminRole } from "../../scripts/promote-admin.ts";
import { riskySettings } from "../../server/startup-warnings.ts";
import { appVariant } from "../helpers/app-variant.ts";
import { ledgerMismatches } from "../helpers/ledger.ts";
import { callApp } from "../helpers/test-app.ts";
import { apiTest, meStatus, PASSWORD, refreshWith, signIn, signUp, uniqueEmail } from "./security-context.ts";

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

apiTest("auth: register -> tokens, user, welcome credits; email trimmed and lower-cased", async (ctx) => {
  const email = uniqueEmail();
  const res = await ctx.call("POST", "/api/auth/register", {
    body: { email: `  ${email.toUpperCase()} `, password: PASSWORD, full_name: "  Ada Lovelace " },
  });
  assert.equal(res.status, 201);
  assert.equal(typeof res.body.access_token, "string");
  assert.equal(typeof res.body.refresh_token, "string");
  const u = res.body.user;
  assert.equal(u.email, email);
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
}, { WELCOME_CREDITS: "10" });

apiTest("auth: a duplicate email in another case -> 409 email_taken", async (ctx) => {
  const { email } = await signUp(ctx);
  const res = await ctx.call("POST", "/api/auth/register", {
    body: { email: email.toUpperCase(), password: PASSWORD, full_name: "Someone" },
  });
  assert.equal(res.status, 409);
  assert.deepEqual(res.body, { detail: "Email already registered", code: "email_taken" });
});

apiTest("auth: each register validation message -> 422 validation_error, nothing written", async (ctx) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ password: PASSWORD, full_name: "A" }, "Email is required"],
    [{ email: "", password: PASSWORD, full_name: "A" }, "Email is required"],
    [{ email: "not-an-email", password: PASSWORD, full_name: "A" }, "Email is invalid"],
    [{ email: "a@b.", password: PASSWORD, full_name: "A" }, "Email is invalid"],
    [{ email: "a b@c.de", password: PASSWORD, full_name: "A" }, "Email is invalid"],
    [{ email: "a@b@c.de", password: PASSWORD, full_name: "A" }, "Email is invalid"],
    [{ email: uniqueEmail(), full_name: "A" }, "Password is required"],
    [{ email: uniqueEmail(), password: "Aa1!", full_name: "A" }, "Password must be at least 8 characters"],
    [
      { email: uniqueEmail(), password: "alllowercase1!", full_name: "A" },
      "Password must contain uppercase, lowercase, number, and special character",
    ],
    [
      { email: uniqueEmail(), password: "NoDigits!!", full_name: "A" },
      "Password must contain uppercase, lowercase, number, and special character",
    ],
    [
      { email: uniqueEmail(), password: "NoSpecial12", full_name: "A" },
      "Password must contain uppercase, lowercase, number, and special character",
    ],
    [{ email: uniqueEmail(), password: PASSWORD, full_name: "   " }, "Full name is required"],
    [{ email: uniqueEmail(), password: PASSWORD }, "Full name is required"],
  ];
  for (const [body, message] of cases) {
    const res = await ctx.call("POST", "/api/auth/register", { body });
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.deepEqual(res.body, { detail: message, code: "validation_error" }, JSON.stringify(body));
  }
  const [{ n }] = await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(users);
  assert.equal(n, 0);
});

apiTest("auth: each login validation message -> 422; malformed JSON -> 400 bad_request", async (ctx) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ email: "x@y.z" }, "Password is required"],
    [{ password: PASSWORD }, "Email is required"],
    [{ email: "   ", password: PASSWORD }, "Email is required"],
    [{ email: "no-at-sign.example.com", password: PASSWORD }, "Email is invalid"],
  ];
  for (const [body, message] of cases) {
    const res = await ctx.call("POST", "/api/auth/login", { body });
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.deepEqual(res.body, { detail: message, code: "validation_error" }, JSON.stringify(body));
  }
  const malformed = await ctx.call("POST", "/api/auth/login", { body: "{not json" });
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.code, "bad_request");
  assert.equal(typeof malformed.body.detail, "string");
});

apiTest("auth: login and me; a wrong password and an unknown email give the same 401", async (ctx) => {
  const { email } = await signUp(ctx);
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
  assert.deepEqual(wrongPassword.body, {
    detail: "Incorrect email or password",
    code: "invalid_credentials",
  });
  assert.deepEqual(noAccount.body, wrongPassword.body);
});

apiTest("auth: missing, forged, expired and wrong-algorithm tokens -> 401", async (ctx) => {
  const { session: { access_token, user } } = await signUp(ctx);
  const missing = await ctx.call("GET", "/api/users/me");
  assert.equal(missing.status, 401);
  assert.equal(missing.body.code, "unauthorized");
  assert.equal(
    (await ctx.call("GET", "/api/users/me", { headers: { Authorization: "Basic abc" } })).status,
    401,
  );
  const [h, p, s] = access_token.split(".");
  assert.equal(await meStatus(ctx, `${h}.${p.slice(0, -2)}xx.${s}`), 401);
  const forged = await sign(
    { sub: user.id, sid: crypto.randomUUID(), role: "admin", exp: 9e9 },
    "another-secret-0123456789abcdef0",
    "HS256",
  );
  assert.equal(await meStatus(ctx, forged), 401);
  const expired = await signAccessToken(
    { sub: user.id, sid: crypto.randomUUID(), role: "user" },
    ctx.jwtSecret,
    Date.now() - 16 * 60_000,
  );
  assert.equal(await meStatus(ctx, expired), 401);
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

apiTest("auth: a validly signed token with a non-UUID sub or sid -> 401, not 500", async (ctx) => {
  const { id } = await signUp(ctx);
  const sid = crypto.randomUUID();
  for (const claims of [{ sub: "not-a-uuid", sid }, { sub: id, sid: "x" }, { sub: 42, sid }]) {
    const token = await sign(
      { ...claims, role: "user", exp: Math.floor(Date.now() / 1000) + 60 },
      ctx.jwtSecret,
    );
    const r = await ctx.call("GET", "/api/users/me", { token });
    assert.equal(r.status, 401, JSON.stringify(claims));
    assert.equal(r.body.detail, "Could not validate credentials");
  }
});

apiTest(
  "auth: refresh rotates; a rotated token replayed after the grace window revokes the family",
  async (ctx) => {
    const { session } = await signUp(ctx);
    const r1 = await refreshWith(ctx, session.refresh_token);
    assert.equal(r1.status, 200);
    assert.notEqual(r1.body.refresh_token, session.refresh_token);
    assert.equal(await meStatus(ctx, r1.body.access_token), 200);
    // The old token shows up again a minute after its rotation: it was copied.
    await ctx.database.db.update(refreshTokens).set({ rotatedAt: new Date(Date.now() - 60_000) })
      .where(eq(refreshTokens.tokenHash, await hashRefreshToken(session.refresh_token)));
    const reuse = await refreshWith(ctx, session.refresh_token);
    assert.equal(reuse.status, 401);
    assert.deepEqual(reuse.body, {
      detail: "Refresh token reuse detected; please sign in again",
      code: "refresh_token_reused",
    });
    assert.equal((await refreshWith(ctx, r1.body.refresh_token)).status, 401);
    assert.equal(await meStatus(ctx, r1.body.access_token), 401);
    const bogus = await refreshWith(ctx, "nope");
    assert.deepEqual(bogus.body, {
      detail: "Invalid or expired refresh token",
      code: "invalid_refresh_token",
    });
    const missing = await ctx.call("POST", "/api/auth/refresh", { body: {} });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.detail, "No refresh token available");
  },
);

apiTest("auth: two tabs refreshing one token at once both stay signed in (grace window)", async (ctx) => {
  const { session } = await signUp(ctx);
  const [a, b] = await Promise.all([
    refreshWith(ctx, session.refresh_token),
    refreshWith(ctx, session.refresh_token),
  ]);
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(b.status, 200, JSON.stringify(b.body));
  assert.notEqual(a.body.refresh_token, b.body.refresh_token);
  for (const tab of [a, b]) {
    assert.equal(await meStatus(ctx, tab.body.access_token), 200);
    const next = await refreshWith(ctx, tab.body.refresh_token);
    assert.equal(next.status, 200);
    assert.equal(await meStatus(ctx, next.body.access_token), 200);
  }
});

apiTest("auth: a refresh retried after a lost response is answered, not treated as theft", async (ctx) => {
  const { session } = await signUp(ctx);
  const lost = await refreshWith(ctx, session.refresh_token); // the client never saw this answer
  assert.equal(lost.status, 200);
  const retry = await refreshWith(ctx, session.refresh_token);
  assert.equal(retry.status, 200);
  assert.equal(await meStatus(ctx, retry.body.access_token), 200);
  assert.equal((await refreshWith(ctx, retry.body.refresh_token)).status, 200);
});

apiTest("auth: an expired refresh token -> 401", async (ctx) => {
  const { session } = await signUp(ctx);
  await ctx.database.db.update(refreshTokens).set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(refreshTokens.tokenHash, await hashRefreshToken(session.refresh_token)));
  const r = await refreshWith(ctx, session.refresh_token);
  assert.equal(r.status, 401);
  assert.equal(r.body.detail, "Invalid or expired refresh token");
});

apiTest("auth: logout revokes the session: access and refresh tokens stop working", async (ctx) => {
  const { session } = await signUp(ctx);
  const out = await ctx.call("POST", "/api/auth/logout", {
    token: session.access_token,
    body: { refresh_token: session.refresh_token },
  });
  assert.equal(out.status, 200);
  assert.equal(await meStatus(ctx, session.access_token), 401);
  assert.equal((await refreshWith(ctx, session.refresh_token)).status, 401);
  assert.equal((await ctx.call("POST", "/api/auth/logout")).status, 401);
});

apiTest(
  "auth: logout with only the bearer (no body) revokes the session, not the user's others",
  async (ctx) => {
    const { email, session } = await signUp(ctx);
    const other = await signIn(ctx, email);
    const out = await ctx.call("POST", "/api/auth/logout", { token: session.access_token });
    assert.equal(out.status, 200);
    assert.equal(await meStatus(ctx, session.access_token), 401);
    assert.equal((await refreshWith(ctx, session.refresh_token)).status, 401);
    assert.equal(await meStatus(ctx, other.access_token), 200);
  },
);

apiTest("auth: logout with a lapsed access token signs out by the refresh token in the body", async (ctx) => {
  const { id, session } = await signUp(ctx);
  const { sid } = JSON.parse(atob(session.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  // The access token of this very session, expired (as after 15 minutes).
  const lapsed = await sign(
    { sub: id, sid, role: "user", exp: Math.floor(Date.now() / 1000) - 60 },
    ctx.jwtSecret,
  );
  assert.equal(await meStatus(ctx, lapsed), 401);
  const out = await ctx.call("POST", "/api/auth/logout", {
    token: lapsed,
    body: { refresh_token: session.refresh_token },
  });
  assert.equal(out.status, 200, JSON.stringify(out.body));
  assert.equal((await refreshWith(ctx, session.refresh_token)).status, 401);
  assert.equal(await meStatus(ctx, session.access_token), 401);
  // A refresh token alone (no bearer) does it too; an unknown one is 401.
  const other = await signUp(ctx);
  const alone = await ctx.call("POST", "/api/auth/logout", {
    body: { refresh_token: other.session.refresh_token },
  });
  assert.equal(alone.status, 200);
  assert.equal((await refreshWith(ctx, other.session.refresh_token)).status, 401);
  const unknown = await ctx.call("POST", "/api/auth/logout", {
    token: lapsed,
    body: { refresh_token: "x".repeat(43) },
  });
  assert.deepEqual([unknown.status, unknown.body.detail], [401, "Not authenticated"]);
});

apiTest("auth: a deactivated user cannot log in or refresh", async (ctx) => {
  const { email, session } = await signUp(ctx);
  await ctx.database.db.update(users).set({ isActive: false }).where(eq(users.email, email));
  const login = await ctx.call("POST", "/api/auth/login", { body: { email, password: PASSWORD } });
  assert.equal(login.status, 401);
  assert.equal((await refreshWith(ctx, session.refresh_token)).status, 401);
  assert.equal(await meStatus(ctx, session.access_token), 401);
});

apiTest("auth: a deleted account frees its email; login finds the live account", async (ctx) => {
  const old = await signUp(ctx);
  await ctx.database.db.update(users).set({ deletedAt: new Date() }).where(eq(users.email, old.email));
  const login = await ctx.call("POST", "/api/auth/login", { body: { email: old.email, password: PASSWORD } });
  assert.equal(login.status, 401);
  assert.equal((await refreshWith(ctx, old.session.refresh_token)).status, 401);
  const again = await signUp(ctx, { email: old.email.toUpperCase(), password: "Another1!pw" });
  assert.notEqual(again.id, old.id);
  const relogin = await ctx.call("POST", "/api/auth/login", {
    body: { email: old.email, password: "Another1!pw" },
  });
  assert.equal(relogin.status, 200);
  assert.equal(relogin.body.user.id, again.id);
});

apiTest("auth: the database itself refuses a duplicate email, in any case or padding", async (ctx) => {
  const { email } = await signUp(ctx);
  const row = (email: string) => ({ email, passwordHash: "x", fullName: "Direct Insert" });
  const db = ctx.database.db;
  assert.match(await dbFailure(db.insert(users).values(row(email))), /users_email_live_key/);
  for (const variant of [email.toUpperCase(), ` ${email}`, `${email} `]) {
    assert.match(await dbFailure(db.insert(users).values(row(variant))), /users_email_normalized/, variant);
  }
  const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(users)
    .where(sql`lower(btrim(${users.email})) = ${email}`);
  assert.equal(n, 1);
});

apiTest("auth: a common password is refused on register with a clear message", async (ctx) => {
  for (const password of ["Password1!", "P@ssw0rd2024!", "Qwerty123!"]) {
    const res = await ctx.call("POST", "/api/auth/register", {
      body: { email: uniqueEmail(), password, full_name: "Common" },
    });
    assert.equal(res.status, 422, password);
    assert.deepEqual(res.body, {
      detail: "This password is too common and easy to guess. Please choose a less predictable one.",
      code: "password_too_common",
    });
  }
  const [{ n }] = await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(users);
  assert.equal(n, 0);
});

apiTest(
  "auth: ADMIN_EMAILS makes a listed account admin from its registration; unlisting demotes it",
  async (ctx) => {
    const email = uniqueEmail();
    const listed = appVariant(ctx, {
      ADMIN_EMAILS: ` ${email.toUpperCase()} , other@example.com`,
      ...relaxed(),
    });
    const reg = await listed.call("POST", "/api/auth/register", {
      body: { email, password: PASSWORD, full_name: "The Admin" },
    });
    assert.equal(reg.status, 201);
    assert.deepEqual([reg.body.user.role, reg.body.user.credits, reg.body.user.is_verified], [
      "admin",
      999999,
      false,
    ]);
    const gen = await listed.call("GET", "/api/user/credits", { token: reg.body.access_token });
    assert.deepEqual(gen.body, { credits: 999999 });
    const me = await listed.call("GET", "/api/users/me", { token: reg.body.access_token });
    assert.equal(me.body.role, "admin");
    assert.equal(me.body.credits, 999999);
    const [row] = await ctx.database.db.select().from(users).where(eq(users.email, email));
    assert.equal(row.credits, 10); // the ledger is untouched
    assert.equal(row.role, "user"); // the list is read per request, never stored

    // Removing the email from the list demotes it.
    const unlisted = appVariant(ctx, relaxed());
    const after = await unlisted.call("GET", "/api/users/me", { token: reg.body.access_token });
    assert.equal(after.body.role, "user");
    assert.equal(after.body.credits, 10);
  },
);

apiTest("auth: `deno task admin [--revoke]` promotes and demotes, verified or not", async (ctx) => {
  const { email, session } = await signUp(ctx);
  const me = async () => (await ctx.call("GET", "/api/users/me", { token: session.access_token })).body;
  const db = ctx.database.db;
  assert.deepEqual(await setAdminRole(db, ctx.config, email.toUpperCase(), true), {
    ok: true,
    message: `${email} is now an admin`,
  });
  assert.equal((await me()).role, "admin");
  assert.equal((await me()).credits, 999999);
  // Every balance the API shows reads as unlimited, the subscription's too.
  const sub = await ctx.call("GET", "/api/users/subscription", { token: session.access_token });
  assert.equal(sub.body.credits_remaining, 999999);
  assert.deepEqual(await setAdminRole(db, ctx.config, email, false), {
    ok: true,
    message: `${email} is no longer an admin`,
  });
  assert.equal((await me()).role, "user");
  assert.equal((await me()).credits, 10);
  const demoted = await ctx.call("GET", "/api/users/subscription", { token: session.access_token });
  assert.equal(demoted.body.credits_remaining, 10);
  assert.equal((await setAdminRole(db, ctx.config, uniqueEmail(), true)).ok, false);
});

apiTest("auth: revoking an ADMIN_EMAILS admin says why it still is one", async (ctx) => {
  const { email } = await signUp(ctx);
  const { config } = appVariant(ctx, { ADMIN_EMAILS: email });
  const result = await setAdminRole(ctx.database.db, config, email, false);
  assert.equal(result.ok, true);
  assert.match(result.message, /ADMIN_EMAILS/);
});

apiTest("auth: users.credits equals the sum of each user's ledger rows", async (ctx) => {
  for (let i = 0; i < 3; i++) await signUp(ctx);
  const audit = await ledgerMismatches(ctx.database.db);
  assert.equal(audit.users, 3);
  assert.deepEqual(audit.mismatches, []);
  for (const entry of audit.entriesByUser.values()) assert.equal(entry.entries, 1); // the welcome grant
});

apiTest("auth: oversized auth bodies -> 413 payload_too_large before parsing", async (ctx) => {
  const res = await ctx.call("POST", "/api/auth/login", {
    body: JSON.stringify({ email: "a@b.co", password: "x".repeat(200_000) }),
  });
  assert.equal(res.status, 413);
  assert.deepEqual(res.body, { detail: "Request body too large", code: "payload_too_large" });
  // Auth bodies are small: 5 KB is already too much there.
  const five = await ctx.call("POST", "/api/auth/register", {
    body: { email: uniqueEmail(), password: PASSWORD, full_name: "x".repeat(5_000) },
  });
  assert.equal(five.status, 413);
});

apiTest(
  "auth: a large Content-Length is refused with 413 up front, without reading the body",
  async (ctx) => {
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
    assert.deepEqual(await res.json(), { detail: "Request body too large", code: "payload_too_large" });
    assert.ok(pulled <= 1, `the body was read (${pulled} pulls)`);
    await body.cancel();
  },
);

apiTest("auth: JSON routes given another Content-Type -> 415, not a 422 listing every field", async (ctx) => {
  for (const path of ["/api/auth/register", "/api/auth/login", "/api/auth/refresh"]) {
    for (const headers of [{ "Content-Type": "text/plain" }, {} as Record<string, string>]) {
      const res = await ctx.call("POST", path, {
        headers,
        body: headers["Content-Type"] ? '{"email":"a@b.co"}' : undefined,
      });
      assert.equal(res.status, 415, `${path} ${JSON.stringify(headers)}`);
      assert.deepEqual(res.body, {
        detail: "Content-Type must be application/json",
        code: "unsupported_media_type",
      });
    }
  }
  const charset = await ctx.call("POST", "/api/auth/login", {
    headers: { "Content-Type": "application/json; charset=utf-8" },
    body: { email: uniqueEmail(), password: PASSWORD },
  });
  assert.equal(charset.status, 401);
});

apiTest("auth: a failing query is logged with its SQL but never its parameters", async (ctx) => {
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
  assert.deepEqual(res?.body, { detail: "Internal Server Error", code: "internal_error" });
  assert.equal(res?.headers.get("X-Request-Id")?.length, 36);
  assert.match(printed, /unhandled error/);
  assert.ok(printed.includes(res!.headers.get("X-Request-Id")!), "the log line names the request id");
  assert.match(printed, /Failed query: insert into \\"users\\"/);
  assert.match(printed, /users_credits_nonnegative/);
  assert.ok(!printed.includes("SECRET-"), printed);
  assert.ok(!printed.includes("params"), printed);
});

apiTest("auth: an unknown API path -> 404 not_found JSON", async (ctx) => {
  const res = await ctx.call("GET", "/api/nope");
  assert.equal(res.status, 404);
  assert.deepEqual(res.body, { detail: "Not found", code: "not_found" });
});

apiTest(
  "an API path asked with a method it does not take -> 405 with Allow, changing nothing",
  async (ctx) => {
    const { access_token } = await ctx.register();
    for (
      const [method, path, allow] of [
        ["DELETE", "/api/styling-options", "GET, HEAD"],
        ["GET", "/api/generate", "POST"],
        ["PATCH", "/api/users/profile", "GET, HEAD, PUT"],
        ["PUT", "/api/generation/00000000-0000-0000-0000-000000000000/status", "GET, HEAD"],
      ] as const
    ) {
      const res = await ctx.call(method, path, {
        token: access_token,
        body: method === "GET" ? undefined : {},
      });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("Allow"), allow, `${method} ${path}`);
      assert.deepEqual(res.body, {
        detail: `Method ${method} not allowed: use ${allow}`,
        code: "method_not_allowed",
      });
    }
    // Account deletion is DELETE only: a GET leaves the account as it was.
    assert.equal((await ctx.call("GET", "/api/users/account", { token: access_token })).status, 405);
    assert.equal((await ctx.call("GET", "/api/users/me", { token: access_token })).status, 200);
    // A path no route takes under any method stays 404.
    assert.equal((await ctx.call("DELETE", "/api/nope")).status, 404);
  },
);

function relaxed() {
  return {
    AUTH_RATE_LIMIT_PER_MINUTE: "10000",
    AUTH_IP_RATE_LIMIT_PER_MINUTE: "10000",
    AUTH_EMAIL_RATE_LIMIT_PER_HOUR: "10000",
  };
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

apiTest(
  "startup: a listed admin email with no account yet, a short JWT_SECRET and no worker for the embedded database are said at boot",
  async (ctx) => {
    const { email } = await signUp(ctx);
    const unclaimed = uniqueEmail();
    const { config } = appVariant(ctx, {
      ADMIN_EMAILS: `${email},${unclaimed}`,
      JWT_SECRET: "short-secret",
      JOB_WORKERS: "1",
    });
    const said = await riskySettings(ctx.database.db, config);
    assert.equal(said.length, 2, said.join("\n"));
    assert.match(
      said[0],
      new RegExp(`ADMIN_EMAILS lists ${unclaimed.toLowerCase()}, which has no account yet`),
    );
    assert.match(said[1], /JWT_SECRET is shorter than 32 characters/);
    const { config: quiet } = appVariant(ctx, {
      ADMIN_EMAILS: email,
      JWT_SECRET: "x".repeat(32),
      JOB_WORKERS: "1",
    });
    assert.deepEqual(await riskySettings(ctx.database.db, quiet), []);
    // API only (JOB_WORKERS=0) is for a shared Postgres: on the embedded database nothing would run the jobs.
    const idle = { ...quiet, jobWorkers: 0 };
    assert.match(
      (await riskySettings(ctx.database.db, { ...idle, databaseUrl: undefined })).join(),
      /JOB_WORKERS=0/,
    );
    assert.deepEqual(await riskySettings(ctx.database.db, { ...idle, databaseUrl: "postgres://db/x" }), []);
  },
);
