/**
 * GET /api/users/stats: the dashboard's four figures, all from the user's
 * own rows (generations, balance, profile), never sample values.
 */
import type { DbOrTx } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { defaultOptions, findEntry } from "../styling/catalog.ts";
import type { OptionKey } from "../styling/option-keys.ts";
import { countGenerationsByStatus, countOptionValues } from "./account-data.repository.ts";
import { findProfile } from "./profiles.repository.ts";
import { toProfile } from "./profile.service.ts";
import type { UserRow } from "./users.repository.ts";
import { toPublicUser } from "./users.service.ts";
import {
  type FavoriteStyle,
  type Profile,
  PROFILE_COMPLETENESS_FIELDS,
  type UserStats,
} from "./users.schemas.ts";

const FAVORITES_SHOWN = 3;

/**
 * The option values the user picked most often. An option left at its
 * studio's default (No Makeup, Same as reference image ...) is not a style
 * choice and is not counted. Ties are broken by label.
 */
export function favoriteStyles(
  counts: { studioType: "makeup" | "hair" | "barber"; option: string; value: string; count: number }[],
): FavoriteStyle[] {
  const merged = new Map<string, FavoriteStyle>();
  for (const { studioType, option, value, count } of counts) {
    if (defaultOptions(studioType)[option as OptionKey] === value) continue;
    const entry = findEntry(option as OptionKey, studioType, value);
    if (!entry) continue; // a value the catalog no longer lists
    // The same choice made in two studios (a lip colour in makeup and barber) is one favourite.
    const id = `${option}:${value}`;
    const seen = merged.get(id);
    if (seen) seen.count += count;
    else merged.set(id, { option, value, label: entry.label, count });
  }
  return [...merged.values()]
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label))
    .slice(0, FAVORITES_SHOWN);
}

/** Whole percent of PROFILE_COMPLETENESS_FIELDS that hold a value. */
export function profileCompleteness(profile: Profile): number {
  const filled = PROFILE_COMPLETENESS_FIELDS.filter((f) => {
    const v = profile[f];
    return v !== null && v !== "";
  }).length;
  return Math.round((filled / PROFILE_COMPLETENESS_FIELDS.length) * 100);
}

export async function userStats(
  deps: { db: DbOrTx; config: Pick<Config, "adminEmails"> },
  user: UserRow,
): Promise<UserStats> {
  const [byStatus, options, profileRow] = await Promise.all([
    countGenerationsByStatus(deps.db, user.id),
    countOptionValues(deps.db, user.id),
    findProfile(deps.db, user.id),
  ]);
  return {
    total_generations: Object.values(byStatus).reduce((a, b) => a + b, 0),
    completed_generations: byStatus.completed ?? 0,
    available_credits: toPublicUser(user, deps.config).credits,
    favorite_styles: favoriteStyles(options),
    profile_completeness: profileCompleteness(toProfile(profileRow, user)),
  };
}
