/** Placeholder for the buy-credits modal: the entry point exists and opens. */
import { Button } from "../../ui/button.tsx";
import { Modal } from "../../ui/dialog.tsx";
import { CoinIcon } from "../../ui/icons.tsx";
import { closeBuyCredits, useBuyCreditsOpen } from "./buy-credits-store.ts";

export function BuyCreditsDialog() {
  const open = useBuyCreditsOpen();
  return (
    <Modal
      open={open}
      onOpenChange={(o) => !o && closeBuyCredits()}
      title="Buy Credits"
      description="Each generation costs 2 credits."
    >
      <div className="mt-6 flex items-start gap-4 rounded-2xl bg-brand-50 p-5 text-ink-800">
        <span className="grid size-11 shrink-0 place-items-center rounded-full bg-white text-brand-600 shadow-sm">
          <CoinIcon />
        </span>
        <div>
          <p className="font-semibold">Credit purchase is coming soon.</p>
          <p className="mt-1 text-sm text-ink-600">
            Credit packages and monthly plans will be available here shortly.
          </p>
        </div>
      </div>
      <div className="mt-6 flex justify-end">
        <Button variant="outline" onClick={closeBuyCredits}>Close</Button>
      </div>
    </Modal>
  );
}
