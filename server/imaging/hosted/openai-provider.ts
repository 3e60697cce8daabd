/**
 * OpenAI image editing through the official openai SDK: `images.edit`
 * (multipart `POST /images/edits`) with the portrait (and front view,
 * references) as repeated `image[]` files, the prompt, the model and
 * `size: "1024x1536"` (the portrait size closest to 9:16; the hosted model
 * composes it into 1080x1920 without distortion). A safety refusal arrives as
 * HTTP 400 `code: "moderation_blocked"`. The SDK's own retries stay off.
 */
import OpenAI, { APIError, toFile } from "openai";
import {
  fromBase64,
  type ImageProvider,
  isAbort,
  type ProviderCall,
  ProviderError,
  type ProviderImage,
  type ProviderOptions,
  retryAfterFromHeaders,
} from "./provider.ts";

export const DEFAULT_OPENAI_IMAGE_MODEL = "gpt-image-1";
export const OPENAI_SIZE = "1024x1536";

/** `baseUrl` e.g. https://api.openai.com/v1 (the SDK's default). */
export interface OpenAiOptions extends ProviderOptions {
  model?: string;
}

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

function classifyApiError(error: APIError): ProviderError {
  const status = error.status ?? 0;
  const code = (error.code ?? (error.error as { code?: string } | undefined)?.code) ?? undefined;
  const message = error.message;
  if (code === "moderation_blocked" || /safety system/i.test(message)) {
    return new ProviderError("blocked", `OpenAI's safety system declined the request: ${message}`, {
      status,
      reason: code ?? "moderation_blocked",
    });
  }
  if (status === 401 || status === 403) {
    return new ProviderError("auth", `OpenAI refused the API key (${status} ${code ?? ""}): ${message}`, {
      status,
      reason: code,
    });
  }
  if (status === 429 && code === "insufficient_quota") {
    return new ProviderError("config", `OpenAI quota exhausted (429 insufficient_quota): ${message}`, {
      status,
      reason: code,
    });
  }
  if (status === 429) {
    return new ProviderError("rate_limited", `OpenAI rate limit (429 ${code ?? ""}): ${message}`, {
      status,
      reason: code,
      retryAfterMs: retryAfterFromHeaders(error.headers as Headers | undefined),
    });
  }
  if (status === 408 || status === 409 || status >= 500) {
    return new ProviderError("unavailable", `OpenAI unavailable (${status}): ${message}`, {
      status,
      reason: code,
      retryAfterMs: retryAfterFromHeaders(error.headers as Headers | undefined),
    });
  }
  if (status === 0) {
    // No HTTP answer at all (connection refused or reset).
    if (isAbort(error)) return new ProviderError("timeout", `OpenAI did not answer in time: ${message}`);
    return new ProviderError("unavailable", `OpenAI could not be reached: ${message}`);
  }
  return new ProviderError("config", `OpenAI rejected the request (${status} ${code ?? ""}): ${message}`, {
    status,
    reason: code,
  });
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
          // Keeps the face's details closer to the input (gpt-image-1 and later; not the mini model).
          ...(model.includes("mini") || model.startsWith("dall-e")
            ? {}
            : { input_fidelity: "high" as const }),
        }, { signal: call.signal, timeout: call.timeoutMs, maxRetries: 0 });
      } catch (error) {
        if (error instanceof APIError) throw classifyApiError(error);
        if (call.signal.aborted || isAbort(error)) {
          throw new ProviderError("timeout", `OpenAI did not answer in time: ${(error as Error).message}`);
        }
        throw new ProviderError("unavailable", `OpenAI could not be reached: ${(error as Error).message}`);
      }
      const b64 = res.data?.[0]?.b64_json;
      if (!b64) throw new ProviderError("no_image", "OpenAI returned no image", { reason: "NO_IMAGE_DATA" });
      const format = res.output_format ?? "png";
      return { bytes: fromBase64(b64), mime: format === "jpeg" ? "image/jpeg" : `image/${format}` };
    },
  };
}
