/** Moved to client/lib/toast-text.ts (UI formatting); kept until every importer has moved. */
export { type ToastText, toToastText } from "../lib/toast-text.ts";
