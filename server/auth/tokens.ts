/**
 * Access tokens: HS256 JWTs (hono/jwt), 15 minutes, claims sub, sid, role.
 * Refresh tokens: 256-bit opaque random strings, stored only as SHA-256.
 */
import { sign, verify } from "hono/jwt";
import { encodeHex, sha256Hex } from "../hex-digest.ts";
import { isUuid } from "../ids.ts";

export const ACCESS_TOKEN_SECONDS = 15 * 60;
export const REFRESH_TOKEN_DAYS = 30;

export interface AccessClaims {
  sub: string;
  sid: string;
  role: "user" | "admin";
}

export function signAccessToken(
  claims: AccessClaims,
  secret: string,
  now = Date.now(),
) {
  const iat = Math.floor(now / 1000);
  return sign(
    { ...claims, iat, exp: iat + ACCESS_TOKEN_SECONDS },
    secret,
    "HS256",
  );
}

/**
 * Throws on a bad signature, a wrong algorithm, an expired token or missing or malformed claims.
 * `exp` (seconds since the epoch) tells a cache of verified tokens when to let go.
 */
export async function verifyAccessToken(
  token: string,
  /** The secret, or its HMAC key imported once (access.service.ts). */
  secret: string | CryptoKey,
): Promise<AccessClaims & { exp: number }> {
  const payload = await verify(token, secret, "HS256");
  const { sub, sid, role, exp } = payload as Record<string, unknown>;
  if (
    // We only issue UUIDs; anything else would reach uuid columns and fail there (a 500).
    !isUuid(sub) || !isUuid(sid) ||
    (role !== "user" && role !== "admin") ||
    typeof exp !== "number"
  ) {
    throw new Error("malformed claims");
  }
  return { sub, sid, role, exp };
}

export function newRefreshToken(): string {
  return encodeHex(crypto.getRandomValues(new Uint8Array(32)));
}

export const hashRefreshToken = (token: string) => sha256Hex(token);
