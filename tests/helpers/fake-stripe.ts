/**
 * A local fake of the parts of Stripe's API the store uses, speaking its wire
 * format: form-encoded requests with bracketed, indexed keys, JSON responses,
 * `{error: {type, code, message, param}}` failures, Bearer auth, and webhook
 * events signed like Stripe signs them (`Stripe-Signature: t=..,v1=hex(HMAC-SHA256(secret, "t.body"))`).
 * It keeps state (sessions, prices, coupons, subscriptions, invoices, charges)
 * so tests can pay, renew and refund, then deliver the matching events.
 */

// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string | null;
  authorization: string | null;
  stripeVersion: string | null;
  idempotencyKey: string | null;
  /** The decoded form fields in wire order, e.g. ["line_items[0][price_data][unit_amount]", "1280"]. */
  fields: [string, string][];
  /** The same fields as a nested object (indexed arrays become arrays). */
  params: Obj;
}

/** Parses Stripe's bracket notation (`a[b][0][c]=v`) into nested objects and arrays. */
export function parseStripeForm(fields: [string, string][]): Obj {
  const root: Obj = {};
  for (const [key, value] of fields) {
    const parts = key.replace(/\]/g, "").split("[");
    let node: Obj = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]);
      if (last) node[part] = value;
      else node = node[part] ??= nextIsIndex ? [] : {};
    });
  }
  return root;
}

const hex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/** Stripe's v1 webhook signature scheme. */
export async function signStripePayload(payload: string, secret: string, timestamp: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${payload}`));
  return `t=${timestamp},v1=${hex(mac)}`;
}

const rand = () => crypto.randomUUID().replaceAll("-", "").slice(0, 24);
const now = () => Math.floor(Date.now() / 1000);
const MONTH = 30 * 86400;

export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly sessions = new Map<string, Obj>();
  readonly prices = new Map<string, Obj>();
  readonly coupons = new Map<string, Obj>();
  readonly subscriptions = new Map<string, Obj>();
  /** The next charge (a plan change's prorated invoice) is declined. */
  declineNextCharge = false;
  /** The share of the period a plan change's proration covers (1: changed as the period began). */
  prorationFraction = 1;
  readonly invoices = new Map<string, Obj>();
  readonly charges = new Map<string, Obj>();
  /** Customers made by paid sessions (id -> email); a session may name one with `customer`. */
  readonly customers = new Map<string, string | null>();
  #server: Deno.HttpServer | null = null;
  #abort = new AbortController();
  url = "";

  constructor(readonly secretKey = "sk_test_fake_123", readonly webhookSecret = "whsec_fake_secret") {}

  async start(): Promise<this> {
    const ready = Promise.withResolvers<number>();
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: this.#abort.signal,
      onListen: ({ port }) => ready.resolve(port),
    }, (req) => this.#handle(req));
    this.url = `http://127.0.0.1:${await ready.promise}`;
    return this;
  }

  async stop() {
    this.#abort.abort();
    await this.#server?.finished;
  }

  requestsTo(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) =>
      r.method === method && (typeof path === "string" ? r.path === path : path.test(r.path))
    );
  }

  // ---- what a customer or Stripe's billing would do ----

  /** The customer pays the session on Stripe's page. */
  completeSession(id: string): Obj {
    const s = this.sessions.get(id)!;
    s.status = "complete";
    s.payment_status = "paid";
    s.url = null;
    s.customer ??= `cus_${rand()}`;
    if (!this.customers.has(s.customer)) this.customers.set(s.customer, s.customer_email);
    s.customer_details = { email: s.customer_email ?? this.customers.get(s.customer), name: "Test Customer" };
    if (s.mode === "payment") {
      s.payment_intent = `pi_${rand()}`;
      const charge = {
        id: `ch_${rand()}`,
        object: "charge",
        amount: s.amount_total,
        amount_refunded: 0,
        currency: s.currency,
        paid: true,
        refunded: false,
        payment_intent: s.payment_intent,
      };
      this.charges.set(charge.id, charge);
    } else {
      const line = s.line_items[0];
      // A price given inline becomes a Price of its own, with no lookup key.
      const price = line.price ? this.prices.get(line.price)! : {
        id: `price_${rand()}`,
        object: "price",
        active: false,
        currency: line.price_data.currency,
        unit_amount: Number(line.price_data.unit_amount),
        recurring: { interval: line.price_data.recurring.interval },
        lookup_key: null,
        product: `prod_${rand()}`,
      };
      const start = now();
      const sub = {
        id: `sub_${rand()}`,
        object: "subscription",
        status: "active",
        customer: s.customer,
        cancel_at_period_end: false,
        pending_update: null,
        metadata: s.subscription_data?.metadata ?? {},
        items: {
          object: "list",
          data: [{
            id: `si_${rand()}`,
            object: "subscription_item",
            price,
            quantity: 1,
            current_period_start: start,
            current_period_end: start + MONTH,
          }],
        },
      };
      this.subscriptions.set(sub.id, sub);
      s.subscription = sub.id;
      s.invoice = this.#invoice(sub, "subscription_create", s.amount_total).id;
    }
    return s;
  }

  expireSession(id: string): Obj {
    const s = this.sessions.get(id)!;
    s.status = "expired";
    s.url = null;
    return s;
  }

  /** A month passes: the subscription moves to its next period and a paid invoice is issued. */
  renew(subscriptionId: string): Obj {
    const sub = this.subscriptions.get(subscriptionId)!;
    const item = sub.items.data[0];
    item.current_period_start = item.current_period_end;
    item.current_period_end = item.current_period_start + MONTH;
    return this.#invoice(sub, "subscription_cycle", item.price.unit_amount);
  }

  refund(chargeId: string, amount?: number): Obj {
    const ch = this.charges.get(chargeId)!;
    ch.amount_refunded = Math.min(ch.amount, ch.amount_refunded + (amount ?? ch.amount));
    ch.refunded = ch.amount_refunded === ch.amount;
    return ch;
  }

  chargeOf(paymentIntent: string): Obj {
    return [...this.charges.values()].find((c) => c.payment_intent === paymentIntent)!;
  }

  #invoice(sub: Obj, reason: string, amount: number, lineAmounts = [amount]): Obj {
    const item = sub.items.data[0];
    const inv = {
      id: `in_${rand()}`,
      object: "invoice",
      billing_reason: reason,
      status: "paid",
      customer: sub.customer,
      currency: "usd",
      amount_due: Math.max(0, amount),
      amount_paid: Math.max(0, amount),
      total: amount,
      period_start: item.current_period_start,
      period_end: item.current_period_start,
      parent: {
        type: "subscription_details",
        quote_details: null,
        subscription_details: { subscription: sub.id, metadata: sub.metadata },
      },
      lines: {
        object: "list",
        has_more: false,
        url: "/v1/invoices/lines",
        data: lineAmounts.map((lineAmount) => ({
          id: `il_${rand()}`,
          object: "line_item",
          amount: lineAmount,
          currency: "usd",
          period: { start: item.current_period_start, end: item.current_period_end },
          pricing: {
            type: "price_details",
            price_details: { price: item.price.id, product: item.price.product },
          },
          quantity: 1,
          subscription: sub.id,
        })),
      },
    };
    this.invoices.set(inv.id, inv);
    return inv;
  }

  // ---- webhooks ----

  /** An event envelope as Stripe delivers it. */
  event(type: string, object: Obj, id = `evt_${rand()}`): Obj {
    return {
      id,
      object: "event",
      api_version: "2026-10-28.endive",
      created: now(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: `req_${rand()}`, idempotency_key: null },
      type,
    };
  }

  /** The body and Stripe-Signature header of an event; `secret`/`timestamp` let tests forge bad ones. */
  async signed(event: Obj, opts: { secret?: string; timestamp?: number } = {}) {
    const body = JSON.stringify(event);
    const signature = await signStripePayload(
      body,
      opts.secret ?? this.webhookSecret,
      opts.timestamp ?? now(),
    );
    return { body, signature };
  }

  // ---- the HTTP side ----

  #error(status: number, message: string, extra: Obj = {}) {
    return Response.json(
      { error: { type: "invalid_request_error", message, ...extra } },
      { status, headers: { "request-id": `req_${rand()}` } },
    );
  }

  #ok(body: Obj) {
    return Response.json(body, {
      headers: { "request-id": `req_${rand()}`, "stripe-version": "2026-10-28.endive" },
    });
  }

  async #handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const text = req.method === "GET" || req.method === "DELETE" ? url.search.slice(1) : await req.text();
    const fields = [...new URLSearchParams(text)] as [string, string][];
    const record: RecordedRequest = {
      method: req.method,
      path: url.pathname,
      contentType: req.headers.get("content-type"),
      authorization: req.headers.get("authorization"),
      stripeVersion: req.headers.get("stripe-version"),
      idempotencyKey: req.headers.get("idempotency-key"),
      fields,
      params: parseStripeForm(fields),
    };
    this.requests.push(record);
    if (record.authorization !== `Bearer ${this.secretKey}`) {
      return Response.json({
        error: { type: "invalid_request_error", message: "Invalid API Key provided" },
      }, { status: 401 });
    }
    const p = record.params;
    const path = url.pathname;
    let m: RegExpExecArray | null;

    if (req.method === "POST" && path === "/v1/checkout/sessions") return this.#createSession(p);
    if ((m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path)) && req.method === "GET") {
      const s = this.sessions.get(m[1]);
      if (!s) return this.#missing("checkout.session", m[1]);
      const { line_items: _l, subscription_data: _s, ...visible } = s;
      return this.#ok(visible);
    }
    if (req.method === "GET" && path === "/v1/prices") {
      const keys: string[] = p.lookup_keys ?? [];
      const data = [...this.prices.values()].filter((x) => keys.includes(x.lookup_key) && x.active);
      return this.#ok({ object: "list", url: "/v1/prices", has_more: false, data });
    }
    if (req.method === "POST" && path === "/v1/prices") {
      if (p.transfer_lookup_key === "true") {
        for (const old of this.prices.values()) if (old.lookup_key === p.lookup_key) old.lookup_key = null;
      }
      const price = {
        id: `price_${rand()}`,
        object: "price",
        active: true,
        currency: p.currency,
        unit_amount: Number(p.unit_amount),
        lookup_key: p.lookup_key ?? null,
        recurring: p.recurring ? { interval: p.recurring.interval, interval_count: 1 } : null,
        product: `prod_${rand()}`,
        type: p.recurring ? "recurring" : "one_time",
      };
      this.prices.set(price.id, price);
      return this.#ok(price);
    }
    if (req.method === "POST" && path === "/v1/coupons") {
      const coupon = {
        id: rand().slice(0, 8).toUpperCase(),
        object: "coupon",
        amount_off: p.amount_off ? Number(p.amount_off) : null,
        percent_off: p.percent_off ? Number(p.percent_off) : null,
        currency: p.currency ?? null,
        duration: p.duration,
        max_redemptions: p.max_redemptions ? Number(p.max_redemptions) : null,
        name: p.name ?? null,
        valid: true,
        times_redeemed: 0,
      };
      this.coupons.set(coupon.id, coupon);
      return this.#ok(coupon);
    }
    if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = this.subscriptions.get(m[1]);
      if (!sub) return this.#missing("subscription", m[1]);
      if (req.method === "GET") return this.#ok(sub);
      if (req.method === "DELETE") {
        sub.status = "canceled";
        sub.ended_at = now();
        return this.#ok(sub);
      }
      if (req.method === "POST") {
        if (p.cancel_at_period_end !== undefined) {
          sub.cancel_at_period_end = p.cancel_at_period_end === "true";
        }
        if (p.items?.[0]?.price) {
          if (p.items[0].id !== sub.items.data[0].id) {
            return this.#missing("subscription_item", p.items[0].id);
          }
          const price = this.prices.get(p.items[0].price);
          if (!price) return this.#missing("price", p.items[0].price);
          const before = sub.items.data[0].price.unit_amount;
          if (p.payment_behavior === "pending_if_incomplete" && p.cancel_at_period_end !== undefined) {
            return this.#error(400, "cancel_at_period_end cannot be used with pending_if_incomplete.", {
              param: "cancel_at_period_end",
            });
          }
          if (this.declineNextCharge && p.payment_behavior === "pending_if_incomplete") {
            // The prorated invoice was declined: the price stays, the change waits as a pending update.
            this.declineNextCharge = false;
            sub.pending_update = {
              expires_at: now() + 23 * 3600,
              subscription_items: [{ id: sub.items.data[0].id, price }],
            };
            return this.#ok(sub);
          }
          sub.items.data[0].price = price;
          // An update that goes through replaces a change still waiting for its payment.
          sub.pending_update = null;
          // Prorations invoiced at once: the difference for the rest of the period, as one invoice (a negative
          // total is a credit to the customer's balance, nothing charged). proration_behavior=none: no invoice.
          if (p.proration_behavior === "always_invoice") {
            // Two lines, as Stripe itemises a proration: the old price's unused time (negative) and the new
            // price's rest of the period.
            const credited = Math.round(before * this.prorationFraction);
            const charged = Math.round(price.unit_amount * this.prorationFraction);
            sub.latest_invoice =
              this.#invoice(sub, "subscription_update", charged - credited, [-credited, charged]).id;
          }
        }
        return this.#ok(sub);
      }
    }
    if ((m = /^\/v1\/invoices\/([^/]+)$/.exec(path)) && req.method === "GET") {
      const inv = this.invoices.get(m[1]);
      return inv ? this.#ok(inv) : this.#missing("invoice", m[1]);
    }
    if ((m = /^\/v1\/charges\/([^/]+)$/.exec(path)) && req.method === "GET") {
      const ch = this.charges.get(m[1]);
      return ch ? this.#ok(ch) : this.#missing("charge", m[1]);
    }
    return this.#error(404, `Unrecognized request URL (${req.method}: ${path}).`);
  }

  #missing(kind: string, id: string) {
    return this.#error(404, `No such ${kind}: '${id}'`, { code: "resource_missing", param: "id" });
  }

  #createSession(p: Obj): Response {
    if (!["payment", "subscription"].includes(p.mode)) {
      return this.#error(400, "Invalid mode", { param: "mode" });
    }
    if (p.allow_promotion_codes && p.discounts) {
      return this.#error(
        400,
        "You may only specify one of these parameters: allow_promotion_codes, discounts.",
        {
          param: "allow_promotion_codes",
        },
      );
    }
    if (p.customer && p.customer_email) {
      return this.#error(400, "You may only specify one of these parameters: customer, customer_email.", {
        param: "customer",
      });
    }
    // A customer named but not known (or deleted): Stripe's 400 for a missing object given as a parameter.
    if (p.customer && !this.customers.has(p.customer)) {
      return this.#error(400, `No such customer: '${p.customer}'`, {
        code: "resource_missing",
        param: "customer",
      });
    }
    const items: Obj[] = p.line_items ?? [];
    if (items.length === 0) {
      return this.#error(400, "Missing required param: line_items.", { param: "line_items" });
    }
    let subtotal = 0;
    for (const item of items) {
      const qty = Number(item.quantity ?? 1);
      if (item.price) {
        const price = this.prices.get(item.price);
        if (!price) return this.#missing("price", item.price);
        subtotal += price.unit_amount * qty;
      } else {
        if (p.mode === "subscription" && !item.price_data.recurring) {
          return this.#error(
            400,
            "You must specify `recurring` in `price_data` when `mode` is `subscription`.",
            {
              param: "line_items[0][price_data][recurring]",
            },
          );
        }
        subtotal += Number(item.price_data.unit_amount) * qty;
      }
    }
    let discount = 0;
    const coupon = p.discounts?.[0]?.coupon ? this.coupons.get(p.discounts[0].coupon) : null;
    if (p.discounts?.[0]?.coupon && !coupon) return this.#missing("coupon", p.discounts[0].coupon);
    if (coupon) discount = coupon.amount_off ?? Math.round((subtotal * coupon.percent_off) / 100);
    const id = `cs_test_${rand()}${rand()}`;
    const session = {
      id,
      object: "checkout.session",
      mode: p.mode,
      status: "open",
      payment_status: "unpaid",
      url: `https://checkout.stripe.com/c/pay/${id}`,
      success_url: p.success_url,
      cancel_url: p.cancel_url,
      client_reference_id: p.client_reference_id ?? null,
      customer: p.customer ?? null,
      customer_email: p.customer_email ?? null,
      customer_details: null,
      amount_subtotal: subtotal,
      amount_total: subtotal - discount,
      currency: items[0].price_data?.currency ?? "usd",
      metadata: p.metadata ?? {},
      discounts: coupon ? [{ coupon: coupon.id }] : [],
      total_details: { amount_discount: discount, amount_shipping: 0, amount_tax: 0 },
      payment_intent: null,
      subscription: null,
      invoice: null,
      expires_at: p.expires_at ? Number(p.expires_at) : now() + 86400,
      created: now(),
      livemode: false,
      ui_mode: "hosted_page",
      line_items: items,
      subscription_data: p.subscription_data ?? null,
    };
    this.sessions.set(id, session);
    // The create response does not expand line_items.
    const { line_items: _l, subscription_data: _s, ...visible } = session;
    return this.#ok(visible);
  }
}
