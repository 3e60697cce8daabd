/**
 * Builds the Hono app: middleware, the /api routers, the static client and
 * its SPA fallback. Everything the app needs arrives in `deps`, so tests
 * build the same app on PGlite or Postgres.
 */
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import { secureHeaders } from "hono/secure-headers";
import type { Db } from "../db/client.ts";
import { bumpWriteEpoch } from "../db/write-epoch.ts";
import type { Config } from "./config.ts";
import type { BlobStorage } from "./storage/storage.ts";
import type { ImageModel } from "./imaging/image-model.ts";
import { generationRoutes } from "./generation/generation.routes.ts";
import { healthRoutes } from "./health/health.routes.ts";
import { stylingRoutes } from "./styling/styling.routes.ts";
import { authRoutes } from "./auth/auth.routes.ts";
import { AppError, defaultCode } from "./http/errors.ts";
import { contentSecurityPolicy } from "./http/content-security-policy.ts";
import { requestContext, requestIdOf } from "./http/request-context.ts";
import { metricsRoutes } from "./metrics/metrics.routes.ts";
import { jsonResponses } from "./http/json-responses.ts";
import { staticClient } from "./http/static-client.ts";
import { usersRoutes } from "./users/users.routes.ts";
import { photosRoutes } from "./photos/photos.routes.ts";
import { paymentsRoutes, WEBHOOK_PATH } from "./payments/payments.routes.ts";
import { sandboxCheckoutRoutes } from "./payments/sandbox-checkout.routes.ts";
import { PaymentProviderError } from "./payments/providers/payment-provider.ts";
import { StorageUnavailableError } from "./storage/storage.ts";
import { log } from "./log.ts";
import { previewRoutes } from "./preview/preview.routes.ts";
import type { Previewer } from "./preview/previewer.ts";
import { methodsOfRoutes } from "./http/method-not-allowed.ts";

export interface AppDeps {
  db: Db;
  config: Config;
  jwtSecret: string;
  storage: BlobStorage;
  /**
   * The active image model (its name and capabilities feed /api/styling-options); its
   * health() feeds /api/health when this process runs jobs; prepare() is given each uploaded photo,
   * forget() each deleted one; generate refuses what knownRefusal() names before any charge.
   */
  model: Pick<ImageModel, "name" | "capabilities" | "health" | "prepare" | "forget" | "knownRefusal">;
  /** Called after a job is queued (wakes the job runner). */
  onQueued?: () => void;
  /** Renders live previews (always the local model); unset: POST /api/preview answers 503. */
  previewer?: Previewer;
  /** Directory of the built client (static/build). */
  staticDir?: string;
}

/**
 * Tells the active model and the previewer that photos were deleted (by their owner, with the account, or
 * expired), so that no copy of them stays in the models' memory either (see ImageModel.forget). A previewer
 * that shares the active local model's workers makes them forget twice, which changes nothing.
 */
export function photoForgetter(
  deps: Pick<AppDeps, "model" | "previewer">,
): (photoIds: readonly string[]) => void {
  return (photoIds) => {
    deps.model.forget?.(photoIds);
    deps.previewer?.forget(photoIds);
  };
}

/** JSON bodies larger than this are refused before they are read whole. */
export const JSON_BODY_LIMIT = 64 * 1024;

export function createApp(deps: AppDeps) {
  const app = new Hono();

  // First: the request id and the one access line per request (security: request-context.ts).
  app.use("*", requestContext({ trustProxy: deps.config.trustProxy }));
  app.use("*", contentSecurityPolicy);
  app.use(
    "*",
    secureHeaders({
      crossOriginResourcePolicy: "same-origin",
      contentSecurityPolicy: undefined,
    }),
  );

  // A write request's changes are committed once it has answered: drop cached reads made
  // meanwhile (the auth lookup cache, server/auth/access-cache.ts).
  app.use("/api/*", async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    try {
      await next();
    } finally {
      bumpWriteEpoch(deps.db);
    }
  });

  // API GETs get an ETag (304 on a match); JSON above 1 KB goes out compressed.
  app.use("/api/*", jsonResponses());

  // Uploads set their own (larger) limit on their route; everything else is small JSON.
  app.use("/api/*", (c, next) => {
    if (
      c.req.path === "/api/upload-photo" ||
      c.req.path === "/api/users/profile/image" ||
      // The payment webhook reads its raw body under its own limit.
      c.req.path === WEBHOOK_PATH
    ) return next();
    return bodyLimit({
      maxSize: JSON_BODY_LIMIT,
      onError: () => {
        throw new AppError(413, "Request body too large");
      },
    })(c, next);
  });

  // 503, not 500: "up but cannot serve" is what load balancers and HEALTHCHECK act on.
  app.route("/api", healthRoutes({ ...deps, storageKind: deps.config.storage }));

  if (deps.config.metricsToken) {
    app.route("/api", metricsRoutes({ db: deps.db, metricsToken: deps.config.metricsToken }));
  }
  app.route("/api/auth", authRoutes(deps));
  const forgetPhotos = photoForgetter(deps);
  // An upload is prepared by the active model, or, when that prepares nothing (hosted, hybrid), for its previews.
  const preparePhoto = deps.model.prepare?.bind(deps.model) ?? deps.previewer?.prepare.bind(deps.previewer);
  app.route("/api", usersRoutes({ ...deps, forgetPhotos }));
  app.route("/api", photosRoutes({ ...deps, forgetPhotos, preparePhoto }));
  app.route("/api", paymentsRoutes(deps));
  app.route("/api", stylingRoutes(deps.model));
  app.route("/api", generationRoutes(deps));
  app.route("/api", previewRoutes(deps));

  // The sandbox provider's hosted checkout page (outside /api: it is a page, not an API).
  app.route("/", sandboxCheckoutRoutes(deps));

  // A path that exists under other methods is 405 with Allow; any other is 404.
  const allowedMethods = methodsOfRoutes(app, "/api/");
  app.all("/api/*", (c) => {
    const allow = allowedMethods(c.req.path);
    if (allow.length > 0) {
      throw new AppError(405, `Method ${c.req.method} not allowed: use ${allow.join(", ")}`, {
        headers: { Allow: allow.join(", ") },
      });
    }
    throw new AppError(404, "Not found");
  });

  app.use(
    "*",
    staticClient(
      deps.staticDir ?? new URL("../static/build", import.meta.url).pathname,
    ),
  );

  app.onError((err, c) => {
    if (err instanceof AppError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      return c.json({ detail: err.message, code: err.code }, err.status);
    }
    if (err instanceof PaymentProviderError) {
      // Its own words are for us (a bad key, a refused parameter), not for the user; 502: upstream failed.
      log.warn("payment provider error", {
        request_id: requestIdOf(c),
        route: routePath(c),
        status: err.status,
        code: err.code,
        error: err.message,
      });
      return c.json({
        detail: "The payment service could not complete the request. Please try again in a few minutes.",
        code: "payment_provider_error",
      }, 502);
    }
    // A store or the database down or refusing us: retry later (the cause is in the log, not for the user).
    const outage = err instanceof StorageUnavailableError
      ? {
        log: "image storage unavailable",
        detail: "Image storage is unavailable right now. Please try again in a minute.",
        code: "storage_unavailable",
      }
      : isDatabaseUnavailable(err)
      ? {
        log: "database unavailable",
        detail: "The service is briefly unavailable. Please try again in a minute.",
        code: "database_unavailable",
      }
      : null;
    if (outage) {
      log.warn(outage.log, {
        request_id: requestIdOf(c),
        route: routePath(c),
        error: err instanceof Error ? err.message : String(err),
      });
      return c.json({ detail: outage.detail, code: outage.code }, 503, { "Retry-After": "30" });
    }
    if (err instanceof HTTPException && err.status < 500) {
      // Hono's own 4xx (malformed JSON, ...): keep the status, answer our shape.
      return c.json({ detail: err.message || "Bad request", code: defaultCode(err.status) }, err.status);
    }
    // The route pattern, not the path: paths carry capability keys (/api/uploads/<key>).
    log.error("unhandled error", {
      request_id: requestIdOf(c),
      method: c.req.method,
      route: routePath(c),
      error: err,
    });
    return c.json({ detail: "Internal Server Error", code: "internal_error" }, 500);
  });

  return app;
}
