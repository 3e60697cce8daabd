/**
 * The environment, validated once at boot. Every variable is
 * documented in README.md with its default. `loadConfig` throws one readable
 * error naming every bad variable; main.ts prints it and exits.
 */
import * as z from "zod";
import { DEFAULT_WELCOME_CREDITS } from "./credits/credit-constants.ts";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/**
 * A provider API key: printable ASCII without spaces (a pasted quote or newline is caught at boot). No provider
 * documents a length, so none is asked beyond one character (a short test key is a key).
 */
const apiKey = (name: string) =>
  z.string().min(1, `${name} is empty`).max(
    512,
    `${name} is malformed: too long`,
  )
    .regex(/^[\x21-\x7e]+$/, `${name} is malformed: it must not contain spaces, quotes or line breaks`)
    .refine(
      (v) => !/["'`]/.test(v),
      `${name} is malformed: it must not contain spaces, quotes or line breaks`,
    );

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().url().refine((u) => /^postgres(ql)?:\/\//.test(u), {
    message: "must be a postgres:// or postgresql:// URL",
  }).optional(),
  PUBLIC_URL: z.string().url().optional(),
  // Lengths are asked in production only (below): a test harness's short secret is its own business.
  JWT_SECRET: z.string().min(1, "JWT_SECRET is empty").optional(),
  NODE_ENV: z.string().optional(),
  DENO_ENV: z.string().optional(),
  IMAGE_MODEL: z.enum(["local", "gemini", "openai", "fal", "hybrid"]).default("local"),
  // Hosted image models (server/imaging/hosted): keys are checked at boot, never logged.
  GEMINI_API_KEY: apiKey("GEMINI_API_KEY").optional(),
  // The SDK takes the id with or without its resource prefix ("models/gemini-2.5-flash-image").
  GEMINI_MODEL: z.string().regex(/^(models\/)?[a-z0-9][a-z0-9.\-]{2,80}$/, "must be a Gemini model id")
    .optional(),
  GEMINI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: apiKey("OPENAI_API_KEY").optional(),
  OPENAI_IMAGE_MODEL: z.string().regex(/^[a-z0-9][a-z0-9.\-]{2,80}$/, "must be an OpenAI image model id")
    .optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  FAL_KEY: apiKey("FAL_KEY").optional(),
  FAL_BASE_URL: z.string().url().optional(),
  /** Hosted model calls running at once in this process. */
  HOSTED_MAX_CONCURRENT: z.coerce.number().int().min(1).max(64).default(4),
  /** Hosted model calls this process may start per minute (the provider budget). */
  HOSTED_CALLS_PER_MINUTE: z.coerce.number().int().min(1).max(10000).default(20),
  ADMIN_EMAILS: z.string().default(""),
  JOB_WORKERS: z.coerce.number().int().min(0).max(16).default(2),
  /** Render threads of the local image model (default: see localModelWorkersFor). */
  LOCAL_MODEL_WORKERS: z.coerce.number().int().min(1).max(16).optional(),
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
  METRICS_TOKEN: z.string().min(1, "METRICS_TOKEN is empty").optional(),
  /** Honour X-Forwarded-For for rate limits (only behind a trusted proxy). */
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Set both to take payments with Stripe; unset: the offline sandbox checkout. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Where the Stripe SDK sends its calls (a local fake in tests); default https://api.stripe.com. */
  STRIPE_API_BASE: z.string().url().optional(),
  /** The same, under the name the other providers' base URLs have (STRIPE_API_BASE wins). */
  STRIPE_BASE_URL: z.string().url().optional(),
  /** Minutes a checkout session stays payable. */
  CHECKOUT_SESSION_MINUTES: z.coerce.number().min(0.01).max(1440).default(30),
  /** Seconds a running job's lease lasts without a heartbeat; a dead process's jobs are retaken after it. */
  JOB_LEASE_SECONDS: z.coerce.number().int().min(2).max(300).default(30),
  /** Where images live: local disk under DATA_DIR/uploads, or an S3-compatible bucket (S3_*). */
  STORAGE: z.enum(["local", "s3"]).default("local"),
  // A scheme is needed: "minio:9000" passed as a URL and failed every call ("not a valid URI").
  S3_ENDPOINT: z.string().regex(/^https?:\/\/[^\s]+$/, "must be an http:// or https:// URL").optional(),
  // S3's bucket naming rules (lower case, digits, dots and hyphens; 3-63 characters).
  S3_BUCKET: z.string().regex(
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    "must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)",
  ).optional(),
  /** Unset: AWS_REGION or AWS_DEFAULT_REGION (as on ECS, Lambda, EKS), else us-east-1. */
  S3_REGION: z.string().min(1).optional(),
  AWS_REGION: z.string().min(1).optional(),
  AWS_DEFAULT_REGION: z.string().min(1).optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Path-style bucket URLs (MinIO and most self-hosted stores need them). */
  S3_FORCE_PATH_STYLE: bool.default(false),
}).superRefine((e, ctx) => {
  if (e.STORAGE !== "s3") return;
  if (!e.S3_BUCKET) {
    ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "required when STORAGE=s3" });
  }
  if (!e.S3_ACCESS_KEY_ID !== !e.S3_SECRET_ACCESS_KEY) {
    ctx.addIssue({
      code: "custom",
      path: [e.S3_ACCESS_KEY_ID ? "S3_SECRET_ACCESS_KEY" : "S3_ACCESS_KEY_ID"],
      message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together",
    });
  }
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
  imageModel: "local" | "gemini" | "openai" | "fal" | "hybrid";
  /** Hosted image model settings (server/imaging/hosted). */
  hosted: {
    geminiApiKey: string | undefined;
    geminiModel: string | undefined;
    geminiBaseUrl: string | undefined;
    openaiApiKey: string | undefined;
    openaiImageModel: string | undefined;
    openaiBaseUrl: string | undefined;
    falKey: string | undefined;
    falBaseUrl: string | undefined;
    maxConcurrent: number;
    callsPerMinute: number;
  };
  adminEmails: Set<string>;
  jobWorkers: number;
  /** Render threads of the local image model (its face models run in one more thread). */
  localModelWorkers: number;
  jobTimeoutMs: number;
  jobLeaseMs: number;
  storage: "local" | "s3";
  /** Set when storage is "s3". */
  s3: {
    endpoint?: string;
    bucket: string;
    region: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    forcePathStyle: boolean;
  } | undefined;
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
  /**
   * `operator`: for an operator command (`deno task admin`, `promo`), which opens the database and nothing
   * else: what only serving needs (JWT_SECRET, a model's key, the webhook secret) is not asked.
   */
  opts: { operator?: boolean } = {},
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
  // A hosted model without its key cannot generate anything: stop at boot, naming the variable.
  const missingKey = e.IMAGE_MODEL === "gemini" && !e.GEMINI_API_KEY
    ? "GEMINI_API_KEY: required when IMAGE_MODEL=gemini"
    : e.IMAGE_MODEL === "openai" && !e.OPENAI_API_KEY
    ? "OPENAI_API_KEY: required when IMAGE_MODEL=openai"
    : e.IMAGE_MODEL === "fal" && !e.FAL_KEY
    ? "FAL_KEY: required when IMAGE_MODEL=fal"
    : e.IMAGE_MODEL === "hybrid" && !e.GEMINI_API_KEY && !e.OPENAI_API_KEY && !e.FAL_KEY
    ? "GEMINI_API_KEY: GEMINI_API_KEY, OPENAI_API_KEY or FAL_KEY is required when IMAGE_MODEL=hybrid"
    : undefined;
  if (missingKey && !opts.operator) throw new ConfigError(`Invalid configuration:\n  ${missingKey}`);
  // Renewals and refunds arrive only by webhook: in production, or with a live key (real money) anywhere, stop
  // at boot. Elsewhere (trying Stripe's test mode, checkouts fulfilled by the status call) the webhook refuses
  // every event until it is set.
  const liveKey = e.STRIPE_SECRET_KEY?.startsWith("sk_live_") ?? false;
  if (!opts.operator && (production || liveKey) && e.STRIPE_SECRET_KEY && !e.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY in production or with a live key (renewals and refunds arrive by its webhooks)",
    );
  }
  if (!opts.operator && production && !e.JWT_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  JWT_SECRET: required in production",
    );
  }
  // A short HMAC key or bearer token can be guessed: in production they must be long; elsewhere anything goes.
  const short = [
    production && e.JWT_SECRET && e.JWT_SECRET.length < 32 && "JWT_SECRET: must be at least 32 characters",
    production && e.METRICS_TOKEN && e.METRICS_TOKEN.length < 16 &&
    "METRICS_TOKEN: must be at least 16 characters",
  ].filter(Boolean);
  if (short.length > 0 && !opts.operator) {
    throw new ConfigError(`Invalid configuration:\n  ${short.join("\n  ")}`);
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
    hosted: {
      geminiApiKey: e.GEMINI_API_KEY,
      geminiModel: e.GEMINI_MODEL,
      geminiBaseUrl: e.GEMINI_BASE_URL,
      openaiApiKey: e.OPENAI_API_KEY,
      openaiImageModel: e.OPENAI_IMAGE_MODEL,
      openaiBaseUrl: e.OPENAI_BASE_URL,
      falKey: e.FAL_KEY,
      falBaseUrl: e.FAL_BASE_URL,
      maxConcurrent: e.HOSTED_MAX_CONCURRENT,
      callsPerMinute: e.HOSTED_CALLS_PER_MINUTE,
    },
    adminEmails: new Set(
      e.ADMIN_EMAILS.split(",").map((s) => s.trim().toLowerCase()).filter(
        Boolean,
      ),
    ),
    jobWorkers: e.JOB_WORKERS,
    localModelWorkers: e.LOCAL_MODEL_WORKERS ??
      localModelWorkersFor(e.JOB_WORKERS, navigator.hardwareConcurrency),
    jobTimeoutMs: e.JOB_TIMEOUT_SECONDS * 1000,
    jobLeaseMs: e.JOB_LEASE_SECONDS * 1000,
    storage: e.STORAGE,
    s3: e.STORAGE === "s3"
      ? {
        endpoint: e.S3_ENDPOINT,
        bucket: e.S3_BUCKET!,
        region: e.S3_REGION ?? e.AWS_REGION ?? e.AWS_DEFAULT_REGION ?? "us-east-1",
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
      }
      : undefined,
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
    stripeApiBase: e.STRIPE_API_BASE ?? e.STRIPE_BASE_URL,
    checkoutSessionMs: Math.round(e.CHECKOUT_SESSION_MINUTES * 60_000),
  };
}

/**
 * The local model's default render threads: one per core beyond the first, at most one per job
 * run at once. The main thread (API, database), the face-models thread and libvips' threads share
 * the first core; on a 2-core machine a second render thread drained a queue of 20 looks no faster
 * (6.3 vs 6.2 s on a quiet machine, slower under load) and cost ~80 MB at the peak
 * (docs/decisions/017-server-speed-and-memory.md).
 */
export function localModelWorkersFor(jobWorkers: number, cores: number): number {
  return Math.max(1, Math.min(jobWorkers, (cores || 1) - 1));
}
