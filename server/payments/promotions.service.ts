/**
 * Promotion codes: creating them (the `promo` task), and quoting a purchase
 * with one. A quote is checked again when the checkout is created and the
 * redemption is recorded only when the payment is fulfilled
 * (fulfilment.service.ts). Rules:
 * - codes are trimmed and case-insensitive (stored upper-case);
 * - unknown, disabled, expired, used-up or already-redeemed codes are refused with a message;
 * - a code applies to credit packs, subscriptions or both;
 * - the charge never goes below the providers' minimum ($0.50): a code that would take it lower
 *   (a 100% code included) is refused for that purchase, never turned into a free grant.
 */
import type { DbOrTx } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { formatCents, PACKAGES, PLANS } from "./catalog.ts";
import {
  MINIMUM_CHARGE_CENTS,
  PACKAGE_IDS,
  type PackageId,
  PLAN_IDS,
  type PlanId,
  type PromotionValidation,
} from "./payments.schemas.ts";
import {
  findPromotionByCode,
  hasRedeemed,
  insertPromotion,
  type PromotionCodeRow,
} from "./payments.repository.ts";

export const PROMO_MESSAGES = {
  invalid: "Invalid promotion code",
  expired: "This promotion code has expired",
  usedUp: "This promotion code has reached its usage limit",
  alreadyUsed: "You have already used this promotion code",
  notForCredits: "This promotion code does not apply to credit purchases",
  notForSubscriptions: "This promotion code does not apply to subscriptions",
  belowMinimum: `This promotion code cannot be used here: the total would be below the ${
    formatCents(MINIMUM_CHARGE_CENTS)
  } minimum charge`,
} as const;

export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

export type PurchaseItem = { kind: "credits"; packageId: PackageId } | { kind: "subscription"; plan: PlanId };

export function priceOf(item: PurchaseItem): number {
  return item.kind === "credits" ? PACKAGES[item.packageId].priceCents : PLANS[item.plan].priceCents;
}

export interface Quote {
  subtotalCents: number;
  discountCents: number;
  totalCents: number;
  promotion: PromotionCodeRow | null;
}

/**
 * A refusal names the code's row when the minimum charge was its only fault (the code itself is good for this
 * kind of purchase and this user), so validation can say where else it fits without asking again.
 */
export type QuoteResult =
  | { ok: true; quote: Quote }
  | { ok: false; message: string; belowMinimum?: PromotionCodeRow };

export function discountFor(
  promo: Pick<PromotionCodeRow, "discountType" | "discountValue">,
  cents: number,
): number {
  const off = promo.discountType === "percentage"
    ? Math.round((cents * promo.discountValue) / 100)
    : promo.discountValue;
  return Math.min(cents, off);
}

/** Checks a code against one purchase by one user (or by anyone, when userId is null). */
export async function quote(
  db: DbOrTx,
  input: { code: string | null | undefined; item: PurchaseItem; userId: string | null; now?: Date },
): Promise<QuoteResult> {
  const subtotal = priceOf(input.item);
  const code = normalizeCode(input.code ?? "");
  if (!code) {
    return {
      ok: true,
      quote: { subtotalCents: subtotal, discountCents: 0, totalCents: subtotal, promotion: null },
    };
  }
  const promo = await findPromotionByCode(db, code);
  const now = input.now ?? new Date();
  if (!promo || !promo.active) return { ok: false, message: PROMO_MESSAGES.invalid };
  if (promo.expiresAt && promo.expiresAt <= now) return { ok: false, message: PROMO_MESSAGES.expired };
  if (promo.maxRedemptions !== null && promo.timesRedeemed >= promo.maxRedemptions) {
    return { ok: false, message: PROMO_MESSAGES.usedUp };
  }
  if (input.item.kind === "credits" && promo.appliesTo === "subscription") {
    return { ok: false, message: PROMO_MESSAGES.notForCredits };
  }
  if (input.item.kind === "subscription" && promo.appliesTo === "credits") {
    return { ok: false, message: PROMO_MESSAGES.notForSubscriptions };
  }
  if (input.userId && await hasRedeemed(db, promo.id, input.userId)) {
    return { ok: false, message: PROMO_MESSAGES.alreadyUsed };
  }
  const discount = discountFor(promo, subtotal);
  const total = subtotal - discount;
  if (total < MINIMUM_CHARGE_CENTS) {
    return { ok: false, message: PROMO_MESSAGES.belowMinimum, belowMinimum: promo };
  }
  return {
    ok: true,
    quote: { subtotalCents: subtotal, discountCents: discount, totalCents: total, promotion: promo },
  };
}

const toDollars = (cents: number) => Math.round(cents) / 100;

/** POST /api/payments/promotion-code/validate: refusals are answers (200), not errors. */
export async function validatePromotion(
  db: DbOrTx,
  input: { code: string; item: PurchaseItem; userId: string | null },
): Promise<PromotionValidation> {
  const subtotal = priceOf(input.item);
  if (!normalizeCode(input.code)) {
    return {
      success: false,
      message: "Please enter a promotion code",
      discount_amount: 0,
      final_amount: toDollars(subtotal),
      discount_type: null,
      discount_value: 0,
    };
  }
  const result = await quote(db, input);
  if (!result.ok && result.belowMinimum) {
    // The dialogs validate against their cheapest offer (the 5-credit pack, Starter): a code too big for it is
    // still applied where it fits; the client shows no discount on the offers it would take below the minimum.
    const fits = result.belowMinimum;
    if (fitsAnother(fits, input.item)) {
      const percent = fits.discountType === "percentage";
      return {
        success: true,
        message: `Promotion code applied: ${appliedOff(fits)} (not on the ${
          itemName(input.item)
        }: its total would be below the ${formatCents(MINIMUM_CHARGE_CENTS)} minimum charge)`,
        discount_amount: 0,
        final_amount: toDollars(subtotal),
        discount_type: fits.discountType,
        discount_value: percent ? fits.discountValue : toDollars(fits.discountValue),
      };
    }
  }
  if (!result.ok) {
    return {
      success: false,
      message: result.message,
      discount_amount: 0,
      final_amount: toDollars(subtotal),
      discount_type: null,
      discount_value: 0,
    };
  }
  const { quote: q } = result;
  const promo = q.promotion!;
  const percent = promo.discountType === "percentage";
  return {
    success: true,
    message: `Promotion code applied: ${appliedOff(promo)}`,
    discount_amount: toDollars(q.discountCents),
    final_amount: toDollars(q.totalCents),
    discount_type: promo.discountType,
    // Percent as a number (20), a fixed amount in dollars (5).
    discount_value: percent ? promo.discountValue : toDollars(promo.discountValue),
  };
}

function appliedOff(promo: Pick<PromotionCodeRow, "discountType" | "discountValue">): string {
  return promo.discountType === "percentage"
    ? `${promo.discountValue}% off`
    : `${formatCents(promo.discountValue)} off`;
}

function itemName(item: PurchaseItem): string {
  return item.kind === "credits"
    ? `${PACKAGES[item.packageId].credits}-credit pack`
    : `${PLANS[item.plan].name} plan`;
}

/** Whether the code leaves another offer of the same kind (a dearer pack or plan) at the minimum or above. */
function fitsAnother(promo: PromotionCodeRow, item: PurchaseItem): boolean {
  const prices = item.kind === "credits"
    ? PACKAGE_IDS.map((id) => PACKAGES[id].priceCents)
    : PLAN_IDS.map((id) => PLANS[id].priceCents);
  return prices.some((cents) => cents - discountFor(promo, cents) >= MINIMUM_CHARGE_CENTS);
}

export interface NewPromotionInput {
  code: string;
  percent?: number;
  amountCents?: number;
  appliesTo?: "credits" | "subscription" | "both";
  expiresAt?: Date | null;
  maxRedemptions?: number | null;
}

/** Creates a code (the `deno task promo create` command). */
export async function createPromotion(db: DbOrTx, input: NewPromotionInput): Promise<PromotionCodeRow> {
  const code = normalizeCode(input.code);
  if (!/^[A-Z0-9_-]{3,64}$/.test(code)) {
    throw new AppError(422, "A code is 3 to 64 letters, digits, '-' or '_'");
  }
  if ((input.percent === undefined) === (input.amountCents === undefined)) {
    throw new AppError(422, "Give exactly one of a percentage or a fixed amount");
  }
  if (
    input.percent !== undefined &&
    !(Number.isInteger(input.percent) && input.percent >= 1 && input.percent < 100)
  ) {
    // A 100% code would make a purchase free; purchases always charge at least the minimum.
    throw new AppError(422, "A percentage is a whole number from 1 to 99");
  }
  if (input.amountCents !== undefined && !(Number.isInteger(input.amountCents) && input.amountCents >= 1)) {
    throw new AppError(422, "A fixed amount is at least 1 cent");
  }
  if (
    input.maxRedemptions != null && !(Number.isInteger(input.maxRedemptions) && input.maxRedemptions >= 1)
  ) {
    throw new AppError(422, "Max redemptions is a whole number of at least 1");
  }
  const row = await insertPromotion(db, {
    code,
    discountType: input.percent !== undefined ? "percentage" : "fixed_amount",
    discountValue: input.percent ?? input.amountCents!,
    appliesTo: input.appliesTo ?? "both",
    expiresAt: input.expiresAt ?? null,
    maxRedemptions: input.maxRedemptions ?? null,
  });
  if (!row) throw new AppError(409, `The code ${code} already exists`);
  return row;
}
