/**
 * Fixed-window rate limiting in process memory (one process serves the
 * product). Keys are caller-chosen strings such as `login:ip:1.2.3.4`.
 */
import { AppError } from "./errors.ts";

export class RateLimiter {
  #windows = new Map<string, { start: number; count: number }>();
  readonly limit: number;
  readonly windowMs: number;

  constructor(limit: number, windowMs = 60_000) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** Counts one hit for every key; throws 429 with Retry-After when any key is over its limit. */
  hit(keys: string[], now = Date.now()): void {
    if (this.#windows.size > 50_000) this.#sweep(now);
    let retryAfterMs = 0;
    for (const key of keys) {
      let w = this.#windows.get(key);
      if (!w || now - w.start >= this.windowMs) {
        w = { start: now, count: 0 };
        this.#windows.set(key, w);
      }
      w.count++;
      if (w.count > this.limit) {
        retryAfterMs = Math.max(retryAfterMs, w.start + this.windowMs - now);
      }
    }
    if (retryAfterMs > 0) {
      const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      throw new AppError(
        429,
        `Too many attempts. Please try again in ${seconds} seconds.`,
        {
          "Retry-After": String(seconds),
        },
      );
    }
  }

  #sweep(now: number) {
    for (const [key, w] of this.#windows) {
      if (now - w.start >= this.windowMs) this.#windows.delete(key);
    }
  }
}
