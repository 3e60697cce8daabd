/**
 * Data access for the store: promotion codes and their redemptions, checkout
 * sessions, subscriptions and processed webhook events. Drizzle only; the
 * rules live in the services.
 */
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import {
  checkoutSessions,
  promotionCodes,
  promotionRedemptions,
  subscriptions,
  users,
  webhookEvents,
} from "../../db/schema.ts";

export type PromotionCodeRow = typeof promotionCodes.$inferSelect;
export type NewPromotionCode = typeof promotionCodes.$inferInsert;
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;
export type NewCheckoutSession = typeof checkoutSessions.$inferInsert;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

// ---- promotion codes ----

export async function findPromotionByCode(db: DbOrTx, code: string): Promise<PromotionCodeRow | null> {
  const [row] = await db.select().from(promotionCodes).where(eq(promotionCodes.code, code));
  return row ?? null;
}

export async function findPromotionById(db: DbOrTx, id: string): Promise<PromotionCodeRow | null> {
  const [row] = await db.select().from(promotionCodes).where(eq(promotionCodes.id, id));
  return row ?? null;
}

export async function insertPromotion(db: DbOrTx, row: NewPromotionCode): Promise<PromotionCodeRow | null> {
  const [inserted] = await db.insert(promotionCodes).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

export function listPromotions(db: DbOrTx): Promise<PromotionCodeRow[]> {
  return db.select().from(promotionCodes).orderBy(desc(promotionCodes.createdAt));
}

export async function setPromotionActive(db: DbOrTx, code: string, active: boolean): Promise<boolean> {
  const rows = await db.update(promotionCodes).set({ active }).where(eq(promotionCodes.code, code))
    .returning({ id: promotionCodes.id });
  return rows.length > 0;
}

export async function hasRedeemed(db: DbOrTx, promotionCodeId: string, userId: string): Promise<boolean> {
  const [row] = await db.select({ id: promotionRedemptions.id }).from(promotionRedemptions)
    .where(
      and(eq(promotionRedemptions.promotionCodeId, promotionCodeId), eq(promotionRedemptions.userId, userId)),
    );
  return !!row;
}

/**
 * Counts one redemption if the code still has one left: a single conditional UPDATE, so
 * concurrent fulfilments of a 1-use code raise the counter once and the rest get false.
 */
export async function takeRedemption(tx: DbOrTx, promotionCodeId: string): Promise<boolean> {
  const rows = await tx.update(promotionCodes)
    .set({ timesRedeemed: sql`${promotionCodes.timesRedeemed} + 1` })
    .where(and(
      eq(promotionCodes.id, promotionCodeId),
      or(
        isNull(promotionCodes.maxRedemptions),
        lt(promotionCodes.timesRedeemed, promotionCodes.maxRedemptions),
      ),
    ))
    .returning({ id: promotionCodes.id });
  return rows.length > 0;
}

/** Records the redemption; false when this user (or this session) already has one. */
export async function insertRedemption(
  tx: DbOrTx,
  row: { promotionCodeId: string; userId: string; checkoutSessionId: string },
): Promise<boolean> {
  const rows = await tx.insert(promotionRedemptions).values(row).onConflictDoNothing()
    .returning({ id: promotionRedemptions.id });
  return rows.length > 0;
}

export async function deleteRedemptionOfSession(tx: DbOrTx, checkoutSessionId: string): Promise<void> {
  await tx.delete(promotionRedemptions).where(eq(promotionRedemptions.checkoutSessionId, checkoutSessionId));
}

// ---- checkout sessions ----

export async function insertCheckoutSession(
  db: DbOrTx,
  row: NewCheckoutSession,
): Promise<CheckoutSessionRow> {
  const [inserted] = await db.insert(checkoutSessions).values(row).returning();
  return inserted;
}

export async function findCheckoutSession(db: DbOrTx, id: string): Promise<CheckoutSessionRow | null> {
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return row ?? null;
}

/** Locks the session row for the rest of the transaction: one fulfilment at a time per session. */
export async function lockCheckoutSession(tx: DbOrTx, id: string): Promise<CheckoutSessionRow | null> {
  const [row] = await tx.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).for("update");
  return row ?? null;
}

export async function findCheckoutSessionByPayment(
  db: DbOrTx,
  providerPaymentId: string,
): Promise<CheckoutSessionRow | null> {
  const [row] = await db.select().from(checkoutSessions)
    .where(eq(checkoutSessions.providerPaymentId, providerPaymentId));
  return row ?? null;
}

export async function updateCheckoutSession(
  db: DbOrTx,
  id: string,
  patch: Partial<NewCheckoutSession>,
): Promise<void> {
  await db.update(checkoutSessions).set(patch).where(eq(checkoutSessions.id, id));
}

// ---- subscriptions ----

export async function findSubscriptionByUser(db: DbOrTx, userId: string): Promise<SubscriptionRow | null> {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
  return row ?? null;
}

export async function lockSubscriptionByUser(tx: DbOrTx, userId: string): Promise<SubscriptionRow | null> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.userId, userId)).for("update");
  return row ?? null;
}

export async function findSubscriptionByProviderId(
  db: DbOrTx,
  providerSubscriptionId: string,
): Promise<SubscriptionRow | null> {
  const [row] = await db.select().from(subscriptions)
    .where(eq(subscriptions.providerSubscriptionId, providerSubscriptionId));
  return row ?? null;
}

/** Creates or replaces the user's subscription (an upgrade replaces the plan in place). */
export async function upsertSubscription(
  tx: DbOrTx,
  row: typeof subscriptions.$inferInsert,
): Promise<SubscriptionRow> {
  const { userId: _userId, ...rest } = row;
  const [saved] = await tx.insert(subscriptions).values(row)
    .onConflictDoUpdate({ target: subscriptions.userId, set: { ...rest, updatedAt: new Date() } })
    .returning();
  return saved;
}

export async function updateSubscription(
  db: DbOrTx,
  id: string,
  patch: Partial<typeof subscriptions.$inferInsert>,
): Promise<void> {
  await db.update(subscriptions).set({ ...patch, updatedAt: new Date() }).where(eq(subscriptions.id, id));
}

// ---- webhook events ----

/** Records a delivered event id; false when it was already seen. */
export async function recordWebhookEvent(
  tx: DbOrTx,
  row: { id: string; provider: string; type: string },
): Promise<boolean> {
  const rows = await tx.insert(webhookEvents).values(row).onConflictDoNothing().returning({
    id: webhookEvents.id,
  });
  return rows.length > 0;
}

// ---- users ----

export async function findUserIdByEmail(db: DbOrTx, email: string): Promise<string | null> {
  const [row] = await db.select({ id: users.id }).from(users)
    .where(and(eq(users.email, email.trim().toLowerCase()), isNull(users.deletedAt)));
  return row?.id ?? null;
}

export async function hasWebhookEvent(db: DbOrTx, id: string): Promise<boolean> {
  const [row] = await db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.id, id));
  return !!row;
}
