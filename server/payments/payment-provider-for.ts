/** Picks the payment provider the configuration names; one instance per configuration. */
import type { Config } from "../config.ts";
import type { PaymentProvider } from "./providers/payment-provider.ts";
import { createSandboxProvider } from "./providers/sandbox.ts";
import { createStripeProvider } from "./providers/stripe.ts";

const cache = new WeakMap<Config, PaymentProvider>();

export function paymentProviderFor(config: Config): PaymentProvider {
  let provider = cache.get(config);
  if (!provider) {
    provider = config.paymentProvider === "stripe"
      ? createStripeProvider({
        secretKey: config.stripeSecretKey!,
        webhookSecret: config.stripeWebhookSecret!,
        apiBase: config.stripeApiBase,
      })
      : createSandboxProvider();
    cache.set(config, provider);
  }
  return provider;
}
