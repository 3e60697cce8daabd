/**
 * /api/users/* and /api/user/credits: the signed-in user's account,
 * profile, stats, password, data export and deletion. Thin handlers; the
 * rules live in the services beside this file.
 */
import { Hono } from "hono";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { clientIp } from "../http/client-ip.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { requireJson } from "../http/require-json.ts";
import { authRateLimitStore, authRateRules } from "../auth/auth.routes.ts";
import { validate } from "../http/validate.ts";
import { UPLOADS_PER_MINUTE } from "../photos/photos.schemas.ts";
import { readUploadedFile, uploadBodyLimit } from "../photos/upload-body.ts";
import type { BlobStorage } from "../storage/storage.ts";
import {
  type AccountDeps,
  changePassword,
  deleteAccount,
  exportAccountData,
  type SubscriptionPort,
} from "./account.service.ts";
import { setProfileImage } from "./profile-image.service.ts";
import { getProfile, updateProfile } from "./profile.service.ts";
import { userStats } from "./stats.service.ts";
import { changePasswordSchema, exportFilename, profileUpdateSchema } from "./users.schemas.ts";
import { toPublicUser } from "./users.service.ts";
import { subscriptionPort } from "./subscription-port.ts";

export function usersRoutes(
  deps: {
    db: Db;
    config: Config;
    jwtSecret: string;
    storage: BlobStorage;
    /** Defaults to the payments area's subscriptions. */
    subscriptions?: SubscriptionPort;
    /** See AccountDeps.forgetPhotos. */
    forgetPhotos?: (photoIds: readonly string[]) => void;
  },
) {
  const requireAuth = authMiddleware(deps, "required");
  const account: AccountDeps = { ...deps, subscriptions: deps.subscriptions ?? subscriptionPort(deps) };
  // Guessing the current password is guessing a password: the same rules and store as login.
  const passwordLimits = authRateLimitStore(deps);
  const imageLimiter = new RateLimiter(UPLOADS_PER_MINUTE);

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
    })
    .get("/users/profile", requireAuth, async (c) => {
      return c.json(await getProfile(deps.db, caller(c).user));
    })
    .put("/users/profile", requireAuth, requireJson, validate("json", profileUpdateSchema), async (c) => {
      return c.json(await updateProfile(deps.db, caller(c).user, c.req.valid("json")));
    })
    .post(
      "/users/profile/image",
      requireAuth,
      (c, next) => {
        imageLimiter.hit([`profile-image:user:${caller(c).user.id}`]);
        return next();
      },
      uploadBodyLimit(),
      async (c) => {
        const file = await readUploadedFile(c, "no_file");
        return c.json(await setProfileImage(deps, caller(c).user.id, file));
      },
    )
    .get("/users/stats", requireAuth, async (c) => {
      return c.json(await userStats(deps, caller(c).user));
    })
    .post(
      "/users/change-password",
      requireAuth,
      requireJson, // before counting: a wrong Content-Type is not an attempt
      async (c, next) => {
        const ip = clientIp(c, deps.config.trustProxy);
        await passwordLimits.hit(authRateRules("change-password", ip, caller(c).user.email, deps.config));
        await next();
      },
      validate("json", changePasswordSchema),
      async (c) => {
        return c.json(await changePassword(deps, caller(c), c.req.valid("json")));
      },
    )
    .get("/users/data-export", requireAuth, async (c) => {
      const now = new Date();
      const data = await exportAccountData(account, caller(c).user, now);
      return c.body(JSON.stringify(data, null, 2), 200, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="${exportFilename(now)}"`,
        "Cache-Control": "no-store",
      });
    })
    .delete("/users/account", requireAuth, async (c) => {
      await deleteAccount(account, caller(c).user.id);
      return c.json({ message: "Account deleted" });
    });
}
