/**
 * A fake OpenAI Images API on 127.0.0.1 speaking the documented wire format
 * of `POST /v1/images/edits`: multipart/form-data in (`image[]` files,
 * `prompt`, `model`, `size`, ...), `Authorization: Bearer` auth, JSON out
 * (`data[0].b64_json`), the `{error: {message, type, param, code}}` envelope,
 * 429 with `retry-after`, and the 400 `moderation_blocked` safety refusal. The
 * real openai SDK is pointed at it with `baseURL`. Success answers carry a real
 * image (a test portrait reframed to 1024x1536).
 */
import sharp from "sharp";
import { cropFace, FRONTAL_FACES, landscape } from "../imaging/fixtures.ts";

export type OpenAiBehaviour =
  | "success"
  | "rate_limit"
  | { kind: "rate_limit"; retryAfterSeconds?: number; retryAfterMs?: number; resetRequests?: string }
  /** A 429 naming an exhausted quota in `type` only (`code` null), as the error table lists it. */
  | "quota_by_type"
  | "server_error"
  | "moderation_blocked"
  | "content_policy_violation"
  | "empty_data"
  | "bad_key"
  | "hang"
  | "no_face";

export interface RecordedOpenAiRequest {
  path: string;
  authorization: string | null;
  contentType: string | null;
  /** Text fields of the multipart body. */
  fields: Record<string, string>;
  /** Files under `image[]` (or a single `image`), in order. */
  images: { field: string; name: string; type: string; bytes: Uint8Array }[];
}

export interface FakeOpenAi {
  /** Base URL for OPENAI_BASE_URL / baseURL (ends in /v1). */
  url: string;
  apiKey: string;
  requests: RecordedOpenAiRequest[];
  enqueue(...behaviours: OpenAiBehaviour[]): void;
  close(): Promise<void>;
}

/** A test portrait at gpt-image-1's 1024x1536 portrait size. */
export async function openAiPortrait(faceIndex = 13): Promise<Uint8Array> {
  const crop = await cropFace(FRONTAL_FACES[faceIndex], 1024 / 1536, 3.2);
  return new Uint8Array(await sharp(crop).resize(1024, 1536, { fit: "cover" }).png().toBuffer());
}

const b64 = (bytes: Uint8Array) => {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": `req_${crypto.randomUUID()}`, ...headers },
  });
}

const error = (message: string, type: string, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code },
});

export async function startFakeOpenAi(opts: { apiKey?: string } = {}): Promise<FakeOpenAi> {
  const apiKey = opts.apiKey ?? "sk-fake-openai-key-0123456789";
  const requests: RecordedOpenAiRequest[] = [];
  const queue: OpenAiBehaviour[] = [];
  const hanging = new Set<() => void>();
  const stop = new AbortController();
  const portrait = await openAiPortrait();

  const success = (image: Uint8Array) =>
    json(200, {
      created: Math.floor(Date.now() / 1000),
      background: "opaque",
      data: [{ b64_json: b64(image) }],
      output_format: "png",
      quality: "high",
      size: "1024x1536",
      usage: {
        input_tokens: 372,
        input_tokens_details: { image_tokens: 323, text_tokens: 49 },
        output_tokens: 1056,
        total_tokens: 1428,
        output_tokens_details: { image_tokens: 1056, text_tokens: 0 },
      },
    });

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/images/edits") {
        return json(404, error(`Invalid URL (${req.method} ${url.pathname})`, "invalid_request_error", null));
      }
      const rec: RecordedOpenAiRequest = {
        path: url.pathname,
        authorization: req.headers.get("authorization"),
        contentType: req.headers.get("content-type"),
        fields: {},
        images: [],
      };
      try {
        const form = await req.formData();
        for (const [field, value] of form.entries()) {
          if (typeof value === "string") rec.fields[field] = value;
          else if (field === "image[]" || field === "image") {
            rec.images.push({
              field,
              name: value.name,
              type: value.type,
              bytes: new Uint8Array(await value.arrayBuffer()),
            });
          }
        }
      } catch {
        return json(
          400,
          error("The request body must be multipart/form-data.", "invalid_request_error", null),
        );
      }
      requests.push(rec);
      if (rec.authorization !== `Bearer ${apiKey}`) {
        return json(
          401,
          error(
            "Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
          ),
        );
      }
      const b = queue.shift() ?? "success";
      const kind = typeof b === "string" ? b : b.kind;
      switch (kind) {
        case "success":
          return success(portrait);
        case "no_face":
          return success(new Uint8Array(await sharp(await landscape()).resize(1024, 1536).png().toBuffer()));
        case "empty_data":
          return json(200, { created: Math.floor(Date.now() / 1000), data: [] });
        case "rate_limit": {
          const o = typeof b === "object"
            ? b as { retryAfterSeconds?: number; retryAfterMs?: number; resetRequests?: string }
            : {};
          const headers: Record<string, string> = {};
          if (o.resetRequests !== undefined) {
            headers["x-ratelimit-limit-requests"] = "5";
            headers["x-ratelimit-remaining-requests"] = "0";
            headers["x-ratelimit-reset-requests"] = o.resetRequests;
            headers["x-ratelimit-remaining-tokens"] = "149000";
            headers["x-ratelimit-reset-tokens"] = "6m0s";
          }
          if (o.retryAfterSeconds !== undefined) headers["retry-after"] = String(o.retryAfterSeconds);
          if (o.retryAfterMs !== undefined) headers["retry-after-ms"] = String(o.retryAfterMs);
          return json(429, {
            error: {
              code: "rate_limit_exceeded",
              message:
                "Rate limit exceeded for images per minute in organization org-fake. Limit: 5/1min. Current: 6/1min.",
              type: "requests",
              param: null,
            },
          }, headers);
        }
        case "quota_by_type":
          return json(
            429,
            error(
              "You exceeded your current quota, please check your plan and billing details.",
              "insufficient_quota",
              null,
            ),
          );
        case "server_error":
          return json(
            500,
            error(
              "The server had an error while processing your request. Sorry about that!",
              "server_error",
              null,
            ),
          );
        case "moderation_blocked":
          return json(400, {
            error: {
              message:
                "Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID req_fake. safety_violations=[sexual].",
              type: "image_generation_user_error",
              param: null,
              code: "moderation_blocked",
            },
          });
        case "content_policy_violation":
          // The older models' safety refusal.
          return json(
            400,
            error(
              "Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.",
              "invalid_request_error",
              "content_policy_violation",
            ),
          );
        case "bad_key":
          return json(401, error("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"));
        case "hang":
          await new Promise<void>((resolve) => {
            hanging.add(resolve);
            req.signal.addEventListener("abort", () => resolve(), { once: true });
            stop.signal.addEventListener("abort", () => resolve(), { once: true });
          });
          return json(504, error("Gateway timeout", "server_error", null));
      }
      return json(500, error("unknown behaviour", "server_error", null));
    },
  );

  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    apiKey,
    requests,
    enqueue: (...b) => queue.push(...b),
    close: async () => {
      for (const r of hanging) r();
      stop.abort();
      await server.finished;
    },
  };
}
