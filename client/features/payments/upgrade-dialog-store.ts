/** Opens the Choose Your Plan dialog from anywhere (the root layout mounts it). */
import { createOpenFlag } from "../../lib/open-flag.ts";

const flag = createOpenFlag();

export const openUpgradeDialog = flag.open;
export const closeUpgradeDialog = flag.close;
export const useUpgradeDialogOpen = flag.useOpen;
