/** Profile: the avatar with its camera upload control and the profile form. */
import { type FormEvent, type InputHTMLAttributes, useRef, useState } from "react";
import type { PublicUser } from "../../api/types.ts";
import { splitFullName } from "../../lib/account-labels.ts";
import { useBusyAction } from "../../lib/use-busy-action.ts";
import { Button } from "../../ui/button.tsx";
import { controlClass, Field, FormField } from "../../ui/field.tsx";
import { CameraIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { PROFILE_GENDERS, PROFILE_LIMITS } from "../../../server/users/users.schemas.ts";
import { type Profile, saveProfile, serverDetail, uploadProfileImage, useProfile } from "./dashboard-api.ts";
import { DashboardCard } from "./dashboard-section.tsx";

type FormState = Record<
  "first_name" | "last_name" | "phone" | "date_of_birth" | "gender" | "location" | "bio",
  string
>;

const GENDER_LABELS: Record<(typeof PROFILE_GENDERS)[number], string> = {
  male: "Male",
  female: "Female",
  other: "Other",
  "prefer-not-to-say": "Prefer not to say",
};

type TextKey = "first_name" | "last_name" | "phone" | "date_of_birth" | "location";

/** The plain inputs, in form order (gender and bio are a select and a textarea). */
const TEXT_FIELDS: Record<TextKey, InputHTMLAttributes<HTMLInputElement> & { label: string }> = {
  first_name: { label: "First Name", maxLength: PROFILE_LIMITS.name, autoComplete: "given-name" },
  last_name: { label: "Last Name", maxLength: PROFILE_LIMITS.name, autoComplete: "family-name" },
  phone: { label: "Phone Number", type: "tel", maxLength: PROFILE_LIMITS.phone, autoComplete: "tel" },
  date_of_birth: { label: "Date of Birth", type: "date" },
  location: { label: "Location", maxLength: PROFILE_LIMITS.location, autoComplete: "address-level2" },
};

/**
 * The form's values for a loaded profile. A profile never saved (no `updated_at`) shows the full name given
 * at sign-up split into first name (its first word) and last name (the rest): the person has told us their
 * name once already. Once saved, the stored names are shown as they are, empty ones too.
 */
function toForm(p: Profile | undefined, fullName: string): FormState {
  const given = p && p.updated_at === null ? splitFullName(fullName) : { first: "", last: "" };
  return {
    first_name: p?.first_name ?? given.first,
    last_name: p?.last_name ?? given.last,
    phone: p?.phone ?? "",
    // Only the date part is shown.
    date_of_birth: p?.date_of_birth?.slice(0, 10) ?? "",
    gender: p?.gender ?? "",
    location: p?.location ?? "",
    bio: p?.bio ?? "",
  };
}

function Avatar({ user, imageUrl }: { user: PublicUser; imageUrl: string | null }) {
  const { busy: uploading, run } = useBusyAction();
  const input = useRef<HTMLInputElement>(null);
  const initial = (user.full_name || user.email).trim().slice(0, 1).toUpperCase();

  async function onFile(file: File | undefined) {
    if (!file) return;
    await run(async () => {
      await uploadProfileImage(file);
      toast({
        title: "Profile Image Updated",
        description: "Your profile picture has been updated.",
        variant: "success",
      });
    }, (err) => {
      console.warn("Profile image upload failed", err);
      // The product's words first, then why (a file that is not an image, one too large).
      const why = serverDetail(err);
      return {
        title: "Upload Failed",
        description: `Failed to upload profile image.${why ? ` ${why}` : ""}`,
      };
    });
    if (input.current) input.current.value = "";
  }

  return (
    <div className="relative size-28 shrink-0 sm:size-32">
      {imageUrl
        ? (
          <img
            src={imageUrl}
            alt="Your profile picture"
            className="size-full rounded-full object-cover ring-4 ring-white shadow-md"
            data-testid="profile-avatar"
          />
        )
        : (
          <div
            className="grid size-full place-items-center rounded-full bg-gradient-to-br from-brand-400 to-fuchsia-600 text-4xl font-bold text-white ring-4 ring-white shadow-md"
            data-testid="profile-avatar"
          >
            {initial}
          </div>
        )}
      <label
        className="absolute bottom-0 right-0 grid size-10 cursor-pointer place-items-center rounded-full bg-ink-900 text-white shadow-lg ring-2 ring-white hover:bg-ink-800 focus-within:outline-2 focus-within:outline-offset-2 focus-within:outline-brand-500"
        title="Change profile picture"
      >
        {uploading ? <Spinner className="size-5" /> : <CameraIcon className="size-5" />}
        <span className="sr-only">Change profile picture</span>
        <input
          ref={input}
          type="file"
          accept="image/*"
          className="sr-only"
          disabled={uploading}
          onChange={(e) => onFile(e.target.files?.[0])}
          data-testid="profile-image-input"
        />
      </label>
    </div>
  );
}

export function ProfileTab({ user }: { user: PublicUser }) {
  const profile = useProfile();
  const [form, setForm] = useState<FormState>(() => toForm(profile.data, user.full_name));
  const { busy: saving, run } = useBusyAction();
  // The form shows the loaded profile's values, set during the render that brings them (not in
  // an effect a commit later), and only when they changed: a new picture alone keeps what is
  // being typed. Until the first load ends the fields are disabled (below): typing into them
  // before then was silently overwritten by the values that arrived.
  const loaded = profile.data ? toForm(profile.data, user.full_name) : null;
  // Not loaded (still loading, or the load failed): the fields stay disabled. Saving a form that never held
  // the profile would write its empty fields over the stored one.
  const unloaded = !profile.data;
  const loadedKey = loaded && JSON.stringify(loaded);
  const [shownKey, setShownKey] = useState(loadedKey);
  if (loaded && loadedKey !== shownKey) {
    setShownKey(loadedKey);
    setForm(loaded);
  }

  const set = (key: keyof FormState) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [key]: e.target.value }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    await run(async () => {
      const saved = await saveProfile({ ...form, gender: (form.gender || null) as Profile["gender"] });
      setForm(toForm(saved, user.full_name));
      toast({ title: "Profile Updated", description: "Your profile has been saved.", variant: "success" });
    }, (err) => ({ title: "Update Failed", description: serverDetail(err) ?? "Failed to update profile" }));
  }

  const today = new Date().toISOString().slice(0, 10);
  const textField = (key: TextKey, extra?: InputHTMLAttributes<HTMLInputElement>) => (
    <Field {...TEXT_FIELDS[key]} {...extra} name={key} value={form[key]} onChange={set(key)} />
  );

  return (
    <DashboardCard as="div">
      <div className="flex flex-col items-center gap-5 sm:flex-row sm:items-center">
        <Avatar user={user} imageUrl={profile.data?.profile_image_url ?? user.profile_image_url} />
        <div className="min-w-0 max-w-full text-center sm:text-left">
          <h2 className="break-words text-xl font-bold text-ink-900">{user.full_name || user.email}</h2>
          <p className="break-all text-sm text-ink-500">{user.email}</p>
          <p className="mt-1 text-xs text-ink-500">Tap the camera to change your picture.</p>
        </div>
      </div>
      {profile.isError && !profile.data && (
        <div role="alert" className="mt-6 flex flex-wrap items-center gap-3 rounded-2xl bg-red-50 px-4 py-3">
          <p className="text-sm text-red-800">Your profile could not be loaded.</p>
          <Button
            variant="outline"
            onClick={() =>
              profile.refetch()}
            disabled={profile.isFetching}
          >
            Retry
          </Button>
        </div>
      )}
      <form onSubmit={onSubmit} className="mt-8" aria-label="Profile" aria-busy={profile.isPending}>
        <fieldset
          disabled={unloaded}
          className={`grid min-w-0 gap-4 sm:grid-cols-2 ${unloaded ? "opacity-60" : ""}`}
        >
          {textField("first_name")}
          {textField("last_name")}
          {textField("phone")}
          {textField("date_of_birth", { max: today })}
          <FormField label="Gender">
            {(control) => (
              <select
                {...control}
                name="gender"
                value={form.gender}
                onChange={set("gender")}
                className={controlClass(null, "h-11 px-3")}
              >
                <option value="">Select gender</option>
                {PROFILE_GENDERS.map((g) => <option key={g} value={g}>{GENDER_LABELS[g]}</option>)}
              </select>
            )}
          </FormField>
          {textField("location")}
          <FormField label="Bio" className="sm:col-span-2">
            {(control) => (
              <>
                <textarea
                  {...control}
                  name="bio"
                  rows={4}
                  value={form.bio}
                  onChange={set("bio")}
                  maxLength={PROFILE_LIMITS.bio}
                  placeholder="Tell us about your style"
                  className={controlClass(null, "px-3.5 py-2.5")}
                />
                <p className="mt-1 text-right text-xs text-ink-500">{form.bio.length}/{PROFILE_LIMITS.bio}</p>
              </>
            )}
          </FormField>
          <div className="sm:col-span-2">
            <Button type="submit" disabled={saving} className="w-full sm:w-auto">
              {saving && <Spinner className="size-4" />}
              {saving ? "Saving..." : "Save Changes"}
            </Button>
          </div>
        </fieldset>
      </form>
    </DashboardCard>
  );
}
