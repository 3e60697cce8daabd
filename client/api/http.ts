/**
 * The API client: bearer from the token store, one shared refresh on 401
 * (single flight across parallel requests), one retry, and sign-out when the
 * refresh fails. Pure: fetch and storage are parameters, so it is testable
 * without a DOM.
 */

export interface TokenStore {
  getAccess(): string | null;
  getRefresh(): string | null;
  set(access: string, refresh: string): void;
  clear(): void;
}

/**
 * The server's stable error codes the client branches on (`{"detail", "code"}`). `detail` is
 * for people and may be reworded; `code` is the contract.
 */
export const ERROR_CODES = {
  insufficientCredits: "insufficient_credits",
  rateLimited: "rate_limited",
  invalidCredentials: "invalid_credentials",
  validation: "validation_error",
  notFound: "not_found",
  unauthorized: "unauthorized",
  invalidRefreshToken: "invalid_refresh_token",
  refreshTokenReused: "refresh_token_reused",
  payloadTooLarge: "payload_too_large",
  unsupportedMediaType: "unsupported_media_type",
  passwordTooCommon: "password_too_common",
  emailTaken: "email_taken",
} as const;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | null,
    /** The server's machine-readable code; null when the answer carried none (a proxy's page). */
    readonly code: string | null = null,
  ) {
    super(detail ?? `Request failed with status ${status}`);
    this.name = "ApiError";
  }
}

export interface RequestOptions extends Omit<RequestInit, "body"> {
  /** JSON body (sets Content-Type). */
  json?: unknown;
  body?: BodyInit | null;
  /** Send the bearer token (default true). */
  auth?: boolean;
}

export interface ApiClient {
  /** Raw response after auth handling; never throws on HTTP status. */
  request(path: string, opts?: RequestOptions): Promise<Response>;
  /** Parsed JSON; throws ApiError with the server's `detail` when not ok. */
  json<T>(path: string, opts?: RequestOptions): Promise<T>;
  /**
   * Refresh the access token (single flight). Resolves false when it did not
   * refresh: the session ended (tokens cleared) or the server was unreachable
   * or failing (tokens kept).
   */
  refresh(): Promise<boolean>;
  /** Clear the tokens and tell the app the visitor is signed out. */
  endSession(): void;
}

export interface ApiClientConfig {
  fetch: typeof fetch;
  tokens: TokenStore;
  baseUrl?: string;
  /** Called once each time the session ends because the server refused the refresh token. */
  onSessionEnded?: () => void;
  /**
   * Runs `fn` while holding a lock shared by every tab (navigator.locks in the
   * browser). Tabs share the tokens in localStorage; without it two tabs could
   * present the same refresh token, which the server treats as theft.
   */
  withLock?: <T>(fn: () => Promise<T>) => Promise<T>;
}

const REFRESH_PATH = "/api/auth/refresh";

/**
 * A 4xx that means "this credential is no good" (as opposed to 408/429, which
 * say "try later"). Only such answers end a session; 5xx and network errors
 * keep the tokens so a dropped connection never signs anyone out.
 */
export function isRejection(status: number, code: string | null = null): boolean {
  if (code === ERROR_CODES.rateLimited) return false;
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** The `code` of an error answer, or null when it is not our JSON error shape. */
export async function readCode(res: Response): Promise<string | null> {
  try {
    const body = await res.clone().json();
    if (body && typeof body.code === "string") return body.code;
  } catch {
    // not JSON
  }
  return null;
}

export async function readDetail(res: Response): Promise<string | null> {
  try {
    const body = await res.clone().json();
    if (body && typeof body.detail === "string") return body.detail;
    if (body && typeof body.message === "string") return body.message;
  } catch {
    // not JSON
  }
  return null;
}

export function createApiClient(config: ApiClientConfig): ApiClient {
  const { tokens, onSessionEnded } = config;
  const doFetch = config.fetch;
  const base = config.baseUrl ?? "";
  let inflight: Promise<boolean> | null = null;

  function endSession() {
    tokens.clear();
    onSessionEnded?.();
  }

  async function doRefresh(): Promise<boolean> {
    const refreshToken = tokens.getRefresh();
    if (!refreshToken) {
      // Product rule: "Refresh with no stored refresh token fails with No refresh token available."
      endSession();
      return false;
    }
    let res: Response;
    try {
      res = await doFetch(base + REFRESH_PATH, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ refresh_token: refreshToken }),
      });
    } catch {
      // Network failure: keep the tokens, the caller sees its original 401.
      return false;
    }
    if (!res.ok) {
      // The server refused the refresh token: the session is over. A 5xx (or 429) says nothing
      // about the token: keep it and let the caller retry later.
      if (isRejection(res.status, await readCode(res))) endSession();
      return false;
    }
    let body: { access_token?: string; refresh_token?: string };
    try {
      body = await res.json();
    } catch {
      return false; // a garbled answer (a proxy's error page): try again later
    }
    if (!body.access_token) {
      endSession();
      return false;
    }
    // Refresh tokens rotate: always keep the new one.
    tokens.set(body.access_token, body.refresh_token ?? refreshToken);
    return true;
  }

  function refresh(): Promise<boolean> {
    if (!inflight) {
      const seen = tokens.getRefresh();
      const withLock = config.withLock ?? ((fn) => fn());
      inflight = withLock(() => {
        // While we waited for the lock another tab may have rotated the tokens: use its result.
        const now = tokens.getRefresh();
        if (now && now !== seen && tokens.getAccess()) return Promise.resolve(true);
        return doRefresh();
      }).finally(() => {
        inflight = null;
      });
    }
    return inflight;
  }

  async function send(
    path: string,
    opts: RequestOptions,
    token: string | null,
  ): Promise<Response> {
    const { json, auth: _auth, headers: extra, body, ...rest } = opts;
    const headers = new Headers(extra);
    if (token) headers.set("Authorization", `Bearer ${token}`);
    let payload: BodyInit | null | undefined = body;
    if (json !== undefined) {
      headers.set("Content-Type", "application/json");
      payload = JSON.stringify(json);
    }
    return await doFetch(base + path, { ...rest, headers, body: payload });
  }

  async function request(
    path: string,
    opts: RequestOptions = {},
  ): Promise<Response> {
    const useAuth = opts.auth !== false;
    const token = useAuth ? tokens.getAccess() : null;
    const res = await send(path, opts, token);
    if (res.status !== 401 || !token) return res;

    // Another request may already have rotated the token while this one was in flight.
    const current = tokens.getAccess();
    if (current && current !== token && !inflight) {
      return await send(path, opts, current);
    }
    const ok = await refresh();
    if (!ok) return res;
    return await send(path, opts, tokens.getAccess());
  }

  async function json<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await request(path, opts);
    if (!res.ok) throw new ApiError(res.status, await readDetail(res), await readCode(res));
    if (res.status === 204) return undefined as T;
    return await res.json() as T;
  }

  return { request, json, refresh, endSession };
}
