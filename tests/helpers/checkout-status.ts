/**
 * The owner-only checkout status call (GET /api/payments/checkout/status/{id}) and the answer
 * expected for a credits session in each of its two states, shared by the sandbox and the Stripe
 * payment tests.
 */
import type { TestContext } from "./test-app.ts";

/** The status of session `id` as `token`'s owner, returning to `origin`. */
export const checkoutStatus = (ctx: TestContext, token: string, id: string, origin: string) =>
  ctx.call("GET", `/api/payments/checkout/status/${id}?origin_url=${encodeURIComponent(origin)}`, { token });

/** The answer for an unpaid, still open session (`paid: false`) or a paid, complete one, in US cents. */
export function creditsStatusBody(paid: boolean, amountTotal: number, credits: number) {
  return {
    payment_status: paid ? "paid" : "unpaid",
    status: paid ? "complete" : "open",
    amount_total: amountTotal,
    currency: "usd",
    metadata: { credits: String(credits) },
  };
}
