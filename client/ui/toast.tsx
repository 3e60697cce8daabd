/**
 * Toasts: one at a time (a new toast replaces the current one), 5000 ms,
 * swipe right 50 px to dismiss, F8 focuses the viewport (Radix Toast).
 */
import { Toast } from "radix-ui";
import { useSyncExternalStore } from "react";

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
          type={variant === "destructive" ? "foreground" : "background"}
          className={`toast pointer-events-auto relative flex w-full gap-3 rounded-2xl border p-4 pr-10 shadow-xl shadow-ink-900/10 ${
            variantClass[variant]
          }`}
          data-variant={variant}
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
      <Toast.Viewport className="fixed bottom-0 right-0 z-[100] m-0 flex w-full max-w-[26rem] list-none flex-col gap-2 p-4 outline-none sm:p-6" />
    </Toast.Provider>
  );
}
