/**
 * `deno task promo create CODE (--percent N | --amount DOLLARS) [--applies-to credits|subscription|both]
 *   [--expires 2026-12-31] [--max N]`, `deno task promo list`, `deno task promo disable CODE`.
 * Manages the store's promotion codes in the same database as the server (DATABASE_URL / DATA_DIR).
 */
import { parseArgs } from "node:util";
import { AppError } from "../server/http/errors.ts";
import { formatCents } from "../server/payments/catalog.ts";
import { listPromotions, setPromotionActive } from "../server/payments/payments.repository.ts";
import { createPromotion, normalizeCode } from "../server/payments/promotions.service.ts";
import { withServerDatabase } from "./admin-cli.ts";

const USAGE = `usage:
  deno task promo create CODE (--percent N | --amount DOLLARS) [--applies-to credits|subscription|both] [--expires YYYY-MM-DD] [--max N]
  deno task promo list
  deno task promo disable CODE`;

function parseDate(s: string | undefined): Date | null {
  if (!s) return null;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T23:59:59Z` : s);
  if (Number.isNaN(d.getTime())) throw new AppError(422, `--expires: not a date: ${s}`);
  return d;
}

export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (!["create", "list", "disable"].includes(command ?? "")) {
    console.error(USAGE);
    return 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      percent: { type: "string" },
      amount: { type: "string" },
      "applies-to": { type: "string" },
      expires: { type: "string" },
      max: { type: "string" },
    },
  });
  return await withServerDatabase(async (db) => {
    if (command === "list") {
      const rows = await listPromotions(db);
      if (rows.length === 0) console.log("No promotion codes.");
      for (const r of rows) {
        const value = r.discountType === "percentage"
          ? `${r.discountValue}% off`
          : `${formatCents(r.discountValue)} off`;
        const uses = r.maxRedemptions === null
          ? `${r.timesRedeemed} used`
          : `${r.timesRedeemed}/${r.maxRedemptions} used`;
        const expiry = r.expiresAt ? `expires ${r.expiresAt.toISOString()}` : "no expiry";
        console.log(
          `${r.code}\t${value}\t${r.appliesTo}\t${uses}\t${expiry}\t${r.active ? "active" : "disabled"}`,
        );
      }
      return 0;
    }
    const code = positionals[0];
    if (!code) {
      console.error(USAGE);
      return 2;
    }
    if (command === "disable") {
      const ok = await setPromotionActive(db, normalizeCode(code), false);
      (ok ? console.log : console.error)(
        ok ? `${normalizeCode(code)} disabled` : `No code ${normalizeCode(code)}`,
      );
      return ok ? 0 : 1;
    }
    const appliesTo = values["applies-to"] ?? "both";
    if (!["credits", "subscription", "both"].includes(appliesTo)) {
      console.error("--applies-to is credits, subscription or both");
      return 2;
    }
    const row = await createPromotion(db, {
      code,
      percent: values.percent !== undefined ? Number(values.percent) : undefined,
      amountCents: values.amount !== undefined ? Math.round(Number(values.amount) * 100) : undefined,
      appliesTo: appliesTo as "credits" | "subscription" | "both",
      expiresAt: parseDate(values.expires),
      maxRedemptions: values.max !== undefined ? Number(values.max) : null,
    });
    console.log(`Created ${row.code}`);
    return 0;
  });
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
