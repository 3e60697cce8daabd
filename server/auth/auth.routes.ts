/** /api/auth/*: thin handlers; rules live in auth.service.ts. */
import { createHash } from "node:crypto";
import { Hono } from "hono";
import type { Context, Next } from "hono";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { clientIp } from "../http/client-ip.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { requireJson } from "../http/require-json.ts";
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

export function authRoutes(deps: AuthDeps) {
  const limiter = new RateLimiter(deps.config.authRateLimitPerMinute);
  // The IP key goes first: a caller already limited by address stores nothing more.
  const limit = (action: string) => async (c: Context, next: Next) => {
    const keys = [`${action}:ip:${clientIp(c, deps.config.trustProxy)}`];
    const email = (await c.req.json().catch(() => null))?.email;
    if (typeof email === "string") keys.push(`${action}:email:${emailKey(email)}`);
    limiter.hit(keys);
    await next();
  };

  return new Hono<AuthEnv>()
    .post(
      "/register",
      requireJson,
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
        return c.json(await auth.login(deps, c.req.valid("json")));
      },
    )
    .post("/refresh", requireJson, validate("json", refreshSchema), async (c) => {
      return c.json(
        await auth.refresh(deps, c.req.valid("json").refresh_token),
      );
    })
    // The body is optional here (a bearer alone signs out), so any Content-Type is accepted.
    .post("/logout", authMiddleware(deps, "required"), async (c) => {
      const body = logoutSchema.safeParse(await c.req.json().catch(() => ({})));
      const { user, sessionId } = caller(c);
      await auth.logout(
        deps,
        { userId: user.id, sessionId },
        body.success ? body.data.refresh_token : undefined,
      );
      return c.json({ message: "Logged out" });
    });
}
