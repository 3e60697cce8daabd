/** How long a generation usually takes, and what to tell the user while it runs (pure). */

/** Seconds per rendered angle: the offline model is quick; hosted models take longer. */
export function expectedSeconds(local: boolean, angles: number): number {
  return (local ? 8 : 20) * Math.max(1, angles);
}

/** Progress 0-0.95 after `elapsed` of `expected` seconds: never claims done before the server says so. */
export function progressFraction(elapsed: number, expected: number): number {
  if (expected <= 0) return 0;
  const linear = elapsed / expected;
  // Past the estimate, creep toward 95% instead of stopping dead.
  const f = linear < 0.9 ? linear : 0.9 + 0.05 * (1 - Math.exp(-(linear - 0.9) * 2));
  return Math.max(0, Math.min(0.95, f));
}

/** "About 6 s left", "Almost done..." */
export function remainingText(elapsed: number, expected: number): string {
  const left = Math.ceil(expected - elapsed);
  if (left <= 1) return "Almost done...";
  if (left < 60) return `About ${left} s left`;
  return `About ${Math.round(left / 60)} min left`;
}
