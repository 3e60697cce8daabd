/** /api/auth/*: thin handlers; rules live in auth.service.ts. */
import { Hono } from "hono";
import type { Context } from "hono";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { clientIp } from "../http/client-ip.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { validate } from "../http/validate.ts";
import { loginSchema, logoutSchema, refreshSchema, registerSchema } from "./auth.schemas.ts";
import * as auth from "./auth.service.ts";
import type { AuthDeps } from "./auth.service.ts";

export function authRoutes(deps: AuthDeps) {
  const limiter = new RateLimiter(deps.config.authRateLimitPerMinute);
  const limit = (c: Context, action: string, email: unknown) => {
    const keys = [`${action}:ip:${clientIp(c, deps.config.trustProxy)}`];
    if (typeof email === "string") {
      keys.push(`${action}:email:${email.trim().toLowerCase()}`);
    }
    limiter.hit(keys);
  };

  return new Hono<AuthEnv>()
    .post(
      "/register",
      async (c, next) => {
        limit(c, "register", (await c.req.json().catch(() => ({})))?.email);
        await next();
      },
      validate("json", registerSchema),
      async (c) => {
        return c.json(await auth.register(deps, c.req.valid("json")), 201);
      },
    )
    .post(
      "/login",
      async (c, next) => {
        limit(c, "login", (await c.req.json().catch(() => ({})))?.email);
        await next();
      },
      validate("json", loginSchema),
      async (c) => {
        return c.json(await auth.login(deps, c.req.valid("json")));
      },
    )
    .post("/refresh", validate("json", refreshSchema), async (c) => {
      return c.json(
        await auth.refresh(deps, c.req.valid("json").refresh_token),
      );
    })
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
