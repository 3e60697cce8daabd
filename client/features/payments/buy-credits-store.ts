/** Opens the Buy Credits dialog from anywhere (the root layout mounts it). */
import { createOpenFlag } from "../../lib/open-flag.ts";

const flag = createOpenFlag();

export const openBuyCredits = flag.open;
export const closeBuyCredits = flag.close;
export const useBuyCreditsOpen = flag.useOpen;
