/**
 * Google Gemini image editing through the official @google/genai SDK:
 * `models.generateContent` with the prompt, the portrait (and front view,
 * references) as inline data, `responseModalities: ["TEXT", "IMAGE"]` and
 * `imageConfig.aspectRatio: "9:16"`. Safety and "no image" outcomes arrive as
 * HTTP 200 (`promptFeedback.blockReason`, a blocking `finishReason`, or only
 * text parts) and are classified here; the SDK's own retries stay off (the
 * hosted model owns the retry policy and its Retry-After handling).
 */
import { ApiError, type GenerateContentResponse, GoogleGenAI, type Part } from "@google/genai";
import type { ImageProvider, ProviderCall, ProviderImage, ProviderOptions } from "./provider.ts";
import { base64, fromBase64, ProviderError, retryAfterFromHeaders } from "./provider.ts";
import { httpProviderError, type StatusRule, transportError } from "./provider-errors.ts";

/** The generally available image model ("Nano Banana"); GEMINI_MODEL picks another. */
export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash-image";

/** Finish reasons that mean a safety system (or recitation check) refused the output. */
const BLOCKING_FINISH = new Set([
  "SAFETY",
  "IMAGE_SAFETY",
  "PROHIBITED_CONTENT",
  "IMAGE_PROHIBITED_CONTENT",
  "BLOCKLIST",
  "SPII",
  "RECITATION",
  "IMAGE_RECITATION",
]);

/**
 * Input images per request: 3 for gemini-2.5-flash-image (its documented
 * limit), 14 for the Gemini 3 image models.
 */
export function geminiMaxInputImages(model: string): number {
  return bareModelId(model).startsWith("gemini-2.") ? 3 : 14;
}

/** A model id without the resource prefix the SDK also takes ("models/gemini-2.5-flash-image"). */
function bareModelId(model: string): string {
  return model.replace(/^models\//, "");
}

export interface GeminiOptions extends ProviderOptions {
  model?: string;
}

/** "26s" / "1.5s" (google.rpc.RetryInfo.retryDelay) in ms. */
function retryDelayMs(body: unknown): number | undefined {
  const details = (body as { error?: { details?: { retryDelay?: string }[] } })?.error?.details;
  const delay = details?.find((d) => typeof d?.retryDelay === "string")?.retryDelay;
  const m = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return m ? Number(m[1]) * 1000 : undefined;
}

/** Gemini also names a bad key in a 400 answer's reason. */
const GEMINI_RULES: StatusRule[] = [{ when: (f) => f.reason === "API_KEY_INVALID", kind: "auth" }];

function classifyApiError(error: ApiError, headers: Headers | undefined): ProviderError {
  let body: unknown;
  try {
    body = JSON.parse(error.message);
  } catch {
    body = undefined;
  }
  const err = (body as { error?: { message?: string; status?: string; details?: { reason?: string }[] } })
    ?.error;
  return httpProviderError("Gemini", {
    status: error.status,
    message: err?.message ?? error.message,
    reason: err?.details?.find((d) => typeof d?.reason === "string")?.reason ?? err?.status,
    retryAfterMs: retryAfterFromHeaders(headers) ?? retryDelayMs(body),
  }, GEMINI_RULES);
}

/** The image of a 200 answer, or the reason there is none. */
export function imageFromResponse(res: GenerateContentResponse): ProviderImage {
  const blockReason = res.promptFeedback?.blockReason;
  if (blockReason) {
    throw new ProviderError("blocked", `Gemini blocked the prompt (${blockReason})`, { reason: blockReason });
  }
  const candidate = res.candidates?.[0];
  const finish = candidate?.finishReason as string | undefined;
  const parts: Part[] = candidate?.content?.parts ?? [];
  // Never assume parts[0]: text may come first, thinking models add interim images marked `thought`. The
  // REST API answers camelCase `inlineData`; its request examples spell it `inline_data`, and a proxy that
  // answers so is read too.
  const inline = (p: Part) =>
    p.inlineData ?? (p as { inline_data?: { data?: string; mime_type?: string } }).inline_data;
  const images = parts.filter((p) => inline(p)?.data);
  const final = images.filter((p) => !p.thought).at(-1) ?? images.at(-1);
  const data = final && inline(final);
  if (data?.data) {
    const mime = (data as { mimeType?: string }).mimeType ?? (data as { mime_type?: string }).mime_type;
    return { bytes: fromBase64(data.data), mime: mime ?? "image/png" };
  }
  if (finish && BLOCKING_FINISH.has(finish)) {
    throw new ProviderError("blocked", `Gemini blocked the output (finishReason ${finish})`, {
      reason: finish,
    });
  }
  const text = parts.map((p) => p.text).filter(Boolean).join(" ").slice(0, 200);
  throw new ProviderError(
    "no_image",
    `Gemini returned no image (finishReason ${finish ?? "none"}${text ? `, text: ${text}` : ""})`,
    { reason: finish ?? "NO_IMAGE_PART" },
  );
}

/** The SDK's base URL is the API's origin (it adds `/v1beta`): a version given with it is taken off. */
export function geminiBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1(beta|alpha)?$/, "");
}

export function createGeminiProvider(opts: GeminiOptions): ImageProvider {
  const model = bareModelId(opts.model ?? DEFAULT_GEMINI_MODEL);
  const ai = new GoogleGenAI({
    apiKey: opts.apiKey,
    // The documented Gemini API version for image generation (this SDK release defaults to v1).
    apiVersion: "v1beta",
    ...(opts.baseUrl ? { httpOptions: { baseUrl: geminiBaseUrl(opts.baseUrl) } } : {}),
  });
  return {
    name: "gemini",
    model,
    maxInputImages: geminiMaxInputImages(model),
    async edit(call: ProviderCall): Promise<ProviderImage> {
      // The SDK drops response headers from its errors: keep this call's, for Retry-After.
      let headers: Headers | undefined;
      const capture = async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await fetch(input, init);
        headers = res.headers;
        return res;
      };
      let res: GenerateContentResponse;
      try {
        res = await ai.models.generateContent({
          model,
          contents: [{
            role: "user",
            parts: [
              { text: call.prompt },
              ...call.images.map((img) => ({ inlineData: { mimeType: img.mime, data: base64(img.bytes) } })),
            ],
          }],
          config: {
            responseModalities: ["TEXT", "IMAGE"],
            imageConfig: { aspectRatio: "9:16" },
            abortSignal: call.signal,
            httpOptions: { timeout: call.timeoutMs, fetch: capture },
          },
        });
      } catch (error) {
        throw error instanceof ApiError
          ? classifyApiError(error, headers)
          : transportError("Gemini", error, call.signal);
      }
      return imageFromResponse(res);
    },
  };
}
