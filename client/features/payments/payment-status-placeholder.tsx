/** /credit-purchase-success and /subscription-success: placeholder payment status dialog. */
import { useState } from "react";
import { Button } from "../../ui/button.tsx";
import { Modal } from "../../ui/dialog.tsx";

export function PaymentStatusPlaceholder(
  { onContinue }: { onContinue(): void },
) {
  const [open, setOpen] = useState(true);
  const close = () => {
    setOpen(false);
    onContinue();
  };
  return (
    <Modal
      open={open}
      onOpenChange={(o) => !o && close()}
      title="Payment Status"
      description="Payment confirmation is coming soon."
    >
      <div className="mt-6 flex justify-end">
        <Button onClick={close}>Continue</Button>
      </div>
    </Modal>
  );
}
