/** GET /api/styling-options: the option groups, defaults and what the active model honours. */
import { useQuery } from "@tanstack/react-query";
import { ok, publicStylingApi } from "../../api/typed.ts";
import type {
  OptionPresentation,
  PublicOption,
  stylingOptions,
} from "../../../server/styling/styling.service.ts";

/**
 * One option as the studio uses it: its public shape as the server sends it (`{ id, label, hex?,
 * description? }`) with what the studio displays beside it (`includes?`, `swatch?`), which the server sends
 * apart under `presentation` (see withPresentation).
 */
export type OptionEntry = PublicOption & OptionPresentation;

/**
 * The response body, typed from the function that builds it (a type-only
 * import: nothing of the server is bundled). The server has no zod schema for
 * this response yet; when it gets one in server/styling/, import its type here.
 */
type Served = ReturnType<typeof stylingOptions>;
type Studio = "makeup" | "hair" | "barber" | "scene";

/** The catalogue as the studio reads it: each option with its presentation (see OptionEntry). */
export type StylingCatalog =
  & Omit<Served, Studio | "presentation">
  & { [S in Studio]: { [G in keyof Served[S]]: OptionEntry[] } };

/** Each option of the served catalogue joined with its presentation. */
export function withPresentation(served: Served): StylingCatalog {
  const { presentation, ...rest } = served;
  const out = { ...rest } as Record<string, unknown>;
  for (const studio of ["makeup", "hair", "barber", "scene"] as const) {
    const groups = served[studio] as Record<string, PublicOption[]>;
    out[studio] = Object.fromEntries(
      Object.entries(groups).map(([group, list]) => [
        group,
        list.map((entry) => ({ ...entry, ...presentation[studio]?.[group]?.[entry.id] })),
      ]),
    );
  }
  return out as StylingCatalog;
}

export function useStylingOptions() {
  return useQuery({
    queryKey: ["styling-options"],
    meta: { shared: true },
    queryFn: async (): Promise<StylingCatalog> =>
      withPresentation(await ok(publicStylingApi["styling-options"].$get())),
    staleTime: 10 * 60_000,
  });
}
