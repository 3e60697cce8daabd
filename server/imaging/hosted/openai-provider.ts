/**
 * OpenAI image editing through the official openai SDK: `images.edit`
 * (multipart `POST /images/edits`) with the portrait (and front view,
 * references) as repeated `image[]` files, the prompt, the model and
 * `size: "1024x1536"` (the portrait size closest to 9:16; the hosted model
 * composes it into 1080x1920 without distortion). A safety refusal arrives as
 * HTTP 400 `code: "moderation_blocked"`. The SDK's own retries stay off.
 */
import OpenAI, { APIError, toFile } from "openai";
import type { ImageProvider, ProviderCall, ProviderImage, ProviderOptions } from "./provider.ts";
import { fromBase64, ProviderError, retryAfterFromHeaders } from "./provider.ts";
import { httpProviderError, type StatusRule, transportError } from "./provider-errors.ts";

/**
 * GPT Image 1.5: takes the portrait at `input_fidelity: "high"` and answers 1024x1536. (GPT Image 1, the default
 * before, was shut down on 2026-10-23, as the openai SDK's model list says.) OPENAI_IMAGE_MODEL picks another.
 */
export const DEFAULT_OPENAI_IMAGE_MODEL = "gpt-image-1.5";
export const OPENAI_SIZE = "1024x1536";
/** Models that take `input_fidelity: "high"`: gpt-image-1 and gpt-image-1.5, with or without a dated suffix. */
const FIDELITY_MODELS = /^gpt-image-1(\.5)?(-\d{4}-\d{2}-\d{2})?$/;

/** `baseUrl` e.g. https://api.openai.com/v1 (the SDK's default). */
export interface OpenAiOptions extends ProviderOptions {
  model?: string;
}

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

/**
 * OpenAI's own cases: a safety refusal arrives as a 400, an exhausted quota as a 429 that waiting
 * does not cure, and a 409 (a conflict on their side) is worth retrying.
 */
const OPENAI_RULES: StatusRule[] = [
  { when: (f) => f.reason === "moderation_blocked", kind: "blocked" },
  { when: (f) => f.status === 429 && f.reason === "insufficient_quota", kind: "config" },
  { when: (f) => f.status === 409, kind: "unavailable" },
];

function classifyApiError(error: APIError): ProviderError {
  // No HTTP answer at all (connection refused or reset, or the SDK's own timeout).
  if (!error.status) return transportError("OpenAI", error);
  const code = error.code ?? (error.error as { code?: string } | undefined)?.code ?? undefined;
  // A safety refusal: `moderation_blocked`, or, from older models, `content_policy_violation` or a message
  // naming the safety system.
  const refused = code === "content_policy_violation" || /safety system/i.test(error.message);
  return httpProviderError("OpenAI", {
    status: error.status,
    message: error.message,
    reason: refused ? "moderation_blocked" : code,
    retryAfterMs: retryAfterFromHeaders(error.headers as Headers | undefined),
  }, OPENAI_RULES);
}

export function createOpenAiProvider(opts: OpenAiOptions): ImageProvider {
  const model = opts.model ?? DEFAULT_OPENAI_IMAGE_MODEL;
  const client = new OpenAI({
    apiKey: opts.apiKey,
    ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}),
    maxRetries: 0,
  });
  return {
    name: "openai",
    model,
    maxInputImages: 16,
    async edit(call: ProviderCall): Promise<ProviderImage> {
      const files = await Promise.all(
        call.images.map((img, i) =>
          toFile(img.bytes, `${i === 0 ? "portrait" : `image-${i + 1}`}.${EXTENSIONS[img.mime] ?? "png"}`, {
            type: img.mime,
          })
        ),
      );
      let res: OpenAI.Images.ImagesResponse;
      try {
        res = await client.images.edit({
          model,
          image: files,
          prompt: call.prompt,
          size: OPENAI_SIZE,
          n: 1,
          // Keeps the face's details closer to the input. Only GPT Image 1 and 1.5 take "high" (the mini model
          // takes only "low"); for GPT Image 2 and later the API documents leaving it out.
          ...(FIDELITY_MODELS.test(model) ? { input_fidelity: "high" as const } : {}),
        }, { signal: call.signal, timeout: call.timeoutMs, maxRetries: 0 });
      } catch (error) {
        throw error instanceof APIError
          ? classifyApiError(error)
          : transportError("OpenAI", error, call.signal);
      }
      const b64 = res.data?.[0]?.b64_json;
      if (!b64) throw new ProviderError("no_image", "OpenAI returned no image", { reason: "NO_IMAGE_DATA" });
      const format = res.output_format ?? "png";
      return { bytes: fromBase64(b64), mime: format === "jpeg" ? "image/jpeg" : `image/${format}` };
    },
  };
}
