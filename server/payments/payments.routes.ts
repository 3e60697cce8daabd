/**
 * /api/credits/packages, /api/payments/*, /api/users/subscription. Thin:
 * validate, call one service, answer.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import * as z from "zod";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { clientIp } from "../http/client-ip.ts";
import { AppError } from "../http/errors.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { validate } from "../http/validate.ts";
import {
  createCreditsCheckout,
  createSubscriptionCheckout,
  getCheckoutStatus,
  packagesView,
  plansView,
} from "./checkout.service.ts";
import {
  creditsCheckoutSchema,
  sessionIdSchema,
  subscriptionCheckoutSchema,
  validatePromotionSchema,
} from "./payments.schemas.ts";
import { validatePromotion } from "./promotions.service.ts";
import type { PaymentProvider } from "./providers/payment-provider.ts";
import { cancelAtPeriodEnd, subscriptionView } from "./subscription.service.ts";
import { handleStripeWebhook } from "./webhook.service.ts";

/** Stripe's events are a few KB; this leaves ample room and still bounds the read. */
export const WEBHOOK_BODY_LIMIT = 512 * 1024;
export const WEBHOOK_PATH = "/api/payments/webhook";

export interface PaymentsRouteDeps {
  db: Db;
  config: Config;
  jwtSecret: string;
  provider?: PaymentProvider;
}

/** Guessing codes is guessing secrets: validations per IP (and per account) each minute. */
export const PROMO_VALIDATIONS_PER_MINUTE = 30;
/** Each checkout creates a provider session: enough for any real customer, not for a script. */
export const CHECKOUTS_PER_MINUTE = 20;

const statusQuerySchema = z.object({ origin_url: z.string().max(2048).optional() });

/**
 * The checkout calls' error answers name their text `message` too, beside `detail` and `code`: that is where
 * this API's clients have read a failed checkout's reason ("checkout_url, or message on error").
 */
const errorAlsoAsMessage = createMiddleware(async (c, next) => {
  await next();
  if (c.res.status < 400 || !c.res.headers.get("content-type")?.startsWith("application/json")) return;
  const body = await c.res.clone().json().catch(() => null) as Record<string, unknown> | null;
  if (!body || typeof body.detail !== "string" || "message" in body) return;
  const headers = new Headers(c.res.headers);
  headers.delete("content-length");
  c.res = new Response(JSON.stringify({ ...body, message: body.detail }), { status: c.res.status, headers });
});

export function paymentsRoutes(deps: PaymentsRouteDeps) {
  const requireAuth = authMiddleware(deps, "required");
  const optionalAuth = authMiddleware(deps, "optional");
  const promoLimiter = new RateLimiter(PROMO_VALIDATIONS_PER_MINUTE);
  const checkoutLimiter = new RateLimiter(CHECKOUTS_PER_MINUTE);

  return new Hono<AuthEnv>()
    .get("/credits/packages", (c) => c.json(packagesView()))
    .get("/payments/plans", (c) => c.json(plansView()))
    .post(
      "/payments/promotion-code/validate",
      optionalAuth,
      validate("json", validatePromotionSchema),
      async (c) => {
        const body = c.req.valid("json");
        const item = body.payment_type === "credits"
          ? { kind: "credits" as const, packageId: body.package_id }
          : { kind: "subscription" as const, plan: body.subscription_plan };
        const auth = c.get("auth");
        promoLimiter.hit([
          `promo:ip:${clientIp(c, deps.config.trustProxy)}`,
          ...(auth ? [`promo:user:${auth.user.id}`] : []),
        ]);
        return c.json(
          await validatePromotion(deps.db, { code: body.code, item, userId: auth?.user.id ?? null }),
        );
      },
    )
    .post(
      "/payments/checkout/credits",
      errorAlsoAsMessage,
      requireAuth,
      validate("json", creditsCheckoutSchema),
      async (c) => {
        const user = caller(c).user;
        checkoutLimiter.hit([`checkout:user:${user.id}`]);
        return c.json(
          await createCreditsCheckout(deps, { user, requestUrl: c.req.url }, c.req.valid("json")),
        );
      },
    )
    .post(
      "/payments/checkout/subscription",
      errorAlsoAsMessage,
      requireAuth,
      validate("json", subscriptionCheckoutSchema),
      async (c) => {
        const user = caller(c).user;
        checkoutLimiter.hit([`checkout:user:${user.id}`]);
        return c.json(
          await createSubscriptionCheckout(deps, { user, requestUrl: c.req.url }, c.req.valid("json")),
        );
      },
    )
    .get(
      "/payments/checkout/status/:session_id",
      requireAuth,
      validate("param", z.object({ session_id: sessionIdSchema })),
      validate("query", statusQuerySchema),
      async (c) => {
        const { session_id } = c.req.valid("param");
        return c.json(await getCheckoutStatus(deps, { userId: caller(c).user.id }, session_id));
      },
    )
    .post("/payments/subscription/cancel", requireAuth, async (c) => {
      return c.json(await cancelAtPeriodEnd(deps, caller(c).user.id));
    })
    .get("/users/subscription", requireAuth, async (c) => {
      return c.json(await subscriptionView(deps, caller(c).user));
    })
    .post(
      "/payments/webhook",
      bodyLimit({
        maxSize: WEBHOOK_BODY_LIMIT,
        onError: () => {
          throw new AppError(413, "Request body too large");
        },
      }),
      async (c) => {
        // The signature covers the exact bytes: the raw body, neither decoded as text nor re-serialised.
        const raw = new Uint8Array(await c.req.arrayBuffer());
        const outcome = await handleStripeWebhook(deps, raw, c.req.header("Stripe-Signature"));
        return c.json({ received: true, outcome });
      },
    );
}
