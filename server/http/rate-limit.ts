/**
 * Fixed-window rate limiting. `RateLimiter` counts in process memory (the
 * single-process default); `RateLimitStore` is what the auth routes use, with
 * a memory implementation and one in the database (db-rate-limit-store.ts) so
 * limits hold across every process sharing one Postgres. Keys are
 * caller-chosen strings such as `login:ip:1.2.3.4`.
 *
 * Memory is bounded whatever callers send: a key that is already over its
 * limit stops the check before later keys are stored, and the map never holds
 * more than `maxKeys` windows (the oldest window is evicted first).
 */
import { AppError } from "./errors.ts";

interface Window {
  start: number;
  count: number;
}

export class RateLimiter {
  // Insertion order is window-start order: a window is re-inserted when it restarts,
  // so the first entries are always the oldest (cheap sweeps and evictions).
  #windows = new Map<string, Window>();
  readonly limit: number;
  readonly windowMs: number;
  readonly maxKeys: number;

  constructor(limit: number, opts: { windowMs?: number; maxKeys?: number } = {}) {
    this.limit = limit;
    this.windowMs = opts.windowMs ?? 60_000;
    this.maxKeys = opts.maxKeys ?? 100_000;
  }

  /** How many keys are tracked (for tests and diagnostics). */
  get size(): number {
    return this.#windows.size;
  }

  /**
   * Counts one hit per key, in order, and throws 429 with Retry-After at the
   * first key that is already at its limit. Put the cheapest-to-forge-least
   * key (the IP) first: a limited caller then adds nothing to the map.
   */
  hit(keys: string[], now = Date.now()): void {
    for (const key of keys) {
      let w = this.#windows.get(key);
      if (w && now - w.start >= this.windowMs) {
        this.#windows.delete(key);
        w = undefined;
      }
      if (w && w.count >= this.limit) throw tooMany(w.start + this.windowMs - now);
      if (!w) {
        this.#makeRoom(now);
        w = { start: now, count: 0 };
        this.#windows.set(key, w);
      }
      w.count++;
    }
  }

  /** Takes one hit back from each key's live window (a login that succeeded: only failures count). */
  forgive(keys: string[], now = Date.now()): void {
    for (const key of keys) {
      const w = this.#windows.get(key);
      if (w && now - w.start < this.windowMs && w.count > 0) w.count--;
    }
  }

  #makeRoom(now: number) {
    for (const [key, w] of this.#windows) {
      if (this.#windows.size < this.maxKeys && now - w.start < this.windowMs) return;
      this.#windows.delete(key); // expired, or the oldest while the map is full
    }
  }
}

export function tooMany(retryAfterMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError(429, `Too many attempts. Please try again in ${seconds} seconds.`, {
    code: "rate_limited",
    headers: { "Retry-After": String(seconds) },
  });
}

/** One limit: at most `limit` hits on `key` per `windowMs`. */
export interface RateRule {
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * Counts one hit per rule, in order, and rejects with 429 (Retry-After) at the
 * first rule already at its limit; later rules are then not counted.
 */
export interface RateLimitStore {
  hit(rules: RateRule[], now?: number): Promise<void>;
  /** Takes back one hit of each rule (never below 0), in its live window only. */
  forgive(rules: RateRule[], now?: number): Promise<void>;
}

/** The in-memory store: one bounded RateLimiter per (limit, window). */
export class MemoryRateLimitStore implements RateLimitStore {
  #limiters = new Map<string, RateLimiter>();

  hit(rules: RateRule[], now = Date.now()): Promise<void> {
    try {
      for (const rule of rules) {
        const id = `${rule.limit}/${rule.windowMs}`;
        let limiter = this.#limiters.get(id);
        if (!limiter) {
          limiter = new RateLimiter(rule.limit, { windowMs: rule.windowMs });
          this.#limiters.set(id, limiter);
        }
        limiter.hit([rule.key], now);
      }
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  forgive(rules: RateRule[], now = Date.now()): Promise<void> {
    for (const rule of rules) this.#limiters.get(`${rule.limit}/${rule.windowMs}`)?.forgive([rule.key], now);
    return Promise.resolve();
  }
}
