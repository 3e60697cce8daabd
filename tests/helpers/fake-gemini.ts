/**
 * A fake Gemini API on 127.0.0.1 speaking the documented wire format of
 * `POST /v1beta/models/{model}:generateContent`: `x-goog-api-key` auth (or
 * `?key=`), camelCase JSON answers, the Google RPC error envelope, and the
 * HTTP 200 safety outcomes (promptFeedback.blockReason, finishReason
 * IMAGE_SAFETY, text-only answers). The real @google/genai SDK is pointed at it
 * with httpOptions.baseUrl. Success answers carry a real image (a test portrait
 * reframed to 768x1344) so the whole pipeline runs.
 */
import sharp from "sharp";
import { cropFace, FRONTAL_FACES, landscape } from "../imaging/fixtures.ts";

export type GeminiBehaviour =
  | "success"
  | { kind: "success"; image: Uint8Array; mime?: string }
  | "rate_limit"
  | { kind: "rate_limit"; retryAfterSeconds?: number; retryDelay?: string }
  | "server_error"
  | "unavailable"
  | "prompt_blocked"
  | "output_blocked"
  | "text_only"
  | "no_image_finish"
  | "bad_key"
  | "hang"
  | "no_face"
  | "tiny"
  /** Valid base64 of bytes that are no image. */
  | "garbage"
  /** An image part whose data is not base64. */
  | "bad_base64"
  /** The image part spelled as the REST request examples spell it (`inline_data`, `mime_type`). */
  | "snake_case";

export interface RecordedGeminiRequest {
  path: string;
  model: string;
  apiKey: string | null;
  body: {
    contents: { role?: string; parts: Record<string, unknown>[] }[];
    generationConfig?: Record<string, unknown>;
  };
  /** The text parts of the request, joined. */
  prompt: string;
  /** Decoded inline images of the request, in order. */
  images: { mimeType: string; bytes: Uint8Array }[];
}

export interface FakeGemini {
  /** Base URL for GEMINI_BASE_URL / httpOptions.baseUrl. */
  url: string;
  apiKey: string;
  requests: RecordedGeminiRequest[];
  /** Behaviours for the next calls, in order; once used up every call succeeds. */
  enqueue(...behaviours: GeminiBehaviour[]): void;
  /** Answers every call after the queue with this (default "success"). */
  setDefault(b: GeminiBehaviour): void;
  /** Delays each answer (ms), so tests can watch angles arrive one by one. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

/** A test portrait at Gemini's documented 9:16 output size; `flip` mirrors it (a cheap "other view"). */
export async function geminiPortrait(
  faceIndex = 13,
  opts: { flip?: boolean; tint?: string } = {},
): Promise<Uint8Array> {
  let img = sharp(await cropFace(FRONTAL_FACES[faceIndex], 768 / 1344, 3.2)).resize(768, 1344, {
    fit: "cover",
  });
  if (opts.flip) img = img.flop();
  if (opts.tint) img = img.tint(opts.tint);
  return new Uint8Array(await img.png().toBuffer());
}

const b64 = (bytes: Uint8Array) => {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};
const fromB64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=UTF-8", ...headers },
  });
}

function rpcError(code: number, status: string, message: string, details?: unknown[]) {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}

const usage = { promptTokenCount: 1300, candidatesTokenCount: 1290, totalTokenCount: 2590 };

export async function startFakeGemini(opts: { apiKey?: string } = {}): Promise<FakeGemini> {
  const apiKey = opts.apiKey ?? "fake-gemini-key-0123456789";
  const requests: RecordedGeminiRequest[] = [];
  const queue: GeminiBehaviour[] = [];
  let fallback: GeminiBehaviour = "success";
  let delayMs = 0;
  const hanging = new Set<() => void>();
  const stop = new AbortController();
  // The images each view gets back: the front portrait, mirrored for the sides, tinted for the back.
  const images = {
    front: await geminiPortrait(13),
    right: await geminiPortrait(13, { flip: true }),
    left: await geminiPortrait(14),
    back: await geminiPortrait(13, { tint: "#7a8aa0" }),
  };

  async function answer(
    b: GeminiBehaviour,
    rec: RecordedGeminiRequest,
    signal: AbortSignal,
  ): Promise<Response> {
    const kind = typeof b === "string" ? b : b.kind;
    const model = rec.model;
    switch (kind) {
      case "success": {
        let image: Uint8Array, mime = "image/png";
        if (typeof b === "object" && "image" in b) {
          image = b.image;
          mime = b.mime ?? mime;
        } else {
          const angle = /right side view/.test(rec.prompt)
            ? "right"
            : /left side view/.test(rec.prompt)
            ? "left"
            : /back view/.test(rec.prompt)
            ? "back"
            : "front";
          image = images[angle];
        }
        return json(200, {
          candidates: [{
            content: {
              role: "model",
              parts: [
                { text: "Here is the styled portrait." },
                { inlineData: { mimeType: mime, data: b64(image) } },
              ],
            },
            finishReason: "STOP",
            index: 0,
          }],
          usageMetadata: {
            ...usage,
            candidatesTokensDetails: [{ modality: "IMAGE", tokenCount: 1290 }],
          },
          modelVersion: model,
          responseId: crypto.randomUUID().replaceAll("-", "").slice(0, 22),
        });
      }
      case "no_face":
      case "tiny":
      case "garbage":
      case "bad_base64":
      case "snake_case": {
        const img = kind === "tiny"
          ? await sharp(images.front).resize(48, 84).png().toBuffer()
          : kind === "no_face"
          ? await sharp(await landscape()).resize(768, 1344, { fit: "cover" }).png().toBuffer()
          : kind === "garbage"
          ? new TextEncoder().encode("this is not a PNG, whatever its mimeType says")
          : images.front;
        const data = kind === "bad_base64" ? "%%% not base64 %%%" : b64(new Uint8Array(img));
        return json(200, {
          candidates: [{
            content: {
              role: "model",
              parts: [
                kind === "snake_case"
                  ? { inline_data: { mime_type: "image/png", data } }
                  : { inlineData: { mimeType: "image/png", data } },
              ],
            },
            finishReason: "STOP",
            index: 0,
          }],
          usageMetadata: usage,
          modelVersion: model,
        });
      }
      case "rate_limit": {
        const o = typeof b === "object" ? b as { retryAfterSeconds?: number; retryDelay?: string } : {};
        const details: unknown[] = [{
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [{
            quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
            quotaDimensions: { location: "global", model },
          }],
        }];
        if (o.retryDelay) {
          details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: o.retryDelay });
        }
        return json(
          429,
          rpcError(
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan and billing details.",
            details,
          ),
          o.retryAfterSeconds !== undefined ? { "retry-after": String(o.retryAfterSeconds) } : {},
        );
      }
      case "server_error":
        return json(
          500,
          rpcError(
            500,
            "INTERNAL",
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
          ),
        );
      case "unavailable":
        return json(503, rpcError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."));
      case "prompt_blocked":
        return json(200, {
          promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
          usageMetadata: { promptTokenCount: 1300, totalTokenCount: 1300 },
          modelVersion: model,
        });
      case "output_blocked":
        return json(200, {
          candidates: [{ finishReason: "IMAGE_SAFETY", index: 0 }],
          usageMetadata: { promptTokenCount: 1300, totalTokenCount: 1300 },
          modelVersion: model,
        });
      case "no_image_finish":
        return json(200, {
          candidates: [{ finishReason: "NO_IMAGE", index: 0 }],
          usageMetadata: { promptTokenCount: 1300, totalTokenCount: 1300 },
          modelVersion: model,
        });
      case "text_only":
        return json(200, {
          candidates: [{
            content: {
              role: "model",
              parts: [{ text: "I can't edit this photo, but here is a description instead." }],
            },
            finishReason: "STOP",
            index: 0,
          }],
          usageMetadata: usage,
          modelVersion: model,
        });
      case "bad_key":
        return badKey();
      case "hang":
        await new Promise<void>((resolve) => {
          hanging.add(resolve);
          signal.addEventListener("abort", () => resolve(), { once: true });
          stop.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        return json(
          504,
          rpcError(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."),
        );
    }
    throw new Error(`unknown behaviour ${kind}`);
  }

  const badKey = () =>
    json(
      400,
      rpcError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "API_KEY_INVALID",
          domain: "googleapis.com",
          metadata: { service: "generativelanguage.googleapis.com" },
        },
        {
          "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
          locale: "en-US",
          message: "API key not valid. Please pass a valid API key.",
        },
      ]),
    );

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, async (req) => {
    const url = new URL(req.url);
    const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(url.pathname);
    if (req.method !== "POST" || !m) {
      return json(404, rpcError(404, "NOT_FOUND", `Method not found: ${req.method} ${url.pathname}`));
    }
    const key = req.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
    let body: RecordedGeminiRequest["body"];
    try {
      body = await req.json();
    } catch {
      return json(400, rpcError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."));
    }
    const parts = body.contents?.flatMap((c) => c.parts ?? []) ?? [];
    const rec: RecordedGeminiRequest = {
      path: url.pathname,
      model: decodeURIComponent(m[1]),
      apiKey: key,
      body,
      prompt: parts.map((p) => p.text).filter((t): t is string => typeof t === "string").join("\n"),
      // Both spellings are accepted on input (inlineData/mimeType and inline_data/mime_type).
      images: parts.map((p) => (p.inlineData ?? p.inline_data) as Record<string, string> | undefined)
        .filter((d): d is Record<string, string> => !!d)
        .map((d) => ({ mimeType: d.mimeType ?? d.mime_type, bytes: fromB64(d.data) })),
    };
    requests.push(rec);
    if (key !== apiKey) return badKey();
    const behaviour = queue.shift() ?? fallback;
    if (delayMs > 0 && behaviour !== "hang") await new Promise((r) => setTimeout(r, delayMs));
    return await answer(behaviour, rec, req.signal);
  });

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    apiKey,
    requests,
    enqueue: (...b) => queue.push(...b),
    setDefault: (b) => {
      fallback = b;
    },
    setDelay: (ms) => {
      delayMs = ms;
    },
    close: async () => {
      for (const r of hanging) r();
      stop.abort();
      await server.finished;
    },
  };
}
