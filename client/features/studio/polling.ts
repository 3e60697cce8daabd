/**
 * Generation status polling (spec section 4): 1 s for the first 15 polls, then
 * 2 s; after a failed poll request, back off min(5 s, 1 s x 1.5^min(polls-20, 5));
 * after more than 60 attempts give up (Generation Timeout). Pure and clock-free:
 * fetchStatus and sleep are parameters.
 */

export type GenerationStatus = "queued" | "processing" | "completed" | "failed";

export interface StatusResponse {
  status: GenerationStatus;
  resultUrl: string | null;
  resultUrls?: Partial<Record<"front" | "right" | "left" | "back", string>>;
  error: string | null;
  notes?: string[];
}

export const POLLING = {
  fastPolls: 15,
  fastMs: 1000,
  slowMs: 2000,
  maxAttempts: 60,
  backoffBaseMs: 1000,
  backoffCapMs: 5000,
} as const;

/** Wait before poll number `n` (1-based) when the previous poll answered. */
export function pollDelay(n: number): number {
  return n <= POLLING.fastPolls ? POLLING.fastMs : POLLING.slowMs;
}

/**
 * Wait after a failed poll request, `polls` = polls made so far. The exponent
 * is clamped at 0 (the spec's formula would otherwise retry within a
 * millisecond during the first 20 polls, hammering a struggling server).
 */
export function errorBackoff(polls: number): number {
  const exp = Math.max(0, Math.min(polls - 20, 5));
  return Math.min(
    POLLING.backoffCapMs,
    POLLING.backoffBaseMs * Math.pow(1.5, exp),
  );
}

export type PollOutcome =
  | { kind: "completed"; status: StatusResponse }
  | { kind: "failed"; status: StatusResponse }
  | { kind: "timeout"; attempts: number }
  | { kind: "aborted" };

export interface PollOptions {
  fetchStatus(): Promise<StatusResponse>;
  sleep(ms: number): Promise<void>;
  signal?: AbortSignal;
  onStatus?(status: StatusResponse): void;
}

export async function pollGeneration(opts: PollOptions): Promise<PollOutcome> {
  const { fetchStatus, sleep, signal, onStatus } = opts;
  let polls = 0;
  let lastFailed = false;
  while (true) {
    if (polls >= POLLING.maxAttempts) return { kind: "timeout", attempts: polls };
    await sleep(lastFailed ? errorBackoff(polls) : pollDelay(polls + 1));
    if (signal?.aborted) return { kind: "aborted" };
    polls++;
    try {
      const status = await fetchStatus();
      if (signal?.aborted) return { kind: "aborted" };
      lastFailed = false;
      onStatus?.(status);
      if (status.status === "completed") return { kind: "completed", status };
      if (status.status === "failed") return { kind: "failed", status };
    } catch {
      if (signal?.aborted) return { kind: "aborted" };
      lastFailed = true;
    }
  }
}

/** Result URLs in FRONT, RIGHT, LEFT, BACK order; missing angles fall back to the first image. */
export function resultImages(
  status: Pick<StatusResponse, "resultUrl" | "resultUrls">,
  view360: boolean,
): string[] {
  const urls = status.resultUrls ?? {};
  const first = status.resultUrl ?? urls.front ?? urls.right ?? urls.left ??
    urls.back ?? null;
  if (!first) return [];
  if (!view360) return [first];
  return (["front", "right", "left", "back"] as const).map((a) => urls[a] ?? first);
}
