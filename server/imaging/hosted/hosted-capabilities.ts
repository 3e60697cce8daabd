/**
 * What a hosted generative model honours: every catalogue option of every
 * studio, additional instructions, product references and all four angles of
 * a 360° set. Nothing is unavailable.
 */
import { ANGLES } from "../../styling/option-keys.ts";
import { EVERY_OPTION_ID } from "../catalog-ids.ts";
import type { ModelCapabilities } from "../image-model.ts";

export const HOSTED_CAPABILITIES: ModelCapabilities = {
  angles: [...ANGLES],
  supported: { ...EVERY_OPTION_ID },
  unavailable: {},
};
