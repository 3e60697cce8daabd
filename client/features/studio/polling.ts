/**
 * Generation status polling: 1 s for the first 15 polls, then
 * 2 s; after a failed poll request, back off min(5 s, 1 s x 1.5^min(polls-20, 5));
 * after more than 60 attempts give up (Generation Timeout). A 4xx answer (404:
 * the job is not there for this user; 401: signed out) ends polling at once:
 * asking again cannot change it. Pure and clock-free: fetchStatus and sleep are
 * parameters.
 *
 * `followGeneration` first listens to the status stream (server-sent events,
 * GET /api/generation/{id}/events), so a finished job shows at once; when the
 * stream cannot open, breaks, goes quiet or ends early, it falls back to the
 * polling schedule above.
 */
import { isRejection } from "../../api/http.ts";
import type {
  GenerationStatusName,
  GenerationStatusResponse,
} from "../../../server/generation/generation.schemas.ts";

export type GenerationStatus = GenerationStatusName;
export type StatusResponse = GenerationStatusResponse;

export const POLLING = {
  fastPolls: 15,
  fastMs: 1000,
  slowMs: 2000,
  /**
   * The product rule: "after more than 60 attempts it gives up". Read literally: the
   * client gives up once the attempt count exceeds 60, so the 61st status
   * request is still made and only its "not done yet" ends polling (61 requests,
   * about 107 s). Deliberate; tests/unit/client-polling.test.ts pins it.
   */
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
 * is clamped at 0 (the backoff formula would otherwise retry within a
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
  /** The server refused the status request with a 4xx (`status`): polling again would not help. */
  | { kind: "rejected"; status: number; error: unknown }
  | { kind: "aborted" };

export interface PollOptions {
  fetchStatus(): Promise<StatusResponse>;
  sleep(ms: number): Promise<void>;
  signal?: AbortSignal;
  onStatus?(status: StatusResponse): void;
}

/** The HTTP status of an error that ends polling (the API client's rejection rule), else null. */
export function rejectionStatus(err: unknown): number | null {
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status !== "number") return null;
  const code = (err as { code?: unknown } | null)?.code;
  return isRejection(status, typeof code === "string" ? code : null) ? status : null;
}

export async function pollGeneration(opts: PollOptions): Promise<PollOutcome> {
  const { fetchStatus, sleep, signal, onStatus } = opts;
  let polls = 0;
  let lastFailed = false;
  while (true) {
    // "More than 60 attempts": stop once the count exceeds maxAttempts (see POLLING.maxAttempts).
    if (polls > POLLING.maxAttempts) return { kind: "timeout", attempts: polls };
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
    } catch (err) {
      if (signal?.aborted) return { kind: "aborted" };
      const rejected = rejectionStatus(err);
      if (rejected !== null) return { kind: "rejected", status: rejected, error: err };
      lastFailed = true;
    }
  }
}

/** No bytes for this long (the server writes at least once a second): the stream is dead, poll instead. */
export const STREAM_IDLE_MS = 5000;

export interface FollowOptions extends PollOptions {
  /** Opens the status stream; rejects when it cannot (any failure falls back to polling). */
  openStream?(): Promise<AsyncIterable<StatusResponse>>;
}

export async function followGeneration(opts: FollowOptions): Promise<PollOutcome> {
  const { openStream, signal, onStatus } = opts;
  if (openStream) {
    try {
      for await (const status of await openStream()) {
        if (signal?.aborted) return { kind: "aborted" };
        onStatus?.(status);
        if (status.status === "completed") return { kind: "completed", status };
        if (status.status === "failed") return { kind: "failed", status };
      }
    } catch {
      // Broken, refused or silent stream: the polling below reports what the status says.
    }
    if (signal?.aborted) return { kind: "aborted" };
  }
  return await pollGeneration(opts);
}

/**
 * The `status` events of a server-sent event stream, parsed. Throws when no
 * bytes arrive for `idleMs` (and cancels the stream), so a stalled connection
 * falls back to polling rather than waiting forever.
 */
export async function* statusEvents(
  body: ReadableStream<Uint8Array>,
  idleMs = STREAM_IDLE_MS,
): AsyncGenerator<StatusResponse> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    while (true) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("status stream went quiet")), idleMs);
      });
      const { done, value } = await Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replaceAll("\r\n", "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (event === "status" && data.length) yield JSON.parse(data.join("\n")) as StatusResponse;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Result URLs in FRONT, RIGHT, LEFT, BACK order; missing angles fall back to the first image. */
export function resultImages(
  status: Pick<StatusResponse, "resultUrl"> & Partial<Pick<StatusResponse, "resultUrls">>,
  view360: boolean,
): string[] {
  const urls = status.resultUrls ?? {};
  const first = status.resultUrl ?? urls.front ?? urls.right ?? urls.left ??
    urls.back ?? null;
  if (!first) return [];
  if (!view360) return [first];
  return (["front", "right", "left", "back"] as const).map((a) => urls[a] ?? first);
}
