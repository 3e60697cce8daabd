/** Sign-in / sign-up dialog: login and register modes, field checks, the success and failure toasts. */
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Button } from "../../ui/button.tsx";
import { Modal } from "../../ui/dialog.tsx";
import { Field, type FieldProps } from "../../ui/field.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { errorDetail, login, register } from "./auth-api.ts";
import {
  closeAuthDialog,
  rememberReturningVisitor,
  resetAuthDialog,
  setAuthMode,
  takeOnSuccess,
  useAuthDialog,
} from "./auth-dialog-store.ts";
import {
  clearFieldError,
  type FieldErrors,
  hasErrors,
  type RegisterForm,
  validateLogin,
  validateRegister,
} from "./validation.ts";

const EMPTY: RegisterForm = {
  full_name: "",
  email: "",
  password: "",
  confirmPassword: "",
};

export function AuthDialog() {
  const { open, mode, reason } = useAuthDialog();
  const [form, setForm] = useState<RegisterForm>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors<RegisterForm>>({});
  const [busy, setBusy] = useState(false);
  const resetTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // On close the dialog resets to login after 200 ms.
  useEffect(() => {
    if (open) {
      clearTimeout(resetTimer.current);
      return;
    }
    resetTimer.current = setTimeout(() => {
      resetAuthDialog();
      setForm(EMPTY);
      setErrors({});
    }, 200);
    return () => clearTimeout(resetTimer.current);
  }, [open]);

  const isLogin = mode === "login";

  const update = (field: keyof RegisterForm) => (value: string) => {
    setForm((f) => ({ ...f, [field]: value }));
    setErrors((e) => clearFieldError(e, field));
  };

  // Each input's id is auth-<field>: a failed submit focuses the first field in error by it.
  const field = (name: keyof RegisterForm, props: FieldProps) => (
    <Field
      id={`auth-${name}`}
      value={form[name]}
      error={errors[name]}
      onChange={(e) => update(name)(e.target.value)}
      {...props}
    />
  );

  const switchMode = (next: "login" | "register") => {
    setErrors({});
    setAuthMode(next);
  };

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const found = isLogin
      ? validateLogin({ email: form.email, password: form.password })
      : validateRegister(form);
    setErrors(found as FieldErrors<RegisterForm>);
    if (hasErrors(found as Record<string, string>)) {
      // The first field in error as the form shows them (the schema's own order puts email first).
      const order = ["full_name", "email", "password", "confirmPassword"];
      const first = order.find((f) => (found as Record<string, string | undefined>)[f]);
      document.getElementById(`auth-${first}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      const user = isLogin
        ? await login(form.email, form.password)
        : await register(form.full_name, form.email, form.password);
      if (isLogin) {
        toast({
          title: "Login Successful",
          description: `Welcome back, ${user.full_name || user.email}!`,
          variant: "success",
        });
      } else {
        toast({
          title: "Registration Successful",
          description: "Welcome to StyleTwin!",
          variant: "success",
        });
      }
      rememberReturningVisitor();
      const next = takeOnSuccess();
      closeAuthDialog();
      next?.(user);
    } catch (err) {
      const detail = errorDetail(err);
      toast(
        isLogin
          ? {
            title: "Login Failed",
            description: detail ?? "Login failed",
            variant: "destructive",
          }
          : {
            title: "Registration Failed",
            description: detail ?? "Registration failed",
            variant: "destructive",
          },
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal
      open={open}
      onOpenChange={(o) => !o && closeAuthDialog()}
      title={isLogin ? "Welcome back" : "Create your account"}
      description={isLogin
        ? "Sign in to style your avatar and keep your creations."
        : "Sign up to generate styled avatars and save your looks."}
    >
      {reason && (
        <p
          className="mt-4 rounded-2xl bg-brand-50 px-4 py-3 text-sm text-brand-900 ring-1 ring-brand-100"
          data-testid="auth-reason"
        >
          {reason}
        </p>
      )}
      <form
        noValidate
        onSubmit={onSubmit}
        className="mt-6 space-y-4"
        aria-label={isLogin ? "Sign in" : "Sign up"}
      >
        {!isLogin &&
          field("full_name", { label: "Full Name", autoComplete: "name", placeholder: "Jane Doe" })}
        {field("email", {
          label: "Email",
          type: "email",
          autoComplete: "email",
          inputMode: "email",
          placeholder: "you@example.com",
        })}
        {field("password", {
          label: "Password",
          type: "password",
          autoComplete: isLogin ? "current-password" : "new-password",
          placeholder: isLogin ? "Your password" : "At least 8 characters",
        })}
        {!isLogin && field("confirmPassword", {
          label: "Confirm Password",
          type: "password",
          autoComplete: "new-password",
          placeholder: "Repeat your password",
        })}
        <Button type="submit" size="lg" className="w-full" disabled={busy}>
          {busy && <Spinner className="size-4" />}
          {isLogin ? "Sign In" : "Create Account"}
        </Button>
      </form>
      <p className="mt-5 text-center text-sm text-ink-600">
        {isLogin ? "Don't have an account? " : "Already have an account? "}
        <button
          type="button"
          className="font-semibold text-brand-600 underline-offset-4 hover:underline"
          onClick={() => switchMode(isLogin ? "register" : "login")}
        >
          {isLogin ? "Sign up" : "Sign in"}
        </button>
      </p>
    </Modal>
  );
}
