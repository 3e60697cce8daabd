/**
 * One error type, one handler (STYLE.md 7). Services throw AppError with a
 * status and a user-facing message; app.ts's onError answers `{"detail": ...}`.
 */
export type ErrorStatus =
  | 400
  | 401
  | 402
  | 403
  | 404
  | 409
  | 413
  | 415
  | 422
  | 429
  | 500
  | 503;

export class AppError extends Error {
  readonly status: ErrorStatus;
  readonly headers: Record<string, string>;
  constructor(
    status: ErrorStatus,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
    this.status = status;
    this.headers = headers;
  }
}

export const unauthorized = (message = "Not authenticated") => new AppError(401, message);
export const notFound = (message = "Not found") => new AppError(404, message);
