/**
 * Per-process limits on hosted model calls: at most `maxConcurrent` requests
 * in flight, and at most `perMinute` started in any sliding 60 s window (the
 * provider budget, so a burst of users cannot get the key rate-limited or
 * banned). Waiting is bounded by the caller's deadline and signal.
 */

export class CallLimitWait extends Error {}

export class CallLimits {
  #active = 0;
  #starts: number[] = [];
  #waiters: (() => void)[] = [];

  constructor(readonly maxConcurrent: number, readonly perMinute: number, readonly windowMs = 60_000) {}

  /** Calls started in the current window (for health and tests). */
  get startedInWindow(): number {
    this.#prune(Date.now());
    return this.#starts.length;
  }

  get active(): number {
    return this.#active;
  }

  #prune(now: number) {
    while (this.#starts.length > 0 && now - this.#starts[0] >= this.windowMs) this.#starts.shift();
  }

  /**
   * Waits for a free slot within the budget; resolves with a release function.
   * Throws CallLimitWait when the deadline would pass first (or the signal aborts).
   */
  async acquire(deadline: number, signal?: AbortSignal): Promise<() => void> {
    while (true) {
      if (signal?.aborted) throw new CallLimitWait("aborted while waiting for a hosted model slot");
      const now = Date.now();
      this.#prune(now);
      if (this.#active < this.maxConcurrent && this.#starts.length < this.perMinute) {
        this.#active++;
        this.#starts.push(now);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          this.#active--;
          this.#waiters.shift()?.();
        };
      }
      // Wake when a slot frees or the oldest start leaves the window, whichever comes first.
      const budgetWait = this.#starts.length >= this.perMinute
        ? this.#starts[0] + this.windowMs - now
        : Infinity;
      const wait = Math.min(budgetWait, deadline - now);
      if (deadline - now <= 0 || (budgetWait > deadline - now && this.#active < this.maxConcurrent)) {
        throw new CallLimitWait("the hosted model's call budget is used up until after this job's deadline");
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          const i = this.#waiters.indexOf(done);
          if (i >= 0) this.#waiters.splice(i, 1);
          resolve();
        };
        const timer = setTimeout(done, Math.max(1, Math.min(wait, 2_147_483_647)));
        this.#waiters.push(done);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }
}
