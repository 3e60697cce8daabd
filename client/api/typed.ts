/**
 * Typed API calls: Hono's client (`hc`) over the route modules' own types, so
 * each call's path, method, request body and JSON answer come from the route
 * definitions. The route modules are imported for their types only: no server
 * code reaches the bundle. Every request goes through `api.request`, so the
 * bearer token, the single-flight refresh on 401 and the sign-out when the
 * refresh is refused behave exactly as for the untyped calls.
 *
 * The calls made while the first screen loads (the session and the current
 * user in api/me.ts and api/session.ts, the landing page's upload in
 * api/photos.ts) stay on `api.json`: importing this module there would put
 * `hc` into the initial JS (docs/decisions/013-client-api-layer.md).
 */
import { type ClientResponse, hc } from "hono/client";
import type { authRoutes } from "../../server/auth/auth.routes.ts";
import type { generationRoutes } from "../../server/generation/generation.routes.ts";
import type { paymentsRoutes } from "../../server/payments/payments.routes.ts";
import type { stylingRoutes } from "../../server/styling/styling.routes.ts";
import type { usersRoutes } from "../../server/users/users.routes.ts";
import { api } from "./client.ts";
import { ApiError, readCode, readDetail, type RequestOptions } from "./http.ts";

/** hc's fetch: the path it built (relative to this origin) through the API client. */
function through(auth: boolean) {
  return {
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      api.request(String(input), { ...init as RequestOptions, auth }),
  };
}
const signedIn = through(true);
/** Public calls go without the bearer token, as they always have. */
const anonymous = through(false);

export const usersApi = hc<ReturnType<typeof usersRoutes>>("/api", signedIn);
export const paymentsApi = hc<ReturnType<typeof paymentsRoutes>>("/api", signedIn);
export const publicPaymentsApi = hc<ReturnType<typeof paymentsRoutes>>("/api", anonymous);
export const generationApi = hc<ReturnType<typeof generationRoutes>>("/api", signedIn);
export const publicStylingApi = hc<ReturnType<typeof stylingRoutes>>("/api", anonymous);
export const publicAuthApi = hc<ReturnType<typeof authRoutes>>("/api/auth", anonymous);

/**
 * The JSON of a successful answer; an error answer throws the same ApiError
 * (`detail`, `code`) as `api.json`. (Errors the server throws are not in the
 * route types: callers keep branching on `ApiError.code`.)
 */
export async function ok<T>(pending: Promise<ClientResponse<T>>): Promise<T> {
  const res = await pending;
  if (!res.ok) {
    const raw = res as unknown as Response;
    throw new ApiError(res.status, await readDetail(raw), await readCode(raw));
  }
  if (res.status === 204) return undefined as T;
  return await res.json() as T;
}
