/**
 * The data model (docs/architecture.md). Migrations in migrations/
 * are generated from this file with `deno task db:generate`; the same SQL
 * runs on PGlite and Postgres.
 */
import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { PROFILE_GENDERS } from "../server/users/users.schemas.ts";

// Millisecond precision: JS Dates round-trip exactly, so (created_at, id) cursors are exact.
const createdAt = () => timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow();

export const users = pgTable("users", {
  id: uuid("id").primaryKey().defaultRandom(),
  // Stored trimmed and lower-cased (users_email_normalized enforces it), so lower(email)
  // lookups and the unique index below agree with what the service wrote.
  email: text("email").notNull(),
  passwordHash: text("password_hash").notNull(),
  fullName: text("full_name").notNull(),
  profileImageUrl: text("profile_image_url"),
  role: text("role", { enum: ["user", "admin"] }).notNull().default("user"),
  isActive: boolean("is_active").notNull().default(true),
  isVerified: boolean("is_verified").notNull().default(false),
  /** Cached balance; always equals the sum of the user's credit_ledger rows. */
  credits: integer("credits").notNull().default(0),
  createdAt: createdAt(),
  deletedAt: timestamp("deleted_at", { withTimezone: true }),
}, (t) => [
  // One live account per email, case-insensitively; a soft-deleted account frees its email.
  uniqueIndex("users_email_live_key").on(sql`lower(${t.email})`).where(sql`${t.deletedAt} is null`),
  check("users_email_normalized", sql`${t.email} = lower(btrim(${t.email}))`),
  check("users_credits_nonnegative", sql`${t.credits} >= 0`),
  check("users_role_valid", sql`${t.role} in ('user', 'admin')`),
]);

export const refreshTokens = pgTable("refresh_tokens", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** SHA-256 of the opaque token; the token itself is never stored. */
  tokenHash: text("token_hash").notNull(),
  userId: uuid("user_id").notNull().references(() => users.id, {
    onDelete: "cascade",
  }),
  /** One family per sign-in; rotation keeps the family, reuse revokes it whole. */
  family: uuid("family").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  /** Set when rotated (a newer token exists) or when the family is revoked. */
  rotatedAt: timestamp("rotated_at", { withTimezone: true }),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex("refresh_tokens_hash_key").on(t.tokenHash),
  index("refresh_tokens_family_idx").on(t.family),
  index("refresh_tokens_user_idx").on(t.userId),
  // The session sweep deletes expired rows (security migration 0007).
  index("refresh_tokens_expires_idx").on(t.expiresAt),
]);

export const photos = pgTable("photos", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** Null for an anonymous upload until a signed-in user generates with it. */
  ownerId: uuid("owner_id").references(() => users.id, { onDelete: "cascade" }),
  storageKey: text("storage_key").notNull(),
  mime: text("mime").notNull(),
  width: integer("width").notNull(),
  height: integer("height").notNull(),
  bytes: integer("bytes").notNull(),
  sha256: text("sha256").notNull(),
  /** Anonymous uploads expire (24 h); claimed and owned photos do not. */
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex("photos_storage_key_key").on(t.storageKey),
  index("photos_owner_idx").on(t.ownerId),
  index("photos_expires_idx").on(t.expiresAt),
]);

export type GenerationStatus = "queued" | "processing" | "completed" | "failed";
export type GenerationResults = Partial<
  Record<"front" | "right" | "left" | "back", string>
>;

export const generations = pgTable("generations", {
  id: uuid("id").primaryKey().defaultRandom(),
  userId: uuid("user_id").notNull().references(() => users.id, {
    onDelete: "cascade",
  }),
  photoId: uuid("photo_id").references(() => photos.id, {
    onDelete: "set null",
  }),
  referencePhotoIds: jsonb("reference_photo_ids").$type<string[]>().notNull()
    .default([]),
  studioType: text("studio_type", { enum: ["makeup", "hair", "barber"] })
    .notNull(),
  options: jsonb("options").$type<Record<string, string>>().notNull(),
  intensity: jsonb("intensity").$type<Record<string, number>>().notNull(),
  additionalInstructions: text("additional_instructions"),
  view360: boolean("view360").notNull().default(false),
  status: text("status", {
    enum: ["queued", "processing", "completed", "failed"],
  }).notNull()
    .default("queued"),
  /** Storage keys per angle; an angle the model cannot make is absent. */
  results: jsonb("results").$type<GenerationResults>().notNull().default({}),
  notes: jsonb("notes").$type<string[]>().notNull().default([]),
  error: text("error"),
  creditsCharged: integer("credits_charged").notNull().default(0),
  attempts: integer("attempts").notNull().default(0),
  /** A claimed job belongs to its worker until this instant; then anyone may reclaim it. */
  leaseUntil: timestamp("lease_until", { withTimezone: true }),
  /** Backoff: a retried job is not claimed before this instant. */
  runAfter: timestamp("run_after", { withTimezone: true }).notNull()
    .defaultNow(),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull()
    .defaultNow(),
  completedAt: timestamp("completed_at", { withTimezone: true }),
  // Operations: retry-safe POST /api/generate and who holds a job's lease.
  /** The client's Idempotency-Key: a retried request with it returns this job, charged once. */
  idempotencyKey: text("idempotency_key"),
  /** SHA-256 of the request the key was first used with; another body under the same key is refused. */
  requestHash: text("request_hash"),
  /** The process (host:pid) whose worker holds the claim; its heartbeat renews lease_until. */
  claimedBy: text("claimed_by"),
  // Hosted models (migration 0005_hosted_models): what made the result and what it was asked.
  /** The image model that ran the job (local, gemini, openai, hybrid). */
  model: text("model"),
  /** The prompt a hosted model received for the front view (null for the local model). */
  prompt: text("prompt"),
}, (t) => [
  // Performance: the history's ORDER BY (created_at DESC, id DESC) read straight off the index.
  index("generations_user_history_idx")
    .on(t.userId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  index("generations_claim_idx").on(t.status, t.runAfter),
  uniqueIndex("generations_user_idempotency_key").on(t.userId, t.idempotencyKey)
    .where(sql`${t.idempotencyKey} is not null`),
]);

export const creditLedger = pgTable("credit_ledger", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  userId: uuid("user_id").notNull().references(() => users.id, {
    onDelete: "cascade",
  }),
  delta: integer("delta").notNull(),
  balanceAfter: integer("balance_after").notNull(),
  /** welcome | generation_charge | generation_refund | purchase | subscription | adjustment */
  reason: text("reason").notNull(),
  /** With reason, the idempotency key: a retried side effect collides here instead of paying twice. */
  ref: text("ref").notNull(),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex("credit_ledger_reason_ref_key").on(t.reason, t.ref),
  index("credit_ledger_user_idx").on(t.userId),
]);

// ---- Dashboard profiles (dashboard area; migration 0003_profiles) ----

export const profiles = pgTable("profiles", {
  userId: uuid("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  firstName: text("first_name"),
  lastName: text("last_name"),
  phone: text("phone"),
  /** ISO date (YYYY-MM-DD); only the date part exists. */
  dateOfBirth: date("date_of_birth", { mode: "string" }),
  gender: text("gender", { enum: PROFILE_GENDERS }),
  location: text("location"),
  bio: text("bio"),
  stylingPreferences: jsonb("styling_preferences").$type<Record<string, unknown>>().notNull().default({}),
  favoriteStyles: text("favorite_styles").array().notNull().default(sql`'{}'::text[]`),
  colorPreferences: text("color_preferences").array().notNull().default(sql`'{}'::text[]`),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
}, (t) => [
  check(
    "profiles_gender_valid",
    sql`${t.gender} is null or ${t.gender} in ('male', 'female', 'other', 'prefer-not-to-say')`,
  ),
]);

// ---- Payments: the credits store (promotion codes, checkout sessions, subscriptions, webhook events) ----

export const promotionCodes = pgTable("promotion_codes", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** Stored trimmed and upper-cased; customers type it in any case. */
  code: text("code").notNull(),
  discountType: text("discount_type", { enum: ["percentage", "fixed_amount"] }).notNull(),
  /** Percent (1-100) or cents off. */
  discountValue: integer("discount_value").notNull(),
  appliesTo: text("applies_to", { enum: ["credits", "subscription", "both"] }).notNull().default("both"),
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  maxRedemptions: integer("max_redemptions"),
  /** Counts fulfilled redemptions; raised only while below max_redemptions. */
  timesRedeemed: integer("times_redeemed").notNull().default(0),
  active: boolean("active").notNull().default(true),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex("promotion_codes_code_key").on(t.code),
  check("promotion_codes_code_normalized", sql`${t.code} = upper(btrim(${t.code}))`),
  check(
    "promotion_codes_value_valid",
    sql`${t.discountValue} > 0 and (${t.discountType} <> 'percentage' or ${t.discountValue} <= 100)`,
  ),
  check(
    "promotion_codes_redemptions_valid",
    sql`${t.maxRedemptions} is null or ${t.timesRedeemed} <= ${t.maxRedemptions}`,
  ),
]);

export const checkoutSessions = pgTable("checkout_sessions", {
  /** The provider's session id (Stripe `cs_...`, sandbox `cs_sandbox_...`); the success URL carries it. */
  id: text("id").primaryKey(),
  provider: text("provider", { enum: ["sandbox", "stripe"] }).notNull(),
  userId: uuid("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  kind: text("kind", { enum: ["credits", "subscription"] }).notNull(),
  packageId: text("package_id"),
  plan: text("plan"),
  credits: integer("credits").notNull(),
  /** Cents before the discount, the discount, and what is charged. */
  amountSubtotal: integer("amount_subtotal").notNull(),
  amountDiscount: integer("amount_discount").notNull().default(0),
  amountTotal: integer("amount_total").notNull(),
  currency: text("currency").notNull().default("usd"),
  promotionCodeId: uuid("promotion_code_id").references(() => promotionCodes.id, { onDelete: "set null" }),
  status: text("status", { enum: ["open", "complete", "expired"] }).notNull().default("open"),
  paymentStatus: text("payment_status", { enum: ["unpaid", "paid", "no_payment_required"] }).notNull()
    .default("unpaid"),
  /** The sandbox's last decline message, shown on its checkout page. */
  declineMessage: text("decline_message"),
  /** Stripe payment intent (refunds find the purchase through it). */
  providerPaymentId: text("provider_payment_id"),
  successUrl: text("success_url").notNull(),
  cancelUrl: text("cancel_url").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  fulfilledAt: timestamp("fulfilled_at", { withTimezone: true }),
  createdAt: createdAt(),
}, (t) => [
  index("checkout_sessions_user_idx").on(t.userId),
  index("checkout_sessions_payment_idx").on(t.providerPaymentId),
]);

export const promotionRedemptions = pgTable("promotion_redemptions", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  promotionCodeId: uuid("promotion_code_id").notNull().references(() => promotionCodes.id, {
    onDelete: "cascade",
  }),
  userId: uuid("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  checkoutSessionId: text("checkout_session_id").notNull().references(() => checkoutSessions.id, {
    onDelete: "cascade",
  }),
  createdAt: createdAt(),
}, (t) => [
  // Once per user; one code per session.
  uniqueIndex("promotion_redemptions_code_user_key").on(t.promotionCodeId, t.userId),
  uniqueIndex("promotion_redemptions_session_key").on(t.checkoutSessionId),
]);

export const subscriptions = pgTable("subscriptions", {
  id: uuid("id").primaryKey().defaultRandom(),
  userId: uuid("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  plan: text("plan", { enum: ["starter", "pro", "creator"] }).notNull(),
  /** Stripe's subscription statuses: active, past_due, canceled, incomplete, ... */
  status: text("status").notNull(),
  provider: text("provider", { enum: ["sandbox", "stripe"] }).notNull(),
  providerSubscriptionId: text("provider_subscription_id"),
  providerCustomerId: text("provider_customer_id"),
  currentPeriodStart: timestamp("current_period_start", { withTimezone: true }).notNull(),
  currentPeriodEnd: timestamp("current_period_end", { withTimezone: true }).notNull(),
  cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  // One subscription row per user: an upgrade replaces the plan in place.
  uniqueIndex("subscriptions_user_key").on(t.userId),
  uniqueIndex("subscriptions_provider_id_key").on(t.providerSubscriptionId),
]);

export const webhookEvents = pgTable("webhook_events", {
  /** The provider's event id: a redelivered event collides here. */
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  type: text("type").notNull(),
  createdAt: createdAt(),
});

// --- Security (rate limits shared by every process on one database) ---

/** One fixed window per rate-limit key; rows past reset_at are dead and swept. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  count: integer("count").notNull(),
  resetAt: timestamp("reset_at", { withTimezone: true, precision: 3 }).notNull(),
}, (t) => [index("rate_limits_reset_idx").on(t.resetAt)]);
