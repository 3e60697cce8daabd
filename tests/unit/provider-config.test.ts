/**
 * The providers' and stores' settings as an operator (or a test harness) writes them: keys and secrets of any
 * length outside production, model ids with the SDK's resource prefix, base URLs with or without the API's
 * version path, S3 endpoints, bucket names and regions as S3 names them, and Stripe's webhook secret required
 * only where renewals depend on it.
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../server/config.ts";
import { geminiBaseUrl, geminiMaxInputImages } from "../../server/imaging/hosted/gemini-provider.ts";
import { WebhookSignatureError } from "../../server/payments/providers/payment-provider.ts";

Deno.test("config: a short provider key is a key; an empty or spaced one stops the boot, naming it", () => {
  const gemini = loadConfig({ IMAGE_MODEL: "gemini", GEMINI_API_KEY: "test-key" });
  assert.equal(gemini.imageModel, "gemini");
  loadConfig({ IMAGE_MODEL: "openai", OPENAI_API_KEY: "sk-test" });
  assert.throws(
    () => loadConfig({ IMAGE_MODEL: "openai", OPENAI_API_KEY: "sk test" }),
    /OPENAI_API_KEY is malformed/,
  );
  assert.throws(() => loadConfig({ IMAGE_MODEL: "gemini", GEMINI_API_KEY: "" }), ConfigError);
});

Deno.test("config: GEMINI_MODEL with or without the SDK's models/ prefix", () => {
  loadConfig({ GEMINI_MODEL: "models/gemini-2.5-flash-image" });
  loadConfig({ GEMINI_MODEL: "gemini-2.5-flash-image" });
  assert.throws(() => loadConfig({ GEMINI_MODEL: "../etc/passwd" }), /must be a Gemini model id/);
});

Deno.test("config: STRIPE_WEBHOOK_SECRET is required with a Stripe key in production only", () => {
  const stripe = { STRIPE_SECRET_KEY: "sk_test_123" };
  assert.equal(loadConfig(stripe).paymentProvider, "stripe");
  assert.throws(
    () => loadConfig({ ...stripe, NODE_ENV: "production", JWT_SECRET: "x".repeat(40) }),
    /STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY in production or with a live key/,
  );
  // A live key takes real money: its renewals and refunds need the webhook wherever it runs.
  assert.throws(() => loadConfig({ STRIPE_SECRET_KEY: "sk_live_123" }), /STRIPE_WEBHOOK_SECRET/);
});

Deno.test("gemini: the base URL is the API's origin; a version path given with it is taken off", () => {
  for (const given of ["http://127.0.0.1:9000", "http://127.0.0.1:9000/", "http://127.0.0.1:9000/v1beta/"]) {
    assert.equal(geminiBaseUrl(given), "http://127.0.0.1:9000");
  }
  assert.equal(geminiBaseUrl("https://proxy.example/gemini/v1"), "https://proxy.example/gemini");
});

Deno.test("stripe: without STRIPE_WEBHOOK_SECRET every webhook is refused as unverifiable", async () => {
  const { createStripeProvider } = await import("../../server/payments/providers/stripe.ts");
  const stripe = createStripeProvider({ secretKey: "sk_test_123", apiBase: "http://127.0.0.1:9" });
  const body = new TextEncoder().encode(JSON.stringify({ id: "evt_1", object: "event", type: "x" }));
  await assert.rejects(
    stripe.verifyWebhook(body, `t=${Math.floor(Date.now() / 1000)},v1=00`),
    (e: Error) => e instanceof WebhookSignatureError && /STRIPE_WEBHOOK_SECRET is not set/.test(e.message),
  );
});

Deno.test("config: short JWT_SECRET and METRICS_TOKEN are taken outside production, refused in production", () => {
  const short = { JWT_SECRET: "test-secret", METRICS_TOKEN: "metrics" };
  assert.equal(loadConfig(short).jwtSecret, "test-secret");
  assert.throws(
    () => loadConfig({ ...short, NODE_ENV: "production" }),
    (e: Error) =>
      /JWT_SECRET: must be at least 32 characters/.test(e.message) &&
      /METRICS_TOKEN: must be at least 16 characters/.test(e.message),
  );
  loadConfig({ NODE_ENV: "production", JWT_SECRET: "x".repeat(32), METRICS_TOKEN: "m".repeat(16) });
});

Deno.test("config: S3 settings as S3 names them; the region from AWS_REGION when S3_REGION is unset", () => {
  const s3 = { STORAGE: "s3", S3_BUCKET: "styletwin-images" };
  assert.equal(loadConfig({ ...s3, AWS_REGION: "eu-west-3" }).s3!.region, "eu-west-3");
  assert.equal(
    loadConfig({ ...s3, AWS_REGION: "eu-west-3", S3_REGION: "us-west-2" }).s3!.region,
    "us-west-2",
  );
  assert.equal(loadConfig(s3).s3!.region, "us-east-1");
  assert.throws(() => loadConfig({ ...s3, S3_ENDPOINT: "minio:9000" }), /S3_ENDPOINT: must be an http/);
  assert.throws(() => loadConfig({ ...s3, S3_BUCKET: "My_Bucket" }), /S3_BUCKET: must be an S3 bucket name/);
  assert.equal(
    loadConfig({ ...s3, S3_ENDPOINT: "http://127.0.0.1:9000/" }).s3!.endpoint,
    "http://127.0.0.1:9000/",
  );
});

Deno.test("gemini: a model id with the SDK's models/ prefix keeps its input-image limit", () => {
  assert.equal(geminiMaxInputImages("models/gemini-2.5-flash-image"), 3);
  assert.equal(geminiMaxInputImages("gemini-2.5-flash-image"), 3);
  assert.equal(geminiMaxInputImages("gemini-3-pro-image-preview"), 14);
});

Deno.test("config: an operator command (admin, promo) in production needs only the database's settings", () => {
  // The image sets DENO_ENV=production; `docker run ... deno task admin <email>` passes no JWT_SECRET.
  const production = { DENO_ENV: "production", STRIPE_SECRET_KEY: "sk_live_x", IMAGE_MODEL: "gemini" };
  assert.throws(() => loadConfig(production), /Invalid configuration/);
  assert.equal(loadConfig(production, { operator: true }).production, true);
});

Deno.test("config: DATABASE_URL is a Postgres URL", () => {
  assert.throws(
    () => loadConfig({ DATABASE_URL: "mysql://root@db/styletwin" }),
    /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
  );
  for (const url of ["postgres://u@db/x", "postgresql://u@db:5432/x?sslmode=require"]) {
    assert.equal(loadConfig({ DATABASE_URL: url }).databaseUrl, url);
  }
});
