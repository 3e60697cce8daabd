/**
 * The environment, validated once at boot (STYLE.md 6). Every variable is
 * documented in README.md with its default. `loadConfig` throws one readable
 * error naming every bad variable; main.ts prints it and exits.
 */
import * as z from "zod";
import { DEFAULT_WELCOME_CREDITS } from "./credits/credit-constants.ts";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().url().optional(),
  PUBLIC_URL: z.string().url().optional(),
  JWT_SECRET: z.string().min(32, "JWT_SECRET must be at least 32 characters")
    .optional(),
  NODE_ENV: z.string().optional(),
  DENO_ENV: z.string().optional(),
  IMAGE_MODEL: z.enum(["local"]).default("local"),
  ADMIN_EMAILS: z.string().default(""),
  JOB_WORKERS: z.coerce.number().int().min(0).max(16).default(2),
  /** Seconds a generation may run before it is abandoned and retried. */
  JOB_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(600).default(90),
  WELCOME_CREDITS: z.coerce.number().int().min(0).max(10000).default(DEFAULT_WELCOME_CREDITS),
  /** Login/register attempts allowed per (IP, email) pair each minute. */
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Login/register attempts allowed per IP, whatever the email, each minute (default: 3 x the pair limit). */
  AUTH_IP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).optional(),
  /** Login/register attempts allowed per email, from every IP together, each hour. */
  AUTH_EMAIL_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(50),
  /** Serves GET /api/metrics to `Authorization: Bearer <METRICS_TOKEN>`; unset: no metrics route. */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  /** Honour X-Forwarded-For for rate limits (only behind a trusted proxy). */
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Set both to take payments with Stripe; unset: the offline sandbox checkout. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Where the Stripe SDK sends its calls (a local fake in tests); default https://api.stripe.com. */
  STRIPE_API_BASE: z.string().url().optional(),
  /** Minutes a checkout session stays payable. */
  CHECKOUT_SESSION_MINUTES: z.coerce.number().min(0.01).max(1440).default(30),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicUrl: string | undefined;
  /** Set when the operator provided one; otherwise db/secrets.ts makes one in DATA_DIR. */
  jwtSecret: string | undefined;
  production: boolean;
  imageModel: "local";
  adminEmails: Set<string>;
  jobWorkers: number;
  jobTimeoutMs: number;
  welcomeCredits: number;
  authRateLimitPerMinute: number;
  authIpRateLimitPerMinute: number;
  authEmailRateLimitPerHour: number;
  metricsToken: string | undefined;
  trustProxy: boolean;
  logLevel: "debug" | "info" | "warn" | "error";
  /** "stripe" when STRIPE_SECRET_KEY is set, otherwise the offline "sandbox". */
  paymentProvider: "sandbox" | "stripe";
  stripeSecretKey: string | undefined;
  stripeWebhookSecret: string | undefined;
  stripeApiBase: string | undefined;
  checkoutSessionMs: number;
}

export class ConfigError extends Error {}

export function loadConfig(
  env: Record<string, string | undefined> = Deno.env.toObject(),
): Config {
  // Empty strings mean "unset" (docker-compose and .env files produce them).
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === "production" || e.DENO_ENV === "production";
  if (e.STRIPE_SECRET_KEY && !e.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY (payments are fulfilled by its webhooks)",
    );
  }
  if (production && !e.JWT_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  JWT_SECRET: required in production",
    );
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    publicUrl: e.PUBLIC_URL,
    jwtSecret: e.JWT_SECRET,
    production,
    imageModel: e.IMAGE_MODEL,
    adminEmails: new Set(
      e.ADMIN_EMAILS.split(",").map((s) => s.trim().toLowerCase()).filter(
        Boolean,
      ),
    ),
    jobWorkers: e.JOB_WORKERS,
    jobTimeoutMs: e.JOB_TIMEOUT_SECONDS * 1000,
    welcomeCredits: e.WELCOME_CREDITS,
    authRateLimitPerMinute: e.AUTH_RATE_LIMIT_PER_MINUTE,
    authIpRateLimitPerMinute: e.AUTH_IP_RATE_LIMIT_PER_MINUTE ?? 3 * e.AUTH_RATE_LIMIT_PER_MINUTE,
    authEmailRateLimitPerHour: e.AUTH_EMAIL_RATE_LIMIT_PER_HOUR,
    metricsToken: e.METRICS_TOKEN,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    paymentProvider: e.STRIPE_SECRET_KEY ? "stripe" : "sandbox",
    stripeSecretKey: e.STRIPE_SECRET_KEY,
    stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET,
    stripeApiBase: e.STRIPE_API_BASE,
    checkoutSessionMs: Math.round(e.CHECKOUT_SESSION_MINUTES * 60_000),
  };
}
