/**
 * The sandbox's hosted checkout page, served by the app itself (outside /api):
 * GET shows it, the card form posts to /pay, Cancel posts to /cancel; both
 * answer with a 303 redirect (to the success or cancel route, or back here
 * with the decline shown).
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Db } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { sessionIdSchema } from "./payments.schemas.ts";
import { findPromotionById } from "./payments.repository.ts";
import {
  renderCheckoutPage,
  renderExpiredPage,
  renderNotFoundPage,
  renderPaidPage,
  SANDBOX_CSS,
  SANDBOX_CSS_PATH,
} from "./sandbox-checkout.page.ts";
import { loadSandboxSession, paySandboxSession } from "./sandbox-checkout.service.ts";

const NO_STORE = { "Cache-Control": "no-store" };

function sessionId(raw: string): string {
  const parsed = sessionIdSchema.safeParse(raw);
  if (!parsed.success) throw new AppError(404, "Checkout session not found");
  return parsed.data;
}

const field = (form: Record<string, unknown>, name: string): string => {
  const v = form[name];
  return typeof v === "string" ? v.slice(0, 100) : "";
};

export function sandboxCheckoutRoutes(deps: { db: Db }) {
  const formLimit = bodyLimit({
    maxSize: 8 * 1024,
    onError: () => {
      throw new AppError(413, "Request body too large");
    },
  });
  return new Hono()
    .get(SANDBOX_CSS_PATH, (c) => c.body(SANDBOX_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }))
    .get("/checkout/sandbox/:id", async (c) => {
      let row;
      try {
        row = await loadSandboxSession(deps.db, sessionId(c.req.param("id")));
      } catch (e) {
        // A browser opened this address: it gets a page it can leave, not the API's JSON.
        if (e instanceof AppError && e.status === 404) return c.html(renderNotFoundPage(), 404, NO_STORE);
        throw e;
      }
      if (row.fulfilledAt) return c.html(renderPaidPage(row), 200, NO_STORE);
      if (row.status === "expired") return c.html(renderExpiredPage(row), 200, NO_STORE);
      const promo = row.promotionCodeId ? await findPromotionById(deps.db, row.promotionCodeId) : null;
      const declined = c.req.query("declined") === "1" ? row.declineMessage : null;
      return c.html(
        renderCheckoutPage(row, { promotionCode: promo?.code ?? null, declineMessage: declined }),
        200,
        NO_STORE,
      );
    })
    .post("/checkout/sandbox/:id/pay", formLimit, async (c) => {
      const id = sessionId(c.req.param("id"));
      const form = await c.req.parseBody();
      const outcome = await paySandboxSession(deps.db, id, {
        number: field(form, "card_number"),
        expiry: field(form, "expiry"),
        cvc: field(form, "cvc"),
      });
      if (outcome.kind === "paid") return c.redirect(outcome.redirect, 303);
      if (outcome.kind === "declined") return c.redirect(`/checkout/sandbox/${id}?declined=1`, 303);
      return c.redirect(`/checkout/sandbox/${id}`, 303);
    })
    .post("/checkout/sandbox/:id/cancel", formLimit, async (c) => {
      // To the cancel route with the session's id, as the success route gets it; the session stays open (as
      // Stripe's does: the customer may come back to it until it expires).
      const row = await loadSandboxSession(deps.db, sessionId(c.req.param("id")));
      return c.redirect(`${row.cancelUrl}?session_id=${encodeURIComponent(row.id)}`, 303);
    });
}
