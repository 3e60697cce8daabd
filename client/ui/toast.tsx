/**
 * Toasts: one at a time (a new toast replaces the current one), 5000 ms,
 * swipe right 50 px to dismiss, F8 focuses the viewport (Radix Toast).
 *
 * Where they appear: never over a primary action. Phones keep their actions at the bottom (the
 * studio's Generate bar, the result's Download), so toasts drop in under the header, except while a
 * dialog is open (its title and close button are up there: then at the bottom, see styles.css); on
 * desktop the actions live in the right-hand column, so toasts sit bottom-left.
 *
 * Escape belongs to the dialog: a toast shown over an open dialog is a newer Radix layer and would
 * take the first Escape; instead Escape closes the dialog and the toast leaves by its own close
 * button or its timer.
 */
import { Toast } from "radix-ui";
import { useEffect, useSyncExternalStore } from "react";

export interface ToastInput {
  title: string;
  description?: string;
  variant?: "default" | "success" | "destructive";
}

interface ToastItem extends ToastInput {
  key: number;
  open: boolean;
}

let current: ToastItem | null = null;
let seq = 0;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function toast(input: ToastInput) {
  current = { ...input, key: ++seq, open: true };
  emit();
}

function dismiss(key: number) {
  if (current?.key === key) {
    current = { ...current, open: false };
    emit();
  }
}

/**
 * True when `target` is inside the toast viewport. Dialogs use it so that
 * touching a toast (or its close button) is not an outside click that closes them.
 */
export function isInsideToast(target: EventTarget | null): boolean {
  const el = target as { closest?: (sel: string) => unknown } | null;
  return typeof el?.closest === "function" && el.closest("[data-toast-viewport]") != null;
}

/** Dialog handler: ignore outside interactions that land on a toast. */
export function keepOpenOnToast(e: { target: EventTarget | null; preventDefault(): void }) {
  if (isInsideToast(e.target)) e.preventDefault();
}

/**
 * While `active`, lifts toasts on phones by `length` (a CSS length) so they do not cover the bottom
 * buttons of a full-screen overlay (toasts shown over a dialog on a phone sit at the bottom).
 */
export function useToastInset(active: boolean, length: string) {
  useEffect(() => {
    if (!active) return;
    const root = document.documentElement.style;
    root.setProperty("--toast-inset-bottom", length);
    return () => {
      root.removeProperty("--toast-inset-bottom");
    };
  }, [active, length]);
}

/** The topmost open modal dialog, if any (Radix marks its content role="dialog", data-state="open"). */
function openDialog(): HTMLElement | null {
  const dialogs = document.querySelectorAll<HTMLElement>('[role="dialog"][data-state="open"]');
  return dialogs.length ? dialogs[dialogs.length - 1] : null;
}

/**
 * Escape pressed while a toast is the top layer: when a dialog is open underneath, keep the toast
 * and close the dialog through its own close control (every dialog has one: a button labelled
 * "Close ..." or marked data-dialog-close).
 */
function escapeToDialog(event: KeyboardEvent) {
  const dialog = openDialog();
  if (!dialog || isInsideToast(event.target)) return;
  const close = dialog.querySelector<HTMLElement>('[data-dialog-close], button[aria-label^="Close"]');
  if (!close) return;
  event.preventDefault();
  close.click();
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

const variantClass = {
  default: "border-ink-200 bg-white text-ink-900",
  success: "border-emerald-200 bg-white text-ink-900",
  destructive: "border-red-300 bg-red-50 text-red-950",
} as const;

const dotClass = {
  default: "bg-brand-500",
  success: "bg-emerald-500",
  destructive: "bg-red-600",
} as const;

export function Toaster() {
  const item = useSyncExternalStore(subscribe, () => current, () => null);
  const variant = item?.variant ?? "default";
  return (
    <Toast.Provider duration={5000} swipeDirection="right" swipeThreshold={50}>
      {item && (
        <Toast.Root
          key={item.key}
          open={item.open}
          onOpenChange={(open) => !open && dismiss(item.key)}
          onEscapeKeyDown={escapeToDialog}
          type={variant === "destructive" ? "foreground" : "background"}
          className={`toast pointer-events-auto relative flex w-full gap-3 rounded-2xl border p-4 pr-10 shadow-xl shadow-ink-900/10 ${
            variantClass[variant]
          }`}
          data-variant={variant}
          // A toast shown before a modal opened (Generation Complete! just before the 360° overlay) is a
          // lower Radix layer, which Radix makes click-through (pointer-events: none) while the modal is
          // open: it could then be neither dismissed nor swiped. Toasts stay interactive; the dialogs
          // ignore touches on them (keepOpenOnToast).
          style={{ pointerEvents: "auto" }}
        >
          <span
            aria-hidden="true"
            className={`mt-1.5 size-2.5 shrink-0 rounded-full ${dotClass[variant]}`}
          />
          <div className="min-w-0">
            <Toast.Title className="text-sm font-semibold">
              {item.title}
            </Toast.Title>
            {item.description && (
              <Toast.Description className="mt-0.5 whitespace-pre-line text-sm opacity-80">
                {item.description}
              </Toast.Description>
            )}
          </div>
          <Toast.Close
            aria-label="Dismiss notification"
            className="absolute right-2 top-2 grid size-7 place-items-center rounded-full text-ink-500 hover:bg-ink-100 hover:text-ink-900"
          >
            <svg viewBox="0 0 20 20" className="size-4" aria-hidden="true">
              <path
                d="M5 5l10 10M15 5L5 15"
                stroke="currentColor"
                strokeWidth="2"
                strokeLinecap="round"
              />
            </svg>
          </Toast.Close>
        </Toast.Root>
      )}
      {
        /* F8 focuses the viewport: show where focus went. Phones: under the 4rem header, centred;
          desktop (lg): bottom-left, away from the right-hand column's Generate, Download and 360° View. */
      }
      <Toast.Viewport
        data-toast-viewport=""
        className="fixed inset-x-0 top-16 z-[100] m-0 mx-auto flex w-full max-w-[26rem] list-none flex-col gap-2 rounded-2xl px-3 py-2 focus-visible:outline-2 focus-visible:-outline-offset-4 focus-visible:outline-brand-500 lg:inset-x-auto lg:top-auto lg:bottom-0 lg:left-0 lg:mx-0 lg:p-6"
      />
    </Toast.Provider>
  );
}
