/**
 * The dialogs the landing page does not need until they open (sign-in, buy credits, the payment
 * return dialog), each in its own chunk so the first load stays small. A dialog's chunk is fetched
 * the first time it opens and it then stays mounted, so closing keeps its animation and reset.
 */
import { type ComponentType, lazy, Suspense, useState } from "react";
import { useAuthDialog } from "../features/auth/auth-dialog-store.ts";
import { useBuyCreditsOpen } from "../features/payments/buy-credits-store.ts";
import type { PaymentStatusDialogProps } from "../features/payments/payment-status-dialog.tsx";

const AuthDialogChunk = lazy(() =>
  import("../features/auth/auth-dialog.tsx").then((m) => ({ default: m.AuthDialog }))
);
const BuyCreditsDialogChunk = lazy(() =>
  import("../features/payments/buy-credits-dialog.tsx").then((m) => ({ default: m.BuyCreditsDialog }))
);
const PaymentStatusChunk = lazy(() =>
  import("../features/payments/payment-status-dialog.tsx").then((m) => ({ default: m.PaymentStatusDialog }))
);

/** Mounts `Chunk` once `open` has been true; before that nothing is downloaded. */
function OnceOpened({ open, Chunk }: { open: boolean; Chunk: ComponentType }) {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  if (!opened && !open) return null;
  return (
    <Suspense fallback={null}>
      <Chunk />
    </Suspense>
  );
}

export function LazyAuthDialog() {
  return <OnceOpened open={useAuthDialog().open} Chunk={AuthDialogChunk} />;
}

export function LazyBuyCreditsDialog() {
  return <OnceOpened open={useBuyCreditsOpen()} Chunk={BuyCreditsDialogChunk} />;
}

/** The payment return dialog (only the /…-success routes need it). */
export function LazyPaymentStatus(props: PaymentStatusDialogProps) {
  return (
    <Suspense fallback={null}>
      <PaymentStatusChunk {...props} />
    </Suspense>
  );
}
