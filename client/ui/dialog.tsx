/** Styled Radix Dialog shell: overlay, centred panel, title, close button. */
import { Dialog } from "radix-ui";
import type { ReactNode } from "react";
import { XIcon } from "./icons.tsx";
import { keepOpenOnToast } from "./toast.tsx";

export interface ModalProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  /** Tailwind max-width class. */
  width?: string;
  closeLabel?: string;
}

export function Modal(
  {
    open,
    onOpenChange,
    title,
    description,
    children,
    width = "max-w-md",
    closeLabel = "Close",
  }: ModalProps,
) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay-anim fixed inset-0 z-50 bg-ink-900/50 backdrop-blur-sm" />
        <Dialog.Content
          className={`dialog-anim fixed left-1/2 top-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] ${width} -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-3xl bg-white p-6 shadow-2xl shadow-ink-900/20 outline-none sm:p-8`}
          {...(description ? {} : { "aria-describedby": undefined })}
          // Touching a toast (e.g. "Login Failed" over the sign-in dialog) is not an outside click.
          onInteractOutside={keepOpenOnToast}
        >
          <Dialog.Title className="pr-8 text-xl font-bold tracking-tight text-ink-900 sm:text-2xl">
            {title}
          </Dialog.Title>
          {description && (
            <Dialog.Description className="mt-1.5 text-sm text-ink-500">
              {description}
            </Dialog.Description>
          )}
          {children}
          <Dialog.Close
            data-dialog-close=""
            aria-label={closeLabel}
            className="absolute right-4 top-4 grid size-9 place-items-center rounded-full text-ink-500 hover:bg-ink-100 hover:text-ink-900"
          >
            <XIcon className="size-5" />
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
