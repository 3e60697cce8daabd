/**
 * Bearer authentication. `requireAuth` answers 401 for a missing, expired,
 * forged or revoked token; `optionalAuth` lets anonymous callers through but
 * still refuses a bad token (a client should know its token is dead). The
 * checks themselves are the auth service's (server/auth/access.service.ts).
 */
import { createMiddleware } from "hono/factory";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { type AccessContext, authenticateAccessToken } from "../auth/access.service.ts";
import { AppError } from "./errors.ts";

export type AuthContext = AccessContext;

export type AuthEnv = { Variables: { auth: AuthContext | null } };

export function authMiddleware(
  deps: { db: Db; jwtSecret: string; config: Config },
  mode: "required" | "optional",
) {
  return createMiddleware<AuthEnv>(async (c, next) => {
    const header = c.req.header("Authorization");
    let auth: AuthContext | null = null;
    if (header) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw new AppError(401, "Invalid authorization header");
      const read = c.req.method === "GET" || c.req.method === "HEAD";
      auth = await authenticateAccessToken(deps, match[1], { cached: read });
    }
    if (!auth && mode === "required") {
      throw new AppError(401, "Not authenticated");
    }
    c.set("auth", auth);
    await next();
  });
}

/** The signed-in caller; only valid behind authMiddleware("required"). */
export function caller(
  c: { get(key: "auth"): AuthContext | null },
): AuthContext {
  const auth = c.get("auth");
  if (!auth) throw new AppError(401, "Not authenticated");
  return auth;
}
