/**
 * The sandbox's hosted checkout: what its page shows and what paying or
 * cancelling does. It takes Stripe's usual test cards; nothing is charged.
 */
import type { Db } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { fulfilCheckoutSession } from "./fulfilment.service.ts";
import {
  type CheckoutSessionRow,
  findCheckoutSession,
  updateCheckoutSession,
} from "./payments.repository.ts";

export const TEST_CARDS = {
  success: "4242424242424242",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
} as const;

export const DECLINE_MESSAGES = {
  declined: "Your card was declined. Try the test card 4242 4242 4242 4242.",
  insufficientFunds: "Your card has insufficient funds.",
  invalidNumber: "Your card number is invalid. Use a test card such as 4242 4242 4242 4242.",
  invalidExpiry: "Your card's expiration date is invalid.",
  invalidCvc: "Your card's security code is invalid.",
} as const;

/** The page's view of a session: payable, paid or expired. */
export async function loadSandboxSession(
  db: Db,
  id: string,
  now = new Date(),
): Promise<CheckoutSessionRow> {
  const row = await findCheckoutSession(db, id);
  if (!row || row.provider !== "sandbox") throw new AppError(404, "Checkout session not found");
  if (row.status === "open" && row.expiresAt <= now) {
    await updateCheckoutSession(db, id, { status: "expired" });
    return { ...row, status: "expired" };
  }
  return row;
}

export function successRedirect(row: CheckoutSessionRow): string {
  return row.successUrl;
}

export interface CardInput {
  number: string;
  expiry: string;
  cvc: string;
}

function expiryValid(expiry: string, now: Date): boolean {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!m) return false;
  const month = Number(m[1]);
  const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return false;
  // Valid through the last day of its month.
  return new Date(Date.UTC(year, month, 1)) > now;
}

export type PayOutcome =
  | { kind: "paid"; redirect: string }
  | { kind: "declined"; message: string }
  | { kind: "expired" };

export async function paySandboxSession(
  db: Db,
  id: string,
  card: CardInput,
  now = new Date(),
): Promise<PayOutcome> {
  const row = await loadSandboxSession(db, id, now);
  if (row.fulfilledAt) return { kind: "paid", redirect: successRedirect(row) };
  if (row.status === "expired") return { kind: "expired" };
  const number = card.number.replace(/[\s-]/g, "");
  let decline: string | null = null;
  if (!/^\d{12,19}$/.test(number)) decline = DECLINE_MESSAGES.invalidNumber;
  else if (!expiryValid(card.expiry, now)) decline = DECLINE_MESSAGES.invalidExpiry;
  else if (!/^\d{3,4}$/.test(card.cvc.trim())) decline = DECLINE_MESSAGES.invalidCvc;
  else if (number === TEST_CARDS.declined) decline = DECLINE_MESSAGES.declined;
  else if (number === TEST_CARDS.insufficientFunds) decline = DECLINE_MESSAGES.insufficientFunds;
  else if (number !== TEST_CARDS.success) decline = DECLINE_MESSAGES.invalidNumber;
  if (decline) {
    await updateCheckoutSession(db, id, { declineMessage: decline });
    return { kind: "declined", message: decline };
  }
  await fulfilCheckoutSession(db, id, { paymentId: `pi_sandbox_${id.slice("cs_sandbox_".length)}`, now });
  return { kind: "paid", redirect: successRedirect(row) };
}
