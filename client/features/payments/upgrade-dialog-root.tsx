/**
 * The app-wide Choose Your Plan dialog (opened with openUpgradeDialog(), e.g.
 * Try Again after a subscription payment). Its code loads the first time it opens.
 */
import { lazy, Suspense, useState } from "react";
import { useUpgradeDialogOpen } from "./upgrade-dialog-store.ts";

const Dialog = lazy(() =>
  import("./upgrade-dialog.tsx").then((m) => ({ default: m.ConnectedUpgradePlanDialog }))
);

export function UpgradeDialogRoot() {
  const open = useUpgradeDialogOpen();
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  if (!opened) return null;
  return (
    <Suspense fallback={null}>
      <Dialog open={open} />
    </Suspense>
  );
}
