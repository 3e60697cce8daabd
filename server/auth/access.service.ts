/**
 * Who is calling: checks a bearer access token and loads its account and
 * session in one database round trip. A logged-out (revoked) session's tokens
 * stop working on the next request: nothing is cached between requests but
 * the signing key, imported once per secret.
 */
import type { Db } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import type { UserRow } from "../users/users.repository.ts";
import { findUserAndSession } from "./session-user.repository.ts";
import { verifyAccessToken } from "./tokens.ts";

export interface AccessContext {
  user: UserRow;
  sessionId: string;
}

export interface AccessDeps {
  db: Db;
  jwtSecret: string;
}

/** One HMAC key per secret (a process has one; tests a few): importing it costs more than verifying. */
const keys = new Map<string, Promise<CryptoKey>>();
const MAX_KEYS = 16;

export function verificationKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
    key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    keys.set(secret, key);
  }
  return key;
}

/** The caller of `token`; 401 for a forged, expired or revoked token or a deactivated account. */
export async function authenticateAccessToken(deps: AccessDeps, token: string): Promise<AccessContext> {
  let claims;
  try {
    claims = await verifyAccessToken(token, await verificationKey(deps.jwtSecret));
  } catch {
    throw new AppError(401, "Could not validate credentials");
  }
  const found = await findUserAndSession(deps.db, claims.sub, claims.sid);
  if (!found || !found.user.isActive) throw new AppError(401, "Could not validate credentials");
  // A logged-out (revoked) session's access tokens stop working at once.
  if (!found.sessionLive) throw new AppError(401, "Session has ended");
  return { user: found.user, sessionId: claims.sid };
}
