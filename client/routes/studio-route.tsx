/** /studio: composes the studio with the session, the sign-in dialog and the buy-credits entry. */
import { useNavigate } from "@tanstack/react-router";
import { useCallback, useState } from "react";
import { useSession } from "../api/session.ts";
import type { CurrentPhoto, PublicUser } from "../api/types.ts";
import { openAuthDialog, requireSignIn } from "../features/auth/auth-dialog-store.ts";
import { openBuyCredits } from "../features/payments/buy-credits-store.ts";
import StudioPage from "../features/studio/studio-page.tsx";
import { loadPhoto, savePhoto } from "../lib/current-photo.ts";

export default function StudioRoute() {
  const session = useSession();
  const navigate = useNavigate();
  const [photo, setPhoto] = useState<CurrentPhoto | null>(loadPhoto);

  const onPhotoChange = useCallback((next: CurrentPhoto | null) => {
    setPhoto(next);
    savePhoto(next);
    if (next) {
      navigate({ to: "/studio", search: { photo: next.id }, replace: true });
    }
  }, [navigate]);

  const onRequireSignIn = useCallback(
    // With a reason (Generate by a signed-out visitor): say why, sign-up first for new visitors.
    // Without (the session ended): the dialog's own state, login after its 200 ms reset.
    (then: (user: PublicUser) => void, reason?: string) =>
      reason ? requireSignIn(reason, then) : openAuthDialog(undefined, then),
    [],
  );

  return (
    <StudioPage
      photo={photo}
      onPhotoChange={onPhotoChange}
      user={session.user}
      sessionLoading={session.loading}
      onRequireSignIn={onRequireSignIn}
      onBuyCredits={openBuyCredits}
    />
  );
}
