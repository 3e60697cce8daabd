/**
 * Register, login, refresh (rotation with reuse detection) and logout.
 * Rate limits are applied by the routes; this module holds the rules.
 */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { AppError } from "../http/errors.ts";
import { applyCreditChange } from "../credits/credits.service.ts";
import { findUserByEmail, findUserById, insertUser, type UserRow } from "../users/users.repository.ts";
import { isAdmin, toPublicUser } from "../users/users.service.ts";
import type { AuthResponse, LoginInput, RefreshResponse, RegisterInput } from "./auth.schemas.ts";
import { dummyPasswordHash, hashPassword, verifyPassword } from "./password.ts";
import {
  findRefreshTokenForUpdate,
  insertRefreshToken,
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

export async function register(
  deps: AuthDeps,
  input: RegisterInput,
): Promise<AuthResponse> {
  const email = input.email.trim().toLowerCase();
  // Hash before the transaction: never hold a transaction across slow work.
  const passwordHash = await hashPassword(input.password);
  const user = await deps.db.transaction(async (tx) => {
    const created = await insertUser(tx, {
      email,
      passwordHash,
      fullName: input.full_name.trim(),
    });
    if (!created) throw new AppError(409, "Email already registered");
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
  if (!user || !ok) throw new AppError(401, INVALID_CREDENTIALS);
  if (!user.isActive) throw new AppError(401, INVALID_CREDENTIALS);
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

/**
 * Rotates a refresh token. Presenting a token that was already rotated means
 * it was copied: the whole family is revoked (the thief and the owner both
 * have to sign in again).
 */
export async function refresh(
  deps: AuthDeps,
  token: string,
): Promise<RefreshResponse> {
  const tokenHash = await hashRefreshToken(token);
  const now = new Date();
  const outcome = await deps.db.transaction(async (tx) => {
    const row = await findRefreshTokenForUpdate(tx, tokenHash);
    if (!row || row.revokedAt) return { error: INVALID_REFRESH } as const;
    if (row.rotatedAt) {
      await revokeFamily(tx, row.family, now);
      return {
        error: "Refresh token reuse detected; please sign in again",
      } as const;
    }
    if (row.expiresAt <= now) return { error: INVALID_REFRESH } as const;
    const user = await findUserById(tx, row.userId);
    if (!user || !user.isActive) {
      await revokeFamily(tx, row.family, now);
      return { error: INVALID_REFRESH } as const;
    }
    await markRotated(tx, row.id, now);
    return { tokens: await issueTokens(deps, tx, user, row.family) } as const;
  });
  // The revocation above must commit, so the error is thrown after the transaction.
  if ("error" in outcome) throw new AppError(401, outcome.error!);
  return outcome.tokens;
}

/**
 * Revokes the caller's session family, and the family of the refresh token
 * they hand in when it is theirs (a client that lost its access token's sid
 * still signs out the session it holds).
 */
export async function logout(
  deps: AuthDeps,
  caller: { userId: string; sessionId: string },
  refreshToken?: string,
): Promise<void> {
  const now = new Date();
  await deps.db.transaction(async (tx) => {
    await revokeFamily(tx, caller.sessionId, now);
    if (!refreshToken) return;
    const row = await findRefreshTokenForUpdate(
      tx,
      await hashRefreshToken(refreshToken),
    );
    if (row && row.userId === caller.userId) {
      await revokeFamily(tx, row.family, now);
    }
  });
}
