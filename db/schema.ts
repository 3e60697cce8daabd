/**
 * The data model (ARCHITECTURE.md "Data model"). Migrations in migrations/
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
}, (t) => [
  index("generations_user_created_idx").on(t.userId, t.createdAt),
  index("generations_claim_idx").on(t.status, t.runAfter),
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
