/**
 * Register, login, refresh (rotation with reuse detection and a short grace
 * window) and logout. Rate limits are applied by the routes; this module holds
 * the rules. Every change to a token family runs under that family's lock
 * (sessions.repository.ts lockFamilies): see docs/decisions/007.
 */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { AppError } from "../http/errors.ts";
import { applyCreditChange } from "../credits/credits.service.ts";
import { findUserByEmail, findUserById, insertUser, type UserRow } from "../users/users.repository.ts";
import { isAdmin, toPublicUser } from "../users/users.service.ts";
import type { AuthResponse, LoginInput, RefreshResponse, RegisterInput } from "./auth.schemas.ts";
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from "./common-passwords.ts";
import { dummyPasswordHash, hashPassword, verifyPassword } from "./password.ts";
import {
  findRefreshToken,
  findRefreshTokenForUpdate,
  insertRefreshToken,
  lockFamilies,
  markRotated,
  revokeFamily,
} from "./sessions.repository.ts";
import { hashRefreshToken, newRefreshToken, REFRESH_TOKEN_DAYS, signAccessToken } from "./tokens.ts";

export interface AuthDeps {
  db: Db;
  config: Config;
  jwtSecret: string;
}

const INVALID_CREDENTIALS = "Incorrect email or password";
const INVALID_REFRESH = "Invalid or expired refresh token";
const REUSE_DETECTED = "Refresh token reuse detected; please sign in again";

/**
 * A just-rotated refresh token presented again within this many milliseconds is a second tab
 * or a retry after a lost response, not theft: it gets a fresh successor in the same family.
 * After it, a replay revokes the family.
 */
export const REFRESH_GRACE_MS = 20_000;

const invalidCredentials = () => new AppError(401, INVALID_CREDENTIALS, { code: "invalid_credentials" });

export async function register(
  deps: AuthDeps,
  input: RegisterInput,
): Promise<AuthResponse> {
  const email = input.email.trim().toLowerCase();
  if (isCommonPassword(input.password)) {
    throw new AppError(422, COMMON_PASSWORD_MESSAGE, { code: "password_too_common" });
  }
  // Hash before the transaction: never hold a transaction across slow work.
  const passwordHash = await hashPassword(input.password);
  const user = await deps.db.transaction(async (tx) => {
    const created = await insertUser(tx, {
      email,
      passwordHash,
      fullName: input.full_name.trim(),
    });
    if (!created) throw new AppError(409, "Email already registered", { code: "email_taken" });
    if (deps.config.welcomeCredits > 0) {
      await applyCreditChange(tx, {
        userId: created.id,
        delta: deps.config.welcomeCredits,
        reason: "welcome",
        ref: created.id,
      });
    }
    return created;
  });
  const fresh = (await findUserById(deps.db, user.id))!;
  return {
    ...await startSession(deps, fresh),
    user: toPublicUser(fresh, deps.config),
  };
}

export async function login(
  deps: AuthDeps,
  input: LoginInput,
): Promise<AuthResponse> {
  const email = input.email.trim().toLowerCase();
  const user = await findUserByEmail(deps.db, email);
  // Same work and the same answer whether the account exists or not.
  const ok = await verifyPassword(
    user?.passwordHash ?? await dummyPasswordHash(),
    input.password,
  );
  if (!user || !ok || !user.isActive) throw invalidCredentials();
  return {
    ...await startSession(deps, user),
    user: toPublicUser(user, deps.config),
  };
}

async function startSession(
  deps: AuthDeps,
  user: UserRow,
): Promise<RefreshResponse> {
  const family = crypto.randomUUID();
  return await issueTokens(deps, deps.db, user, family);
}

async function issueTokens(
  deps: AuthDeps,
  db: Parameters<typeof insertRefreshToken>[0],
  user: UserRow,
  family: string,
): Promise<RefreshResponse> {
  const refresh = newRefreshToken();
  await insertRefreshToken(db, {
    tokenHash: await hashRefreshToken(refresh),
    userId: user.id,
    family,
    expiresAt: new Date(Date.now() + REFRESH_TOKEN_DAYS * 86400_000),
  });
  const role = isAdmin(user, deps.config) ? "admin" : "user";
  const access = await signAccessToken(
    { sub: user.id, sid: family, role },
    deps.jwtSecret,
  );
  return { access_token: access, refresh_token: refresh };
}

type RefreshOutcome = { tokens: RefreshResponse } | { error: string; code: string };

/**
 * Rotates a refresh token. Presenting a token that was already rotated means
 * it was copied: the whole family is revoked (the thief and the owner both
 * have to sign in again), unless it was rotated less than REFRESH_GRACE_MS ago
 * (two tabs, or a retry after a lost answer): then it gets a fresh successor.
 */
export async function refresh(
  deps: AuthDeps,
  token: string,
): Promise<RefreshResponse> {
  const tokenHash = await hashRefreshToken(token);
  const now = new Date();
  const outcome = await deps.db.transaction(async (tx): Promise<RefreshOutcome> => {
    const invalid = { error: INVALID_REFRESH, code: "invalid_refresh_token" };
    const seen = await findRefreshToken(tx, tokenHash);
    if (!seen) return invalid;
    // Lock the family, then read the row again: a revocation or rotation that committed
    // while we waited is now visible.
    await lockFamilies(tx, [seen.family]);
    const row = await findRefreshTokenForUpdate(tx, tokenHash);
    if (!row || row.revokedAt) return invalid;
    if (row.expiresAt <= now) return invalid;
    const user = await findUserById(tx, row.userId);
    if (!user || !user.isActive) {
      await revokeFamily(tx, row.family, now);
      return invalid;
    }
    if (row.rotatedAt) {
      if (now.getTime() - row.rotatedAt.getTime() <= REFRESH_GRACE_MS) {
        // The grace answer: a new token of the same family (only hashes are stored, so the
        // successor already issued cannot be handed out again). The grace does not restart.
        return { tokens: await issueTokens(deps, tx, user, row.family) };
      }
      await revokeFamily(tx, row.family, now);
      return { error: REUSE_DETECTED, code: "refresh_token_reused" };
    }
    await markRotated(tx, row.id, now);
    return { tokens: await issueTokens(deps, tx, user, row.family) };
  });
  // The revocation above must commit, so the error is thrown after the transaction.
  if ("error" in outcome) throw new AppError(401, outcome.error, { code: outcome.code });
  return outcome.tokens;
}

/**
 * Signs out the session a refresh token belongs to, for a caller whose access token no longer
 * authenticates. False when the token is unknown; a token already revoked or rotated still names its
 * session, which is revoked (again).
 */
export async function logoutByRefreshToken(deps: AuthDeps, refreshToken: string): Promise<boolean> {
  const held = await findRefreshToken(deps.db, await hashRefreshToken(refreshToken));
  if (!held) return false;
  const now = new Date();
  await deps.db.transaction(async (tx) => {
    await lockFamilies(tx, [held.family]);
    await revokeFamily(tx, held.family, now);
  });
  return true;
}

/**
 * Revokes the caller's session family, and the family of the refresh token
 * they hand in when it is theirs (a client that lost its access token's sid
 * still signs out the session it holds). Both families are locked first, so a
 * rotation racing the logout is either revoked with it or refused after it.
 */
export async function logout(
  deps: AuthDeps,
  caller: { userId: string; sessionId: string },
  refreshToken?: string,
): Promise<void> {
  const now = new Date();
  const held = refreshToken
    ? await findRefreshToken(deps.db, await hashRefreshToken(refreshToken))
    : undefined;
  const families = [caller.sessionId];
  if (held && held.userId === caller.userId) families.push(held.family);
  await deps.db.transaction(async (tx) => {
    await lockFamilies(tx, families);
    for (const family of new Set(families)) await revokeFamily(tx, family, now);
  });
}
