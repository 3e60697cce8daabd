/**
 * The promotion code box of the buy and upgrade dialogs. Blank input is
 * ignored, the code is trimmed, Apply is disabled while blank or validating,
 * and editing the code clears the previous result.
 */
import { useId, useState } from "react";
import { Button } from "../../ui/button.tsx";
import { toast } from "../../ui/toast.tsx";
import {
  discountLabel,
  type PromotionTarget,
  type PromotionValidation,
  validatePromotion,
} from "./payments-api.ts";

export interface PromoCodeBoxProps {
  target: PromotionTarget;
  applied: PromotionValidation | null;
  onResult(result: PromotionValidation | null, code: string): void;
}

export function PromoCodeBox({ target, applied, onResult }: PromoCodeBoxProps) {
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [rejected, setRejected] = useState<string | null>(null);
  const inputId = useId();
  const trimmed = code.trim();

  async function apply() {
    if (!trimmed) return;
    setBusy(true);
    try {
      const result = await validatePromotion(trimmed, target);
      if (result.success) {
        setRejected(null);
        onResult(result, trimmed);
        toast({ title: "Promotion Code Applied!", description: result.message, variant: "success" });
      } else {
        setRejected(result.message);
        onResult(null, "");
        toast({ title: "Invalid Promotion Code", description: result.message, variant: "destructive" });
      }
    } catch {
      onResult(null, "");
      toast({
        title: "Validation Error",
        description: "Failed to validate promotion code",
        variant: "destructive",
      });
    } finally {
      setBusy(false);
    }
  }

  // On phones Apply goes under the field: beside it the placeholder read "Enter promotion co" at 375 px
  // wide and "Enter promoti" at 320.
  return (
    <div className="rounded-2xl border border-ink-100 bg-ink-50/60 p-3 sm:p-4">
      <label htmlFor={inputId} className="text-sm font-semibold text-ink-800">Promotion Code</label>
      <form
        className="mt-2 flex flex-col gap-2 sm:flex-row"
        onSubmit={(e) => {
          e.preventDefault();
          void apply();
        }}
      >
        <input
          id={inputId}
          value={code}
          maxLength={64}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          placeholder="Enter promotion code"
          data-testid="promo-input"
          onChange={(e) => {
            setCode(e.target.value);
            setRejected(null);
            if (applied) onResult(null, "");
          }}
          className="h-11 min-w-0 shrink-0 rounded-full border border-ink-200 bg-white px-3 sm:flex-1 sm:shrink sm:px-4 text-sm uppercase tracking-wide text-ink-900 placeholder:normal-case placeholder:tracking-normal placeholder:text-ink-500 focus:border-brand-400 focus:outline-none focus:ring-2 focus:ring-brand-200"
        />
        {/* Always named Apply (disabled while blank or validating); aria-busy says it is checking. */}
        <Button
          type="submit"
          variant="secondary"
          disabled={!trimmed || busy}
          aria-busy={busy}
          data-testid="promo-apply"
        >
          Apply
        </Button>
      </form>
      <div aria-live="polite" className="min-h-0">
        {applied?.success && (
          <p className="mt-2 text-sm font-medium text-emerald-700" data-testid="promo-applied">
            {trimmed.toUpperCase()}: {discountLabel(applied)}
          </p>
        )}
        {rejected && <p className="mt-2 text-sm font-medium text-red-700">{rejected}</p>}
      </div>
    </div>
  );
}
