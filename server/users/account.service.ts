/**
 * Account actions from the dashboard's Settings: change password, data
 * export and account deletion.
 */
import type { Db } from "../../db/client.ts";
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from "../auth/common-passwords.ts";
import { hashPassword, verifyPassword } from "../auth/password.ts";
import { revokeAllSessions, revokeOtherSessions } from "../auth/session-revocation.ts";
import type { Config } from "../config.ts";
import { AppError } from "../http/errors.ts";
import { log } from "../log.ts";
import { uploadUrl } from "../photos/photo-serving.ts";
import { deletePhotoRowsOf, listPhotosOf } from "../photos/user-photos.ts";
import type { SubscriptionSummary } from "../payments/payments.schemas.ts";
import type { BlobStorage } from "../storage/storage.ts";
import {
  anonymiseUser,
  deleteGenerationsOfUser,
  listGenerationsOfUser,
  listLedgerOfUser,
  setPasswordHash,
} from "./account-data.repository.ts";
import { storageKeyOf } from "./profile-image.service.ts";
import { deleteProfile, findProfile } from "./profiles.repository.ts";
import { toProfile } from "./profile.service.ts";
import { findUserById, type UserRow } from "./users.repository.ts";
import { toPublicUser } from "./users.service.ts";
import {
  type ChangePasswordInput,
  PASSWORD_CHANGED,
  SAME_PASSWORD,
  WRONG_CURRENT_PASSWORD,
} from "./users.schemas.ts";

/** What the account needs from payments: the current subscription, and cancelling it. */
export interface SubscriptionPort {
  summary(userId: string): Promise<SubscriptionSummary>;
  /** Cancels every active subscription of the user with the provider; idempotent. */
  cancelAll(userId: string): Promise<void>;
}

export interface AccountDeps {
  db: Db;
  config: Config;
  storage: BlobStorage;
  subscriptions: SubscriptionPort;
  /** See PhotoDeps.forgetPhotos. */
  forgetPhotos?: (photoIds: readonly string[]) => void;
}

/**
 * Changes the password after checking the current one. Every other session
 * is signed out; the caller's session (`sessionId`) stays valid.
 */
export async function changePassword(
  deps: Pick<AccountDeps, "db">,
  caller: { user: UserRow; sessionId: string },
  input: ChangePasswordInput,
): Promise<{ message: string; sessions_revoked: number }> {
  const { user, sessionId } = caller;
  if (!await verifyPassword(user.passwordHash, input.current_password)) {
    throw new AppError(400, WRONG_CURRENT_PASSWORD, { code: "wrong_current_password" });
  }
  if (input.new_password === input.current_password) {
    throw new AppError(422, SAME_PASSWORD, { code: "same_password" });
  }
  // The registration rules: the schema checked the pattern, this the common-password list.
  if (isCommonPassword(input.new_password)) {
    throw new AppError(422, COMMON_PASSWORD_MESSAGE, { code: "password_too_common" });
  }
  // Hash before the transaction: never hold a transaction across slow work.
  const passwordHash = await hashPassword(input.new_password);
  const revoked = await deps.db.transaction(async (tx) => {
    await setPasswordHash(tx, user.id, passwordHash);
    return await revokeOtherSessions(tx, user.id, sessionId);
  });
  return { message: PASSWORD_CHANGED, sessions_revoked: revoked };
}

/** Everything stored about the user, as one JSON-ready document. */
export async function exportAccountData(deps: AccountDeps, user: UserRow, now = new Date()) {
  const [profile, subscription, ledger, generations, photos] = await Promise.all([
    findProfile(deps.db, user.id),
    deps.subscriptions.summary(user.id),
    listLedgerOfUser(deps.db, user.id),
    listGenerationsOfUser(deps.db, user.id),
    listPhotosOf(deps.db, user.id),
  ]);
  return {
    exported_at: now.toISOString(),
    account: toPublicUser(user, deps.config),
    profile: toProfile(profile, user),
    subscription,
    credit_ledger: ledger.map((r) => ({
      delta: r.delta,
      balance_after: r.balanceAfter,
      reason: r.reason,
      ref: r.ref,
      created_at: r.createdAt.toISOString(),
    })),
    generations: generations.map((g) => ({
      id: g.id,
      created_at: g.createdAt.toISOString(),
      completed_at: g.completedAt?.toISOString() ?? null,
      studio_type: g.studioType,
      status: g.status,
      options: g.options,
      intensity: g.intensity,
      additional_instructions: g.additionalInstructions,
      // The image model that made it and, for hosted models, the prompt it was sent.
      model: g.model,
      prompt: g.prompt,
      view360: g.view360,
      credits_charged: g.creditsCharged,
      result_urls: Object.fromEntries(
        Object.entries(g.results).map(([angle, key]) => [angle, uploadUrl(key!)]),
      ),
      error: g.error,
    })),
    photos: photos.map((p) => ({
      id: p.id,
      url: uploadUrl(p.storageKey),
      mime: p.mime,
      width: p.width,
      height: p.height,
      bytes: p.bytes,
      created_at: p.createdAt.toISOString(),
    })),
  };
}

/**
 * Deletes the account: its subscription is cancelled first (no charge after
 * deletion), then in one transaction every session is revoked, generations,
 * photos and the profile are deleted and the user row is anonymised (its id
 * stays for the ledger rows accounting keeps; the email is freed). The files
 * are removed after the commit, and the image models forget the photos (what
 * they keep of them in memory). Running it again for the same user does
 * nothing new, so a retry after a crash finishes the job.
 */
export async function deleteAccount(deps: AccountDeps, userId: string): Promise<{ files_removed: number }> {
  await deps.subscriptions.cancelAll(userId);
  const user = await findUserById(deps.db, userId);
  const now = new Date();
  const { keys, photoIds } = await deps.db.transaction(async (tx) => {
    await revokeAllSessions(tx, userId, now);
    const resultKeys = await deleteGenerationsOfUser(tx, userId);
    const photoRows = await deletePhotoRowsOf(tx, userId);
    await deleteProfile(tx, userId);
    await anonymiseUser(tx, userId, now);
    const imageKey = storageKeyOf(user?.profileImageUrl ?? null);
    const photoKeys = photoRows.map((p) => p.storageKey);
    return {
      keys: [...new Set([...resultKeys, ...photoKeys, ...(imageKey ? [imageKey] : [])])],
      photoIds: photoRows.map((p) => p.id),
    };
  });
  if (photoIds.length) deps.forgetPhotos?.(photoIds);
  let removed = 0;
  for (const key of keys) {
    try {
      await deps.storage.delete(key);
      removed++;
    } catch (error) {
      // No row points at it any more: the orphan sweep removes it later.
      log.warn("deleted account's file not removed", { key, error });
    }
  }
  log.info("account deleted", { userId, files: removed });
  return { files_removed: removed };
}
