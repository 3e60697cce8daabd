/**
 * Chooses the image model from config.IMAGE_MODEL. `describeImageModel`
 * gives its name and capabilities without starting it (an API-only process,
 * JOB_WORKERS=0, still answers /api/styling-options).
 *
 * - `local`: the offline face-aware renderer (default).
 * - `gemini`, `openai`, `fal`: a hosted generative model (server/imaging/hosted).
 * - `hybrid`: the hosted model (Gemini when GEMINI_API_KEY is set, else
 *   OpenAI, else fal.ai), then the local model's exact makeup colours on top.
 */
import type { Config } from "../config.ts";
import type { ImageModel } from "./image-model.ts";
import { LOCAL_CAPABILITIES } from "./local/capabilities.ts";
import { createLocalModel } from "./local/local-model.ts";
import { CallLimits } from "./hosted/call-limits.ts";
import { createFaceCounter } from "./hosted/face-check.ts";
import { HOSTED_CAPABILITIES } from "./hosted/hosted-capabilities.ts";
import { createHostedModel } from "./hosted/hosted-model.ts";
import { createHybridModel } from "./hosted/hybrid-model.ts";
import type { ImageProvider } from "./hosted/provider.ts";

type ModelConfig =
  & Pick<Config, "imageModel" | "localModelWorkers">
  & Partial<Pick<Config, "hosted" | "jobTimeoutMs">>;

export function describeImageModel(
  config: Pick<Config, "imageModel">,
): Pick<ImageModel, "name" | "capabilities"> {
  switch (config.imageModel) {
    case "local":
      return { name: "local", capabilities: LOCAL_CAPABILITIES };
    case "gemini":
    case "openai":
    case "fal":
    case "hybrid":
      return { name: config.imageModel, capabilities: HOSTED_CAPABILITIES };
  }
}

/** Margin left to the job runner's own timeout, so the model's clear failure message wins the race. */
const RUNNER_MARGIN_MS = 2_000;

/**
 * A provider's SDK is loaded only when it is the configured model: imported by every process, the
 * Gemini and OpenAI SDKs cost ~30 MB of resident memory on the local model, which never calls them.
 */
async function hostedProvider(
  config: ModelConfig,
  which: "gemini" | "openai" | "fal",
): Promise<ImageProvider> {
  const hosted = config.hosted;
  if (which === "gemini") {
    if (!hosted?.geminiApiKey) throw new Error("GEMINI_API_KEY is required for the Gemini image model");
    const { createGeminiProvider } = await import("./hosted/gemini-provider.ts");
    return createGeminiProvider({
      apiKey: hosted.geminiApiKey,
      model: hosted.geminiModel,
      baseUrl: hosted.geminiBaseUrl,
    });
  }
  if (which === "fal") {
    if (!hosted?.falKey) throw new Error("FAL_KEY is required for the fal.ai image model");
    const { createFalProvider } = await import("./hosted/fal-provider.ts");
    return createFalProvider({ apiKey: hosted.falKey, baseUrl: hosted.falBaseUrl });
  }
  if (!hosted?.openaiApiKey) throw new Error("OPENAI_API_KEY is required for the OpenAI image model");
  const { createOpenAiProvider } = await import("./hosted/openai-provider.ts");
  return createOpenAiProvider({
    apiKey: hosted.openaiApiKey,
    model: hosted.openaiImageModel,
    baseUrl: hosted.openaiBaseUrl,
  });
}

export async function createImageModel(config: ModelConfig): Promise<ImageModel> {
  const kind = config.imageModel;
  if (kind === "local") return await createLocalModel({ workers: config.localModelWorkers });
  const which = kind !== "hybrid"
    ? kind
    : config.hosted?.geminiApiKey
    ? "gemini"
    : config.hosted?.openaiApiKey
    ? "openai"
    : "fal";
  const timeoutMs = config.jobTimeoutMs ?? 90_000;
  // First: a missing key fails before any worker starts.
  const provider = await hostedProvider(config, which);
  // Hybrid mode checks the hosted output with the local model's face models (loaded once).
  const local = kind === "hybrid" ? await createLocalModel({ workers: config.localModelWorkers }) : undefined;
  const faces = local ? local.faceCounter() : createFaceCounter();
  const hosted = createHostedModel({
    provider,
    faces,
    limits: new CallLimits(config.hosted?.maxConcurrent ?? 4, config.hosted?.callsPerMinute ?? 20),
    budgetMs: Math.max(3_000, timeoutMs - RUNNER_MARGIN_MS),
  });
  if (!local) return hosted;
  return createHybridModel({ hosted, local, faces });
}
