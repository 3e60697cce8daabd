/**
 * The offline payment provider (the default). Its hosted checkout page is
 * served by this app at /checkout/sandbox/<id> (sandbox-checkout.routes.ts) and
 * the checkout_sessions table is its whole state, so it needs no keys and no
 * network. It takes the usual test card numbers; nothing is ever charged.
 */
import type { PaymentProvider } from "./payment-provider.ts";
import { WebhookSignatureError } from "./payment-provider.ts";

/** Session ids carry 128 random bits: knowing one is what lets a browser open its page. */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `cs_sandbox_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export function sandboxCheckoutPath(id: string): string {
  return `/checkout/sandbox/${id}`;
}

export function createSandboxProvider(): PaymentProvider {
  return {
    name: "sandbox",
    createCheckout(req) {
      const id = newSessionId();
      return Promise.resolve({ id, url: `${req.origin}${sandboxCheckoutPath(id)}` });
    },
    getSession: () => Promise.resolve(null),
    getSubscription: () => Promise.resolve(null),
    getInvoice: () => Promise.resolve(null),
    getCharge: () => Promise.resolve(null),
    cancelSubscription: () => Promise.resolve(),
    changePlan: () => Promise.resolve({ applied: true }),
    verifyWebhook: () => Promise.reject(new WebhookSignatureError("The sandbox provider sends no webhooks")),
  };
}
