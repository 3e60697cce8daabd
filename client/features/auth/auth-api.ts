import { api } from "../../api/client.ts";
import { ApiError } from "../../api/http.ts";
import { endSessionOnServer, startSession } from "../../api/session.ts";
import type { AuthResponse, PublicUser } from "../../api/types.ts";

export async function login(
  email: string,
  password: string,
): Promise<PublicUser> {
  const res = await api.json<AuthResponse>("/api/auth/login", {
    method: "POST",
    json: { email: email.trim(), password },
    auth: false,
  });
  startSession(res);
  return res.user;
}

export async function register(
  fullName: string,
  email: string,
  password: string,
): Promise<PublicUser> {
  const res = await api.json<AuthResponse>("/api/auth/register", {
    method: "POST",
    json: { email: email.trim(), password, full_name: fullName.trim() },
    auth: false,
  });
  startSession(res);
  return res.user;
}

export const logout = endSessionOnServer;

export function errorDetail(err: unknown): string | null {
  return err instanceof ApiError ? err.detail : null;
}
