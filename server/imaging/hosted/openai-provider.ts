/**
 * OpenAI image editing through the official openai SDK: `images.edit`
 * (multipart `POST /images/edits`) with the portrait alone as the `image`
 * file, or with the front view and references as repeated `image[]` files, the prompt, the model and
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

/**
 * `baseUrl` e.g. https://api.openai.com/v1 (the SDK's default); an origin alone (https://proxy.example, as the
 * other providers' base URLs are given) gets the API's `/v1`.
 */
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
  const body = error.error as { code?: string; type?: string } | undefined;
  // An exhausted quota names itself in `type` (`insufficient_quota`), its `code` sometimes null.
  const code = error.code ?? body?.code ??
    ((error.type ?? body?.type) === "insufficient_quota" ? "insufficient_quota" : undefined);
  // A safety refusal: `moderation_blocked`, or, from older models, `content_policy_violation` or a message
  // naming the safety system.
  const refused = code === "content_policy_violation" || /safety system/i.test(error.message);
  return httpProviderError("OpenAI", {
    status: error.status,
    message: error.message,
    reason: refused ? "moderation_blocked" : code,
    retryAfterMs: retryAfterFromHeaders(error.headers as Headers | undefined) ??
      (error.status === 429 ? rateLimitResetMs(error.headers as Headers | undefined) : undefined),
  }, OPENAI_RULES);
}

/** "1s", "6m0s", "12ms", "1h2m3.5s" (OpenAI's x-ratelimit-reset-* values) in ms; undefined when unreadable. */
export function durationMs(value: string | null | undefined): number | undefined {
  const text = value?.trim() ?? "";
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(text)) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let ms = 0;
  for (const [, n, , u] of text.matchAll(/(\d+(\.\d+)?)(h|ms|m|s)/g)) ms += Number(n) * unit[u];
  return ms;
}

/**
 * A 429 without Retry-After: when the request or token limit it names as spent (x-ratelimit-remaining-* 0)
 * resets (x-ratelimit-reset-*).
 */
function rateLimitResetMs(headers: Headers | undefined): number | undefined {
  const waits = (["requests", "tokens"] as const)
    .filter((k) => headers?.get(`x-ratelimit-remaining-${k}`)?.trim() === "0")
    .map((k) => durationMs(headers?.get(`x-ratelimit-reset-${k}`)))
    .filter((ms): ms is number => ms !== undefined);
  return waits.length > 0 ? Math.max(...waits) : undefined;
}

/** The SDK's base URL: the path it is given, or the API's `/v1` under an origin given alone. */
export function openAiBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.pathname === "/" || url.pathname === "" ? `${url.origin}/v1` : baseUrl.replace(/\/+$/, "");
}

export function createOpenAiProvider(opts: OpenAiOptions): ImageProvider {
  const model = opts.model ?? DEFAULT_OPENAI_IMAGE_MODEL;
  const client = new OpenAI({
    apiKey: opts.apiKey,
    ...(opts.baseUrl ? { baseURL: openAiBaseUrl(opts.baseUrl) } : {}),
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
          // One file as the documented single `image` field; several as `image[]` (the SDK names the field by
          // the value's shape).
          image: files.length === 1 ? files[0] : files,
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
