/** GET /api/styling-options: the option groups, defaults and what the active model honours. */
import { useQuery } from "@tanstack/react-query";
import { ok, publicStylingApi } from "../../api/typed.ts";
import type { PublicOption, stylingOptions } from "../../../server/styling/styling.service.ts";

/** One option as the server sends it: `{ id, label, hex?, description?, includes?, swatch? }`. */
export type OptionEntry = PublicOption;

/**
 * The response body, typed from the function that builds it (a type-only
 * import: nothing of the server is bundled). The server has no zod schema for
 * this response yet; when it gets one in server/styling/, import its type here.
 */
export type StylingCatalog = ReturnType<typeof stylingOptions>;

export function useStylingOptions() {
  return useQuery({
    queryKey: ["styling-options"],
    queryFn: (): Promise<StylingCatalog> => ok(publicStylingApi["styling-options"].$get()),
    staleTime: 10 * 60_000,
  });
}
