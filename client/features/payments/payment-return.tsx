/**
 * What /credit-purchase-success and /subscription-success show over the home
 * page: the payment status dialog for the session in `?session_id=`. Try
 * Again reopens the purchase it came from (packs or plans).
 */
import { openBuyCredits } from "./buy-credits-store.ts";
import { PaymentStatusDialog } from "./payment-status-dialog.tsx";
import { openUpgradeDialog } from "./upgrade-dialog-store.ts";

export function PaymentReturn({ onContinue }: { onContinue(): void }) {
  const sessionId = new URLSearchParams(globalThis.location.search).get("session_id");
  const subscription = globalThis.location.pathname.startsWith("/subscription");
  return (
    <PaymentStatusDialog
      sessionId={sessionId}
      onContinue={onContinue}
      onBackToHome={onContinue}
      onTryAgain={() => {
        onContinue();
        if (subscription) openUpgradeDialog();
        else openBuyCredits();
      }}
    />
  );
}
