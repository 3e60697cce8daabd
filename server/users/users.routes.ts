/** /api/users/* and /api/user/credits. */
import { Hono } from "hono";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { toPublicUser } from "./users.service.ts";

export function usersRoutes(
  deps: { db: Db; config: Config; jwtSecret: string },
) {
  const requireAuth = authMiddleware(deps, "required");
  return new Hono<AuthEnv>()
    .get(
      "/users/me",
      requireAuth,
      (c) => c.json(toPublicUser(caller(c).user, deps.config)),
    )
    .get("/user/credits", requireAuth, (c) => {
      return c.json({
        credits: toPublicUser(caller(c).user, deps.config).credits,
      });
    });
}
