/** Wire types shared by the client's features (mirrors the server's schemas). */
export type { AuthResponse, PublicUser, RefreshResponse } from "../../server/auth/auth.schemas.ts";
export { ADMIN_CREDITS, GENERATION_COST } from "../../server/credits/credit-constants.ts";
export type { Angle, OptionKey, SelectedOptions, StudioType } from "../../server/styling/option-keys.ts";

export type { UploadResponse } from "../../server/photos/photos.schemas.ts";

/** The photo the visitor is styling (the uploaded photo, client side). */
export interface CurrentPhoto {
  id: string;
  /** Server URL (/api/uploads/<key>); also used as the preview so it survives reload. */
  url: string;
  name: string;
}
