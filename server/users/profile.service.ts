/** The dashboard profile: read with defaults, and partial updates of the validated fields only. */
import type { DbOrTx } from "../../db/client.ts";
import type { UserRow } from "./users.repository.ts";
import { findProfile, type ProfileRow, type ProfileValues, upsertProfile } from "./profiles.repository.ts";
import type { Profile, ProfileUpdate } from "./users.schemas.ts";

export function toProfile(row: ProfileRow | undefined, user: Pick<UserRow, "profileImageUrl">): Profile {
  return {
    first_name: row?.firstName ?? null,
    last_name: row?.lastName ?? null,
    phone: row?.phone ?? null,
    date_of_birth: row?.dateOfBirth ?? null,
    gender: row?.gender ?? null,
    location: row?.location ?? null,
    bio: row?.bio ?? null,
    styling_preferences: row?.stylingPreferences ?? {},
    favorite_styles: row?.favoriteStyles ?? [],
    color_preferences: row?.colorPreferences ?? [],
    profile_image_url: user.profileImageUrl,
    updated_at: row ? row.updatedAt.toISOString() : null,
  };
}

export async function getProfile(db: DbOrTx, user: UserRow): Promise<Profile> {
  return toProfile(await findProfile(db, user.id), user);
}

/**
 * Writes the keys the request named (already validated and stripped of
 * anything else by profileUpdateSchema); an absent key keeps its value.
 */
export async function updateProfile(db: DbOrTx, user: UserRow, input: ProfileUpdate): Promise<Profile> {
  const values: ProfileValues = {};
  if (input.first_name !== undefined) values.firstName = input.first_name;
  if (input.last_name !== undefined) values.lastName = input.last_name;
  if (input.phone !== undefined) values.phone = input.phone;
  if (input.date_of_birth !== undefined) values.dateOfBirth = input.date_of_birth;
  if (input.gender !== undefined) values.gender = input.gender;
  if (input.location !== undefined) values.location = input.location;
  if (input.bio !== undefined) values.bio = input.bio;
  if (input.styling_preferences !== undefined) values.stylingPreferences = input.styling_preferences ?? {};
  if (input.favorite_styles !== undefined) values.favoriteStyles = input.favorite_styles ?? [];
  if (input.color_preferences !== undefined) values.colorPreferences = input.color_preferences ?? [];
  return toProfile(await upsertProfile(db, user.id, values), user);
}
