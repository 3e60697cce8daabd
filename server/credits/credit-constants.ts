/**
 * Credit facts shared by the server and the web client. Pure constants, no
 * imports: the client bundles this file as it is.
 */

/** A balance of exactly this value marks an unlimited admin account (shown as "∞ (Admin)"). */
export const ADMIN_CREDITS = 999999;
/** Credits one generation costs. */
export const GENERATION_COST = 2;
/** Credits a new account starts with unless WELCOME_CREDITS says otherwise. */
export const DEFAULT_WELCOME_CREDITS = 10;
/** Below this balance the studio header offers Buy Credits. */
export const BUY_CREDITS_THRESHOLD = 10;
