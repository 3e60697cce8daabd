/**
 * Startup auth, pure so it is testable without a DOM: with a
 * stored access token, fetch the current user; the API client refreshes once
 * on 401. The visitor is signed out (tokens cleared) only when the server
 * refused the credentials: a 401 after a refresh that itself answered 4xx, or
 * with no refresh token. A network error or a 5xx keeps the tokens and throws
 * `SessionUnavailableError`, so the caller keeps the auth state "unknown" and
 * retries with backoff instead of showing a signed-out page.
 */
import { type ApiClient, ApiError, isRejection, type TokenStore } from "./http.ts";
import type { PublicUser } from "./types.ts";

export const ME_PATH = "/api/users/me";

/** The server could not say who the visitor is right now (offline, 5xx): try again later. */
export class SessionUnavailableError extends Error {
  constructor(cause: unknown) {
    super("The session could not be checked (network or server error)", { cause });
    this.name = "SessionUnavailableError";
  }
}

export function createFetchMe(
  api: Pick<ApiClient, "json" | "endSession">,
  tokens: Pick<TokenStore, "getAccess">,
): () => Promise<PublicUser | null> {
  return async () => {
    const before = tokens.getAccess();
    if (!before) return null;
    try {
      return await api.json<PublicUser>(ME_PATH);
    } catch (err) {
      if (!(err instanceof ApiError) || !isRejection(err.status)) {
        throw new SessionUnavailableError(err); // network error, 5xx, 408, 429
      }
      if (err.status !== 401) {
        // Another 4xx (e.g. 403, 404 from a proxy) says nothing about the token: keep it.
        throw new SessionUnavailableError(err);
      }
      const now = tokens.getAccess();
      // The client's refresh was refused (4xx) or there was no refresh token: it already cleared
      // the tokens and ended the session.
      if (!now) return null;
      // The refresh worked (a new access token) yet the server still answers 401: the account
      // itself is refused (deactivated, session revoked). Sign out.
      if (now !== before) {
        api.endSession();
        return null;
      }
      // Same token, still 401: the refresh could not reach the server. Keep the tokens.
      throw new SessionUnavailableError(err);
    }
  };
}

/** Retry the startup check while the server is unreachable: 1 s, 2 s, 4 s ... capped at 30 s. */
export function meRetryDelay(failures: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, failures));
}

/** Only "unknown" answers are retried (forever, with backoff); a refused session is final. */
export function shouldRetryMe(_failures: number, err: unknown): boolean {
  return err instanceof SessionUnavailableError;
}
