/** GET /api/styling-options: the option groups, defaults and what the active model honours. */
import { useQuery } from "@tanstack/react-query";
import { api } from "../../api/client.ts";
import type { Angle, OptionKey, SelectedOptions } from "../../api/types.ts";

export interface OptionEntry {
  id: string;
  label: string;
  hex?: string;
}

export interface StylingCatalog {
  makeup: Record<
    "lookStyles" | "eyeshadow" | "lips" | "baseMakeup" | "cheeks" | "extras",
    OptionEntry[]
  >;
  hair: Record<"styles" | "lengths" | "textures" | "colors", OptionEntry[]>;
  barber: Record<
    | "hairStyles"
    | "hairLengths"
    | "hairTextures"
    | "hairColors"
    | "facialHair"
    | "facialHairColors",
    OptionEntry[]
  >;
  scene: Record<
    | "outfits"
    | "shoes"
    | "poses"
    | "accessories"
    | "activities"
    | "settings"
    | "camera"
    | "lighting",
    OptionEntry[]
  >;
  defaults: SelectedOptions;
  models: {
    active: string;
    angles: Angle[];
    supported: Partial<Record<OptionKey, string[]>>;
  };
}

export function useStylingOptions() {
  return useQuery({
    queryKey: ["styling-options"],
    queryFn: () => api.json<StylingCatalog>("/api/styling-options", { auth: false }),
    staleTime: 10 * 60_000,
  });
}
