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

/**
 * The caller an Authorization header names: null without one, 401 (AppError) for one that is not a bearer
 * token or whose token does not authenticate. `cached`: a read may use the short access cache.
 */
export async function bearerAccess(
  deps: { db: Db; jwtSecret: string; config: Config },
  header: string | undefined,
  opts: { cached?: boolean } = {},
): Promise<AuthContext | null> {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new AppError(401, "Invalid authorization header");
  return await authenticateAccessToken(deps, match[1], opts);
}

export function authMiddleware(
  deps: { db: Db; jwtSecret: string; config: Config },
  mode: "required" | "optional",
) {
  return createMiddleware<AuthEnv>(async (c, next) => {
    const read = c.req.method === "GET" || c.req.method === "HEAD";
    const auth = await bearerAccess(deps, c.req.header("Authorization"), { cached: read });
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
