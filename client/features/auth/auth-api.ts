/** Sign in and sign up (the dialog loads this on demand; signing out is api/session.ts). */
import { ApiError } from "../../api/http.ts";
import { ok, publicAuthApi } from "../../api/typed.ts";
import { startSession } from "../../api/session.ts";
import type { AuthResponse, PublicUser } from "../../api/types.ts";

export async function login(
  email: string,
  password: string,
): Promise<PublicUser> {
  const res: AuthResponse = await ok(publicAuthApi.login.$post({ json: { email: email.trim(), password } }));
  startSession(res);
  return res.user;
}

export async function register(
  fullName: string,
  email: string,
  password: string,
): Promise<PublicUser> {
  const res: AuthResponse = await ok(publicAuthApi.register.$post({
    json: { email: email.trim(), password, full_name: fullName.trim() },
  }));
  startSession(res);
  return res.user;
}

export function errorDetail(err: unknown): string | null {
  return err instanceof ApiError ? err.detail : null;
}
