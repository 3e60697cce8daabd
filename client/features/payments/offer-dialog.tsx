/**
 * The frame both purchase dialogs (Buy Credits, Choose Your Plan) are built in:
 * the modal, a spinner while the offers load, what to say when they could not
 * be loaded, the offers themselves, then the promotion code box and a closing
 * note. Closing the dialog forgets the promotion and any pending checkout.
 */
import type { ReactNode } from "react";
import { Modal } from "../../ui/dialog.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { OFFER_DIALOGS, type OfferKind } from "./offer-texts.ts";
import { PromoCodeBox } from "./promo-code-box.tsx";
import type { Checkout } from "./use-checkout.ts";

export interface OfferDialogProps {
  kind: OfferKind;
  open: boolean;
  onOpenChange(open: boolean): void;
  /** The offers query. */
  offers: { isPending: boolean; isError: boolean };
  checkout: Pick<Checkout<string>, "promo" | "onPromoResult" | "reset">;
  /** Shown when the offers could not be loaded. */
  failed: ReactNode;
  /** The closing note under the promotion code box. */
  footer: ReactNode;
  /** The offers, once loaded. */
  children: ReactNode;
}

export function OfferDialog(
  { kind, open, onOpenChange, offers, checkout, failed, footer, children }: OfferDialogProps,
) {
  const { title, description, width, loadingLabel, promoTarget, compact } = OFFER_DIALOGS[kind];
  return (
    <Modal
      open={open}
      onOpenChange={(o) => {
        if (!o) checkout.reset();
        onOpenChange(o);
      }}
      title={title}
      description={description}
      width={width}
    >
      <div className="mt-6">
        {offers.isPending && (
          <div
            className={`grid place-items-center ${compact ? "py-12" : "py-16"} text-ink-500`}
            role="status"
          >
            <Spinner className="size-7" />
            <span className="sr-only">{loadingLabel}</span>
          </div>
        )}
        {offers.isError && failed}
        {children}
        <div className={compact ? "mt-5" : "mt-6"}>
          <PromoCodeBox target={promoTarget} applied={checkout.promo} onResult={checkout.onPromoResult} />
        </div>
        {footer}
      </div>
    </Modal>
  );
}
