/**
 * The payment status dialog on /credit-purchase-success and
 * /subscription-success: checks the session every 2 s, at most 5 times, and
 * shows checking, success, failed or expired.
 */
import { useEffect, useState } from "react";
import { refreshCredits } from "../../api/session.ts";
import { Button } from "../../ui/button.tsx";
import { Modal } from "../../ui/dialog.tsx";
import { CheckIcon, XIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { fetchPaymentStatus } from "./payments-api.ts";

export const MAX_STATUS_ATTEMPTS = 5;
export const STATUS_POLL_MS = 2000;

type State =
  | { kind: "checking"; attempt: number }
  | { kind: "success"; credits: string }
  | { kind: "failed" }
  | { kind: "expired" };

export interface PaymentStatusDialogProps {
  sessionId: string | null;
  /** Success: Continue (to /). */
  onContinue(): void;
  /** Failed or expired: start again (the route reopens the purchase). */
  onTryAgain(): void;
  onBackToHome(): void;
}

const FAILED_TOAST = {
  title: "Error Checking Payment",
  description: "Unable to verify payment status. Please contact support if you were charged.",
  variant: "destructive" as const,
};

export function PaymentStatusDialog(
  { sessionId, onContinue, onTryAgain, onBackToHome }: PaymentStatusDialogProps,
) {
  const [state, setState] = useState<State>(
    sessionId ? { kind: "checking", attempt: 1 } : { kind: "failed" },
  );
  const [open, setOpen] = useState(true);

  useEffect(() => {
    if (!sessionId) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    async function check(attempt: number) {
      if (cancelled) return;
      setState({ kind: "checking", attempt });
      try {
        const res = await fetchPaymentStatus(sessionId!);
        if (cancelled) return;
        if (res.payment_status === "paid") {
          const credits = res.metadata?.credits || "some";
          setState({ kind: "success", credits });
          toast({
            title: "Payment Successful!",
            description: `${credits} credits have been added to your account.`,
            variant: "success",
          });
          await refreshCredits();
          return;
        }
        if (res.status === "expired") {
          setState({ kind: "expired" });
          toast({ title: "Payment Session Expired", variant: "destructive" });
          return;
        }
        if (attempt >= MAX_STATUS_ATTEMPTS) {
          setState({ kind: "failed" });
          toast({
            title: "Payment Status Check Timeout",
            description: "Please check your email for payment confirmation or contact support.",
            variant: "destructive",
          });
          return;
        }
        timer = setTimeout(() => check(attempt + 1), STATUS_POLL_MS);
      } catch {
        if (cancelled) return;
        setState({ kind: "failed" });
        toast(FAILED_TOAST);
      }
    }
    void check(1);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [sessionId]);

  const close = (then: () => void) => {
    setOpen(false);
    then();
  };

  const title = state.kind === "checking"
    ? "Checking Payment Status"
    : state.kind === "success"
    ? "Payment Successful!"
    : state.kind === "expired"
    ? "Payment Session Expired"
    : "Payment Failed";

  return (
    <Modal
      open={open}
      onOpenChange={(o) => !o && close(state.kind === "success" ? onContinue : onBackToHome)}
      title={title}
      width="max-w-md"
    >
      <div className="mt-5 text-center" data-testid="payment-status" data-state={state.kind}>
        {state.kind === "checking" && (
          <div role="status" className="grid justify-items-center gap-3 py-4 text-ink-700">
            <Spinner className="size-9 text-brand-600" />
            <p>Please wait while we confirm your payment...</p>
            <p className="text-sm text-ink-500">Attempt {state.attempt} of {MAX_STATUS_ATTEMPTS}</p>
          </div>
        )}
        {state.kind === "success" && (
          <div className="grid justify-items-center gap-3 py-2">
            <span className="grid size-14 place-items-center rounded-full bg-emerald-100 text-emerald-700">
              <CheckIcon className="size-7" />
            </span>
            <p className="text-ink-800">{state.credits} credits have been added to your account.</p>
            <Button className="mt-2 w-full" onClick={() => close(onContinue)}>Continue</Button>
          </div>
        )}
        {(state.kind === "failed" || state.kind === "expired") && (
          <div className="grid justify-items-center gap-3 py-2">
            <span className="grid size-14 place-items-center rounded-full bg-red-100 text-red-700">
              <XIcon className="size-7" />
            </span>
            <p className="text-ink-800">
              {state.kind === "expired"
                ? "This payment session has expired. Nothing was charged."
                : "We could not confirm this payment. If you were charged, please contact support."}
            </p>
            <div className="mt-2 grid w-full gap-2 sm:grid-cols-2">
              <Button onClick={() => close(onTryAgain)}>Try Again</Button>
              <Button variant="outline" onClick={() => close(onBackToHome)}>Back to Home</Button>
            </div>
          </div>
        )}
      </div>
    </Modal>
  );
}
