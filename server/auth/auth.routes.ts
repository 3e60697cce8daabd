/** /api/auth/*: thin handlers; rules live in auth.service.ts. */
import { createHash } from "node:crypto";
import { Hono } from "hono";
import type { Context, Next } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type AuthContext, type AuthEnv, bearerAccess } from "../http/auth-middleware.ts";
import { clientIp } from "../http/client-ip.ts";
import { sharedRateLimitStore } from "../http/db-rate-limit-store.ts";
import { AppError } from "../http/errors.ts";
import { assertJsonContentType, requireJson } from "../http/require-json.ts";
import type { RateLimitStore, RateRule } from "../http/rate-limit.ts";
import { validate } from "../http/validate.ts";
import { loginSchema, logoutSchema, refreshSchema, registerSchema } from "./auth.schemas.ts";
import * as auth from "./auth.service.ts";
import type { AuthDeps } from "./auth.service.ts";

/**
 * The per-email rate-limit key: trimmed and lower-cased like the stored email, then hashed,
 * so a 64 KB "email" costs the limiter the same few bytes as a real one.
 */
function emailKey(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex").slice(0, 32);
}

/** Auth bodies are an email, a password and a name: a few hundred bytes. */
export const AUTH_BODY_LIMIT = 4 * 1024;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The rules one login or register attempt counts against, cheapest-to-forge-least first (a
 * caller limited by address stores nothing more): the address (any email), the (address,
 * email) pair, and a slower ceiling per email over every address. The pair limit stops one
 * attacker guessing a password without locking its owner out from everywhere else.
 */
export function authRateRules(
  action: string,
  ip: string,
  email: string | undefined,
  config: AuthDeps["config"],
): RateRule[] {
  const rules: RateRule[] = [
    { key: `${action}:ip:${ip}`, limit: config.authIpRateLimitPerMinute, windowMs: MINUTE },
  ];
  if (email !== undefined) {
    const e = emailKey(email);
    rules.push(
      { key: `${action}:ip-email:${ip}:${e}`, limit: config.authRateLimitPerMinute, windowMs: MINUTE },
      { key: `${action}:email:${e}`, limit: config.authEmailRateLimitPerHour, windowMs: HOUR },
    );
  }
  return rules;
}

/**
 * A peer on this machine (a loopback address) when no proxy is trusted: the operator, a health check, a test
 * harness, or every caller of a local proxy left without TRUST_PROXY, who would all share that one address
 * (one guesser locking every user out). Its per-address limit is LOCAL_PEER_FACTOR times the usual: still a
 * ceiling (sign-ups farming welcome credits), no longer one budget for the whole site. The per-email rules hold.
 */
export const LOCAL_PEER_FACTOR = 20;

export function isLocalPeer(ip: string, trustProxy: boolean): boolean {
  return !trustProxy &&
    /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.test(ip);
}

/** Shared across processes when they share Postgres; in memory for the single-process default. */
export function authRateLimitStore(deps: AuthDeps): RateLimitStore {
  return sharedRateLimitStore(deps);
}

export function authRoutes(deps: AuthDeps) {
  const store = authRateLimitStore(deps);
  /** The rules an attempt counts against (see authRateRules and isLocalPeer). */
  const rulesFor = async (c: Context, action: string) => {
    const email = (await c.req.json().catch(() => null))?.email;
    const ip = clientIp(c, deps.config.trustProxy);
    const rules = authRateRules(action, ip, typeof email === "string" ? email : undefined, deps.config);
    return isLocalPeer(ip, deps.config.trustProxy)
      ? rules.map((r) => r.key.startsWith(`${action}:ip:`) ? { ...r, limit: r.limit * LOCAL_PEER_FACTOR } : r)
      : rules;
  };
  const limit = (action: string) => async (c: Context, next: Next) => {
    await store.hit(await rulesFor(c, action));
    await next();
  };

  return new Hono<AuthEnv>()
    .use(bodyLimit({
      maxSize: AUTH_BODY_LIMIT,
      onError: () => {
        throw new AppError(413, "Request body too large", { code: "payload_too_large" });
      },
    }))
    .post(
      "/register",
      requireJson, // before counting: a wrong Content-Type is not an attempt
      limit("register"),
      validate("json", registerSchema),
      async (c) => {
        return c.json(await auth.register(deps, c.req.valid("json")), 201);
      },
    )
    .post(
      "/login",
      requireJson,
      limit("login"),
      validate("json", loginSchema),
      async (c) => {
        const session = await auth.login(deps, c.req.valid("json"));
        // Only failed attempts count against the account's own limits: a user signing in often (several
        // devices, a test suite) is never limited by their own successes; a guesser still is, before the attempt
        // that would succeed. The address's limit keeps every attempt (else one account's successes would
        // launder a stuffing run across others).
        await store.forgive((await rulesFor(c, "login")).filter((r) => !r.key.startsWith("login:ip:")));
        return c.json(session);
      },
    )
    .post("/refresh", validate("json", refreshSchema), async (c) => {
      return c.json(
        await auth.refresh(deps, c.req.valid("json").refresh_token),
      );
    })
    // The body is optional here (a bearer alone signs out); a body that is there must be JSON (415 otherwise).
    // With a bearer that no longer authenticates (expired after 15 minutes) the refresh token in the body still
    // signs its session out: a client whose access token lapsed must not leave its session alive.
    .post("/logout", async (c) => {
      const raw = (await c.req.text()).trim();
      let parsed: unknown = {};
      if (raw) {
        assertJsonContentType(c);
        try {
          parsed = JSON.parse(raw);
        } catch {
          // Unreadable JSON: signed out by the bearer alone, as with no body.
        }
      }
      const body = logoutSchema.safeParse(parsed);
      const refreshToken = body.success ? body.data.refresh_token : undefined;
      let access: AuthContext | null = null;
      try {
        access = await bearerAccess(deps, c.req.header("Authorization"));
      } catch (error) {
        if (!(error instanceof AppError) || !refreshToken) throw error;
      }
      if (access) {
        await auth.logout(deps, { userId: access.user.id, sessionId: access.sessionId }, refreshToken);
      } else if (!refreshToken || !await auth.logoutByRefreshToken(deps, refreshToken)) {
        throw new AppError(401, "Not authenticated");
      }
      return c.json({ message: "Logged out" });
    });
}
