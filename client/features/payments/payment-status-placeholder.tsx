/** The former placeholder's name, kept for callers that still import it: the real payment return. */
export { PaymentReturn as PaymentStatusPlaceholder } from "./payment-return.tsx";
