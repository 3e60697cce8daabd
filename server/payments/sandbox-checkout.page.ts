/**
 * The sandbox checkout page's HTML: plain server-rendered markup and one
 * linked stylesheet, no scripts and no inline styles (the app's
 * Content-Security-Policy allows neither). Every dynamic value is escaped.
 */
import { formatCents, PLANS } from "./catalog.ts";
import type { PlanId } from "./payments.schemas.ts";
import type { CheckoutSessionRow } from "./payments.repository.ts";

export const SANDBOX_CSS_PATH = "/checkout/sandbox.css";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · StyleTwin sandbox checkout</title>
<link rel="stylesheet" href="${SANDBOX_CSS_PATH}">
</head>
<body>
<div class="test-banner" role="note"><strong>TEST MODE</strong> Sandbox checkout: no real card is charged.</div>
<main class="page">
<p class="brand">StyleTwin</p>
${body}
</main>
</body>
</html>`;
}

function itemName(row: CheckoutSessionRow): string {
  if (row.kind === "subscription") return `${PLANS[row.plan as PlanId]?.name ?? row.plan} plan`;
  return `${row.credits} credits`;
}

function summary(row: CheckoutSessionRow, code: string | null): string {
  const monthly = row.kind === "subscription";
  return `<section class="card summary" aria-labelledby="summary-title">
<h2 id="summary-title">Order summary</h2>
<dl>
<div class="row"><dt>${escapeHtml(itemName(row))}${monthly ? " · billed monthly" : ""}</dt><dd>${
    formatCents(row.amountSubtotal)
  }</dd></div>
${monthly ? `<div class="row"><dt>Credits each month</dt><dd>${row.credits}</dd></div>` : ""}
${
    row.amountDiscount > 0
      ? `<div class="row discount"><dt>Discount${code ? ` (${escapeHtml(code)})` : ""}</dt><dd>−${
        formatCents(row.amountDiscount)
      }</dd></div>`
      : ""
  }
<div class="row total"><dt>Total due today</dt><dd data-testid="sandbox-total">${
    formatCents(row.amountTotal)
  }</dd></div>
</dl>
</section>`;
}

export function renderCheckoutPage(
  row: CheckoutSessionRow,
  opts: { promotionCode: string | null; declineMessage: string | null },
): string {
  const action = `/checkout/sandbox/${encodeURIComponent(row.id)}`;
  const alert = opts.declineMessage
    ? `<p class="alert" role="alert" data-testid="sandbox-error">${escapeHtml(opts.declineMessage)}</p>`
    : "";
  return layout(
    "Pay",
    `<h1>Complete your purchase</h1>
${summary(row, opts.promotionCode)}
<section class="card" aria-labelledby="pay-title">
<h2 id="pay-title">Pay with card</h2>
${alert}
<form method="post" action="${action}/pay" class="pay-form">
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="4242 4242 4242 4242" required>
<div class="pair">
<div><label for="expiry">Expiry (MM / YY)</label>
<input id="expiry" name="expiry" autocomplete="cc-exp" maxlength="7" placeholder="12 / 34" required></div>
<div><label for="cvc">CVC</label>
<input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123" required></div>
</div>
<label for="name">Name on card</label>
<input id="name" name="name" autocomplete="cc-name" maxlength="100">
<button type="submit" class="pay">Pay ${formatCents(row.amountTotal)}</button>
</form>
<form method="post" action="${action}/cancel" class="cancel-form">
<button type="submit" class="cancel">Cancel</button>
</form>
<p class="hint">Test cards: <strong>4242 4242 4242 4242</strong> succeeds, <strong>4000 0000 0000 0002</strong> is declined. Any future expiry and any 3-digit CVC.</p>
</section>`,
  );
}

export function renderExpiredPage(row: CheckoutSessionRow): string {
  return layout(
    "Session expired",
    `<h1>This checkout session has expired</h1>
<section class="card">
<p>Nothing was charged. Start a new purchase from StyleTwin to try again.</p>
<a class="pay link" href="${escapeHtml(row.successUrl)}">Return to StyleTwin</a>
</section>`,
  );
}

/** An address that names no sandbox session (mistyped, or from another database): a page, not JSON. */
export function renderNotFoundPage(): string {
  return layout(
    "Session not found",
    `<h1>This checkout session was not found</h1>
<section class="card">
<p>Nothing was charged. Start a new purchase from StyleTwin to try again.</p>
<a class="pay link" href="/">Return to StyleTwin</a>
</section>`,
  );
}

export function renderPaidPage(row: CheckoutSessionRow): string {
  return layout(
    "Paid",
    `<h1>Payment complete</h1>
<section class="card">
<p>This purchase is already paid.</p>
<a class="pay link" href="${escapeHtml(row.successUrl)}">Return to StyleTwin</a>
</section>`,
  );
}

export const SANDBOX_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c1824;background:#f7f6f9}
.test-banner{background:#fde68a;color:#3b2a00;text-align:center;padding:.6rem 1rem;font-size:.9rem;border-bottom:1px solid #f59e0b}
.test-banner strong{display:inline-block;background:#1c1824;color:#fde68a;border-radius:999px;padding:.1rem .6rem;margin-right:.5rem;letter-spacing:.08em}
.page{max-width:34rem;margin:0 auto;padding:1.25rem 1rem 3rem}
.brand{font-weight:800;color:#b8114f;margin:.5rem 0 0;letter-spacing:-.01em}
h1{font-size:1.5rem;margin:.25rem 0 1rem;letter-spacing:-.02em}
h2{font-size:1.05rem;margin:0 0 .75rem}
.card{background:#fff;border:1px solid #dcd8e3;border-radius:1.25rem;padding:1.25rem;margin-bottom:1rem;box-shadow:0 1px 2px rgba(28,24,36,.05)}
dl{margin:0}
.row{display:flex;justify-content:space-between;gap:1rem;padding:.4rem 0;border-bottom:1px solid #eeecf2}
.row:last-child{border-bottom:0}
dt{color:#4a4258}dd{margin:0;font-variant-numeric:tabular-nums;font-weight:600}
.discount dd,.discount dt{color:#047857}
.total dt,.total dd{font-weight:800;color:#1c1824;font-size:1.1rem}
label{display:block;font-size:.875rem;font-weight:600;margin:.75rem 0 .3rem;color:#2f2a39}
input{width:100%;height:2.9rem;border:1px solid #bdb6c9;border-radius:.75rem;padding:0 .9rem;font:inherit;background:#fff;color:#1c1824}
input:focus{outline:3px solid #ffc7d9;border-color:#dd1d63}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:.75rem;align-items:end}
button,.link{display:block;width:100%;height:3rem;border-radius:999px;font:inherit;font-weight:700;cursor:pointer;text-align:center;text-decoration:none;line-height:3rem}
.pay{margin-top:1.25rem;border:0;background:#b8114f;color:#fff}
.pay:hover{background:#990f45}
.cancel{margin-top:.6rem;background:#fff;border:1px solid #bdb6c9;color:#2f2a39}
.cancel:hover{background:#eeecf2}
button:focus-visible,.link:focus-visible{outline:3px solid #f03a78;outline-offset:2px}
.alert{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:.75rem;padding:.7rem .9rem;margin:0 0 .5rem;font-weight:600}
.hint{font-size:.85rem;color:#5d536e;margin:1rem 0 0}
`;
