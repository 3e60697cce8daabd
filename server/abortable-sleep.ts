/**
 * Waits `ms`, or less when `signal` aborts first (then it resolves early instead of rejecting:
 * the caller checks the signal and decides what an abort means). Pure (timers only), so the
 * client may import it too.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
