/**
 * The seam between the hosted model (retries, limits, checks, framing) and one
 * provider's wire format. A provider sends one edit request and either returns
 * the image or throws a classified ProviderError.
 */

/** What every provider is created with. */
export interface ProviderOptions {
  apiKey: string;
  /** The API's origin, for a proxy or a local fake; the provider's own when absent. */
  baseUrl?: string;
}

export interface ProviderImage {
  bytes: Uint8Array;
  mime: string;
}

export interface ProviderCall {
  prompt: string;
  /** The portrait first, then (side and back views) the generated front view, then product references. */
  images: ProviderImage[];
  /** Aborts the HTTP request (job cancelled or the call's deadline passed). */
  signal: AbortSignal;
  /** The most this one HTTP request may take. */
  timeoutMs: number;
}

export interface ImageProvider {
  /** "gemini" or "openai": the name operators and /api/health see. */
  readonly name: string;
  /** The provider's model id (GEMINI_MODEL, OPENAI_IMAGE_MODEL). */
  readonly model: string;
  /** Input images one request may carry (portrait, front view and references together). */
  readonly maxInputImages: number;
  edit(call: ProviderCall): Promise<ProviderImage>;
}

/**
 * What went wrong, in the terms the retry policy needs:
 * - `rate_limited` (429) and `unavailable` (408, 5xx, connection errors): retried with backoff;
 * - `timeout`: the request took too long; retried while the job's time allows;
 * - `blocked` (a safety system declined the prompt or the output): failed at once, never retried;
 * - `no_image` (HTTP 200 without an image): asked once more, then failed;
 * - `auth` (401/403, an invalid key): failed at once; the model turns `failed`;
 * - `config` (unknown model, exhausted quota, a request the provider calls malformed): failed at once,
 *   the operator must act; the model turns `degraded`.
 */
export type ProviderErrorKind =
  | "rate_limited"
  | "unavailable"
  | "timeout"
  | "blocked"
  | "no_image"
  | "auth"
  | "config";

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  /** From Retry-After / retry-after-ms / RetryInfo.retryDelay, when the provider said. */
  readonly retryAfterMs?: number;
  /** The provider's reason code (blockReason, finishReason, error code), for logs. */
  readonly reason?: string;
  constructor(
    kind: ProviderErrorKind,
    message: string,
    opts: { status?: number; retryAfterMs?: number; reason?: string } = {},
  ) {
    super(message);
    this.name = "ProviderError";
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.reason = opts.reason;
  }
}

/** Retry-After as seconds or an HTTP date, or retry-after-ms; undefined when absent or unreadable. */
export function retryAfterFromHeaders(headers: Headers | undefined | null): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/** A 200 answer's base64 image; data that is not base64 is an answer without an image (see `no_image`). */
export function fromBase64(data: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(data.replace(/\s+/g, ""));
  } catch {
    throw new ProviderError("no_image", "the image data in the answer is not base64", {
      reason: "BAD_BASE64",
    });
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** True when the error is an abort (ours or the SDK's own timeout). */
export function isAbort(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | undefined;
  return e?.name === "AbortError" || e?.name === "TimeoutError" || e?.name === "APIUserAbortError" ||
    e?.name === "APIConnectionTimeoutError" || /aborted|timed? ?out/i.test(e?.message ?? "");
}
