/**
 * One error type, one handler. Services throw AppError with a status, a
 * user-facing message and a stable machine-readable code; app.ts's onError
 * answers `{"detail": message, "code": code}`. Clients branch on `code`, never
 * on the wording of `detail`.
 */
export type ErrorStatus =
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 409
  | 413
  | 415
  | 422
  | 429
  | 500
  | 503;

/** The code an error gets when its thrower names none. */
export const DEFAULT_CODES: Record<ErrorStatus, string> = {
  400: "bad_request",
  401: "unauthorized",
  402: "insufficient_credits",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_error",
  429: "rate_limited",
  500: "internal_error",
  503: "service_unavailable",
};

/** The code for any HTTP status (Hono's own 4xx errors carry no code of ours). */
export function defaultCode(status: number): string {
  return DEFAULT_CODES[status as ErrorStatus] ?? (status >= 500 ? "internal_error" : "bad_request");
}

export interface AppErrorOptions {
  /** Stable, snake_case; defaults to the status's code (DEFAULT_CODES). */
  code?: string;
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: ErrorStatus, message: string, opts: AppErrorOptions = {}) {
    super(message);
    this.name = "AppError";
    this.status = status;
    this.code = opts.code ?? DEFAULT_CODES[status];
    this.headers = opts.headers ?? {};
  }
}

export const unauthorized = (message = "Not authenticated") => new AppError(401, message);
export const notFound = (message = "Not found") => new AppError(404, message);
