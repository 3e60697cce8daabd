/**
 * Chooses the image model from config.IMAGE_MODEL. `describeImageModel`
 * gives its name and capabilities without starting it (an API-only process,
 * JOB_WORKERS=0, still answers /api/styling-options).
 */
import type { Config } from "../config.ts";
import type { ImageModel } from "./image-model.ts";
import { LOCAL_CAPABILITIES } from "./local/capabilities.ts";
import { createLocalModel } from "./local/local-model.ts";

export function describeImageModel(
  config: Pick<Config, "imageModel">,
): Pick<ImageModel, "name" | "capabilities"> {
  switch (config.imageModel) {
    case "local":
      return { name: "local", capabilities: LOCAL_CAPABILITIES };
  }
}

export async function createImageModel(
  config: Pick<Config, "imageModel" | "jobWorkers">,
): Promise<ImageModel> {
  switch (config.imageModel) {
    case "local":
      return await createLocalModel({ workers: Math.max(1, config.jobWorkers) });
  }
}
