/** Picks the payment provider the configuration names; one instance per configuration. */
import type { Config } from "../config.ts";
import { log } from "../log.ts";
import type { PaymentProvider } from "./providers/payment-provider.ts";
import { createSandboxProvider } from "./providers/sandbox.ts";

const cache = new WeakMap<Config, Promise<PaymentProvider>>();

/**
 * The Stripe SDK is loaded on the first payment call of a process configured for Stripe: imported
 * by every process it cost ~10 MB of resident memory on sandbox payments, which never call it.
 */
export function paymentProviderFor(config: Config): Promise<PaymentProvider> {
  let provider = cache.get(config);
  if (!provider) {
    provider = config.paymentProvider === "stripe"
      ? import("./providers/stripe.ts").then(({ createStripeProvider }) => {
        if (!config.stripeWebhookSecret) {
          log.warn("STRIPE_WEBHOOK_SECRET is not set: Stripe's webhooks are refused (400) until it is");
        }
        return createStripeProvider({
          secretKey: config.stripeSecretKey!,
          webhookSecret: config.stripeWebhookSecret,
          apiBase: config.stripeApiBase,
        });
      })
      : Promise.resolve(createSandboxProvider());
    cache.set(config, provider);
  }
  return provider;
}
