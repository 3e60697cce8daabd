/**
 * How a provider's failed request becomes a ProviderError, shared by the Gemini, OpenAI and fal
 * adapters. Each adapter reads its own wire format (its SDK's error or its JSON body) into an
 * HttpFailure and may add rules of its own in front of the common table (a safety refusal sent as
 * an HTTP error, an exhausted quota); the table then gives the same kind for the same status
 * whichever provider answered, so the retry policy in hosted-model.ts treats them alike.
 */
import { isAbort, ProviderError, type ProviderErrorKind } from "./provider.ts";

/** A provider's HTTP error answer, as its adapter read it. */
export interface HttpFailure {
  status: number;
  /** The provider's own explanation. */
  message: string;
  /** The provider's error code or reason (for logs; named in the message where it helps). */
  reason?: string;
  /** How long the provider asked us to wait (Retry-After, RetryInfo); applied only to retried kinds. */
  retryAfterMs?: number;
}

/** The kinds an HTTP error answer can have (timeouts and 200s without an image are the adapters' own). */
type StatusKind = Exclude<ProviderErrorKind, "timeout" | "no_image">;

export interface StatusRule {
  when: (f: HttpFailure) => boolean;
  kind: StatusKind;
}

/** Every provider: a bad key, a rate limit, and what is worth retrying; anything else is `config`. */
const COMMON_RULES: readonly StatusRule[] = [
  { when: (f) => f.status === 401 || f.status === 403, kind: "auth" },
  { when: (f) => f.status === 429, kind: "rate_limited" },
  { when: (f) => f.status === 408 || f.status >= 500, kind: "unavailable" },
];

const code = (f: HttpFailure) => f.reason ? ` ${f.reason}` : "";

/** The operator's log line and health detail for each kind, after the provider's name. */
const SAYS: Record<StatusKind, (f: HttpFailure) => string> = {
  auth: (f) => `refused the API key (${f.status}${code(f)}): ${f.message}`,
  rate_limited: (f) => `rate limit (${f.status}${code(f)}): ${f.message}`,
  unavailable: (f) => `unavailable (${f.status}): ${f.message}`,
  blocked: (f) => `declined the request (${f.reason ?? f.status}): ${f.message}`,
  config: (f) => `rejected the request (${f.status}${code(f)}): ${f.message}`,
};

/** Classifies an HTTP error answer: the provider's own `rules` first, then the common table. */
export function httpProviderError(
  provider: string,
  failure: HttpFailure,
  rules: readonly StatusRule[] = [],
): ProviderError {
  const kind = [...rules, ...COMMON_RULES].find((r) => r.when(failure))?.kind ?? "config";
  const retried = kind === "rate_limited" || kind === "unavailable";
  return new ProviderError(kind, `${provider} ${SAYS[kind](failure)}`, {
    status: failure.status,
    reason: failure.reason,
    retryAfterMs: retried ? failure.retryAfterMs : undefined,
  });
}

/**
 * A request that got no HTTP answer: `timeout` when it was aborted (the call's deadline or the
 * job's cancellation), else `unavailable` (connection refused or reset); both are retried.
 */
export function transportError(provider: string, error: unknown, signal?: AbortSignal): ProviderError {
  const message = (error as Error | undefined)?.message ?? String(error);
  if (signal?.aborted || isAbort(error)) {
    return new ProviderError("timeout", `${provider} did not answer in time: ${message}`);
  }
  return new ProviderError("unavailable", `${provider} could not be reached: ${message}`);
}
