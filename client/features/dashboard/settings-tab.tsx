/** Settings: change password, data export, account deletion and the account's facts. */
import { AlertDialog } from "radix-ui";
import { type FormEvent, useState } from "react";
import type { PublicUser } from "../../api/types.ts";
import { useBusyAction } from "../../lib/use-busy-action.ts";
import { Button } from "../../ui/button.tsx";
import { controlClass, FormField } from "../../ui/field.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { changePassword, deleteAccount, exportData, serverDetail } from "./dashboard-api.ts";
import { DashboardSection } from "./dashboard-section.tsx";

/** After deletion the user is signed out this long after the toast. */
export const SIGN_OUT_DELAY_MS = 2000;
const MIN_PASSWORD = 8;

function PasswordField(
  { label, value, onChange, autoComplete }: {
    label: string;
    value: string;
    onChange(v: string): void;
    autoComplete: string;
  },
) {
  const [shown, setShown] = useState(false);
  return (
    <FormField label={label}>
      {(control) => (
        <div className="relative">
          <input
            {...control}
            type={shown ? "text" : "password"}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            autoComplete={autoComplete}
            maxLength={256}
            className={controlClass(null, "h-11 pl-3.5 pr-20")}
          />
          <button
            type="button"
            onClick={() => setShown((s) => !s)}
            // Named "Show password" and tied to its field by aria-controls: a name holding the field's own label
            // ("Show current password") made the label name two elements (the field and its toggle).
            aria-label={`${shown ? "Hide" : "Show"} password`}
            aria-controls={control.id}
            aria-pressed={shown}
            className="absolute inset-y-1 right-1 rounded-lg px-3 text-sm font-semibold text-ink-600 hover:bg-ink-100"
          >
            {shown ? "Hide" : "Show"}
          </button>
        </div>
      )}
    </FormField>
  );
}

function ChangePassword() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const { busy, run } = useBusyAction();
  const filled = current !== "" && next !== "" && confirm !== "";

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    // Mismatch is checked first, then length.
    if (next !== confirm) {
      toast({
        title: "Password Mismatch",
        description: "New passwords do not match.",
        variant: "destructive",
      });
      return;
    }
    if (next.length < MIN_PASSWORD) {
      toast({
        title: "Password Too Short",
        description: "Password must be at least 8 characters long.",
        variant: "destructive",
      });
      return;
    }
    await run(
      async () => {
        await changePassword(current, next);
        setCurrent("");
        setNext("");
        setConfirm("");
        toast({
          title: "Password Changed",
          description: "Your password has been updated. Other devices have been signed out.",
          variant: "success",
        });
      },
      (err) => ({
        title: "Password Change Failed",
        description: serverDetail(err) ?? "Failed to change password",
      }),
    );
  }

  return (
    <DashboardSection
      headingId="pw-heading"
      title="Change Password"
      description="Other devices are signed out when you change it."
    >
      <form onSubmit={onSubmit} className="mt-5 grid max-w-md gap-4">
        <PasswordField
          label="Current Password"
          value={current}
          onChange={setCurrent}
          autoComplete="current-password"
        />
        <PasswordField label="New Password" value={next} onChange={setNext} autoComplete="new-password" />
        <PasswordField
          label="Confirm New Password"
          value={confirm}
          onChange={setConfirm}
          autoComplete="new-password"
        />
        <Button type="submit" disabled={!filled || busy} className="justify-self-start">
          {busy && <Spinner className="size-4" />}
          {busy ? "Updating..." : "Update Password"}
        </Button>
      </form>
    </DashboardSection>
  );
}

function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function DataPrivacy() {
  const { busy, run } = useBusyAction();
  const onExport = () =>
    run(async () => {
      const name = await exportData(saveBlob);
      toast({ title: "Data Export Complete", description: `Saved ${name}`, variant: "success" });
    }, (err) => {
      console.warn("Data export failed", err);
      return { title: "Export Failed", description: "Failed to export your data. Please try again." };
    });
  return (
    <DashboardSection
      headingId="privacy-heading"
      title="Data Privacy"
      description="Download everything we store about you: account, profile, subscription, credits, generations and photos."
    >
      <Button variant="outline" className="mt-5" onClick={onExport} disabled={busy}>
        {busy && <Spinner className="size-4" />}
        Export My Data
      </Button>
    </DashboardSection>
  );
}

function DeleteAccount({ onDeleted }: { onDeleted(): void }) {
  const [open, setOpen] = useState(false);
  const { busy, run } = useBusyAction();
  const [done, setDone] = useState(false);

  const onConfirm = () =>
    run(async () => {
      await deleteAccount();
      setOpen(false);
      setDone(true);
      toast({
        title: "Account Deactivated",
        description: "Your account has been deactivated. You will be logged out.",
      });
      setTimeout(onDeleted, SIGN_OUT_DELAY_MS);
    }, (err) => {
      console.warn("Account deletion failed", err);
      return {
        title: "Account Deletion Failed",
        description: "Failed to delete your account. Please try again.",
      };
    });

  return (
    <DashboardSection
      headingId="delete-heading"
      title="Delete Account"
      description="Permanently deletes your profile, photos and generated images. This cannot be undone."
      tone="danger"
    >
      <AlertDialog.Root open={open} onOpenChange={(o) => !busy && setOpen(o)}>
        <AlertDialog.Trigger asChild>
          <Button variant="danger" className="mt-5" disabled={done}>Delete Account</Button>
        </AlertDialog.Trigger>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="overlay-anim fixed inset-0 z-50 bg-ink-900/50 backdrop-blur-sm" />
          <AlertDialog.Content className="dialog-anim fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-3xl bg-white p-6 shadow-2xl sm:p-8">
            <AlertDialog.Title className="text-xl font-bold text-ink-900">
              Are you absolutely sure?
            </AlertDialog.Title>
            <AlertDialog.Description className="mt-2 text-sm text-ink-600">
              This will permanently delete your account, your profile, your photos and every generated image.
              Your subscription is cancelled. This action cannot be undone.
            </AlertDialog.Description>
            <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <AlertDialog.Cancel asChild>
                <Button variant="outline" disabled={busy}>Cancel</Button>
              </AlertDialog.Cancel>
              <Button variant="danger" onClick={onConfirm} disabled={busy}>
                {busy && <Spinner className="size-4" />}
                Yes, Delete My Account
              </Button>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </DashboardSection>
  );
}

function AccountInformation({ user }: { user: PublicUser }) {
  const created = user.created_at ? new Date(user.created_at) : null;
  const createdText = created && !Number.isNaN(created.getTime())
    ? created.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric" })
    : "Unknown";
  const rows: [string, string][] = [
    ["Email", user.email],
    ["Account Created", createdText],
    ["Status", user.is_active ? "Active" : "Inactive"],
    ["Email Status", user.is_verified ? "Verified" : "Pending"],
  ];
  return (
    <DashboardSection headingId="info-heading" title="Account Information">
      <dl className="mt-4 grid gap-3 sm:grid-cols-2">
        {rows.map(([k, v]) => (
          <div key={k} className="rounded-2xl bg-ink-50 px-4 py-3">
            <dt className="text-xs font-semibold uppercase tracking-wide text-ink-500">{k}</dt>
            <dd className="mt-0.5 break-all font-medium text-ink-900">{v}</dd>
          </div>
        ))}
      </dl>
    </DashboardSection>
  );
}

export function SettingsTab({ user, onDeleted }: { user: PublicUser; onDeleted(): void }) {
  return (
    <div className="grid gap-6">
      <ChangePassword />
      <DataPrivacy />
      <AccountInformation user={user} />
      <DeleteAccount onDeleted={onDeleted} />
    </div>
  );
}
