/**
 * Bearer authentication. `requireAuth` answers 401 for a missing, expired,
 * forged or revoked token; `optionalAuth` lets anonymous callers through but
 * still refuses a bad token (a client should know its token is dead).
 */
import { createMiddleware } from "hono/factory";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { isFamilyLive } from "../auth/sessions.repository.ts";
import { verifyAccessToken } from "../auth/tokens.ts";
import { findUserById, type UserRow } from "../users/users.repository.ts";
import { AppError } from "./errors.ts";

export interface AuthContext {
  user: UserRow;
  sessionId: string;
}

export type AuthEnv = { Variables: { auth: AuthContext | null } };

async function authenticate(
  header: string | undefined,
  deps: { db: Db; jwtSecret: string; config: Config },
): Promise<AuthContext | null> {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new AppError(401, "Invalid authorization header");
  let claims;
  try {
    claims = await verifyAccessToken(match[1], deps.jwtSecret);
  } catch {
    throw new AppError(401, "Could not validate credentials");
  }
  const user = await findUserById(deps.db, claims.sub);
  if (!user || !user.isActive) {
    throw new AppError(401, "Could not validate credentials");
  }
  // A logged-out (revoked) session's access tokens stop working at once.
  if (!await isFamilyLive(deps.db, claims.sid)) {
    throw new AppError(401, "Session has ended");
  }
  return { user, sessionId: claims.sid };
}

export function authMiddleware(
  deps: { db: Db; jwtSecret: string; config: Config },
  mode: "required" | "optional",
) {
  return createMiddleware<AuthEnv>(async (c, next) => {
    const auth = await authenticate(c.req.header("Authorization"), deps);
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
