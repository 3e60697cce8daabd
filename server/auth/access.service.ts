/**
 * Who is calling: checks a bearer access token and loads its account and
 * session in one database round trip, or none for a read whose lookup is
 * cached (access-cache.ts: dropped by any write from this process, at most a
 * second old). A logged-out (revoked) session's tokens stop working on the
 * next request here, and within a second in other processes. The signing key
 * is imported once per secret.
 */
import type { Db } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import type { UserRow } from "../users/users.repository.ts";
import { cachedSessionLookup } from "./access-cache.ts";
import { findUserAndSession } from "./session-user.repository.ts";
import { type AccessClaims, verifyAccessToken } from "./tokens.ts";

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

/**
 * Tokens whose signature was checked, until they expire: a signature cannot stop being valid,
 * and checking it (an async HMAC) is the largest cost of a cached read. Keyed by the whole
 * token, so a forged or altered one is never found here.
 */
const verified = new Map<string, { secret: string; claims: AccessClaims; exp: number }>();
const MAX_VERIFIED = 10_000;

async function verifiedClaims(secret: string, token: string): Promise<AccessClaims> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const hit = verified.get(token);
  if (hit && hit.secret === secret && nowSeconds < hit.exp) return hit.claims;
  let checked;
  try {
    checked = await verifyAccessToken(token, await verificationKey(secret));
  } catch {
    verified.delete(token);
    throw new AppError(401, "Could not validate credentials");
  }
  const { exp, ...claims } = checked;
  if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
  verified.set(token, { secret, claims, exp });
  return claims;
}

/**
 * The caller of `token`; 401 for a forged, expired or revoked token or a deactivated account.
 * `cached`: a read request may use the cached lookup; a write always asks the database.
 */
export async function authenticateAccessToken(
  deps: AccessDeps,
  token: string,
  opts: { cached?: boolean } = {},
): Promise<AccessContext> {
  const claims = await verifiedClaims(deps.jwtSecret, token);
  const load = () => findUserAndSession(deps.db, claims.sub, claims.sid);
  const found = opts.cached ? await cachedSessionLookup(deps.db, claims.sub, claims.sid, load) : await load();
  if (!found || !found.user.isActive) throw new AppError(401, "Could not validate credentials");
  // A logged-out (revoked) session's access tokens stop working at once.
  if (!found.sessionLive) throw new AppError(401, "Session has ended");
  return { user: found.user, sessionId: claims.sid };
}
