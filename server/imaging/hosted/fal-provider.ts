/**
 * fal.ai FLUX.1 Kontext over fal's queue API, with plain fetch: submit
 * (`POST {queue}/fal-ai/flux-pro/kontext`, or the `.../kontext/max/multi`
 * endpoint when the front view is sent beside the portrait), poll the
 * `status_url` the submit answer names until `COMPLETED`, read the
 * `response_url`, download `images[0].url`. Auth is `Authorization: Key`.
 * Images go inline as data URIs. `has_nsfw_concepts[0] === true` is a safety
 * block; a 422 whose `detail[].type` is `content_policy_violation` too.
 */
import { abortableSleep } from "../../abortable-sleep.ts";
import type { ImageProvider, ProviderCall, ProviderImage, ProviderOptions } from "./provider.ts";
import { base64, ProviderError, retryAfterFromHeaders } from "./provider.ts";
import { httpProviderError, type StatusRule, transportError } from "./provider-errors.ts";

export const FAL_QUEUE_URL = "https://queue.fal.run";
export const FAL_SINGLE_ENDPOINT = "fal-ai/flux-pro/kontext";
export const FAL_MULTI_ENDPOINT = "fal-ai/flux-pro/kontext/max/multi";

/** `baseUrl` is the queue's origin (FAL_BASE_URL); default https://queue.fal.run. */
export interface FalOptions extends ProviderOptions {
  pollMs?: number;
}

interface QueueAnswer {
  request_id?: string;
  status?: string;
  status_url?: string;
  response_url?: string;
}

const dataUri = (img: ProviderImage) => `data:${img.mime};base64,${base64(img.bytes)}`;

/** A safety refusal arrives as a 422 whose `detail[].type` names the policy. */
const POLICY = /content_policy|nsfw|safety/;
const FAL_RULES: StatusRule[] = [{ when: (f) => POLICY.test(f.reason ?? ""), kind: "blocked" }];

async function classify(res: Response): Promise<ProviderError> {
  let detail: unknown;
  try {
    detail = (await res.json())?.detail;
  } catch {
    detail = undefined;
  }
  const types = Array.isArray(detail)
    ? detail.map((d) => (d as { type?: string })?.type).filter(Boolean).map(String)
    : [];
  const message = typeof detail === "string"
    ? detail
    : Array.isArray(detail)
    ? detail.map((d) => (d as { msg?: string })?.msg).join("; ")
    : res.statusText;
  return httpProviderError("fal", {
    status: res.status,
    message,
    reason: types.find((t) => POLICY.test(t)) ?? types[0],
    retryAfterMs: retryAfterFromHeaders(res.headers),
  }, FAL_RULES);
}

export function createFalProvider(opts: FalOptions): ImageProvider {
  const base = (opts.baseUrl ?? FAL_QUEUE_URL).replace(/\/+$/, "");
  const pollMs = opts.pollMs ?? 500;
  const headers = {
    Authorization: `Key ${opts.apiKey}`,
    "Content-Type": "application/json",
    Accept: "application/json",
  };

  async function send(url: string, signal: AbortSignal, init: RequestInit = {}): Promise<Response> {
    try {
      const res = await fetch(url, { ...init, headers: { ...headers, ...init.headers }, signal });
      if (!res.ok) throw await classify(res);
      return res;
    } catch (error) {
      throw error instanceof ProviderError ? error : transportError("fal", error, signal);
    }
  }

  /**
   * A read of a request already submitted (its status, its result): a 5xx, a 429 or a dropped connection is
   * waited out here, until the call's deadline, rather than thrown: thrown, the hosted model would submit the
   * whole request again, and fal bills each submission.
   */
  async function read(url: string, signal: AbortSignal): Promise<Response> {
    while (true) {
      try {
        return await send(url, signal);
      } catch (error) {
        const passing = error instanceof ProviderError &&
          (error.kind === "unavailable" || error.kind === "rate_limited");
        if (!passing || signal.aborted) throw error;
        await abortableSleep(Math.max(pollMs, (error as ProviderError).retryAfterMs ?? 0), signal);
      }
    }
  }

  return {
    name: "fal",
    model: FAL_SINGLE_ENDPOINT,
    maxInputImages: 4,
    async edit(call: ProviderCall): Promise<ProviderImage> {
      const single = call.images.length === 1;
      const endpoint = single ? FAL_SINGLE_ENDPOINT : FAL_MULTI_ENDPOINT;
      const body = {
        prompt: call.prompt,
        ...(single ? { image_url: dataUri(call.images[0]) } : { image_urls: call.images.map(dataUri) }),
        aspect_ratio: "9:16",
        num_images: 1,
        output_format: "png",
        safety_tolerance: "2",
      };
      const submitted = await (await send(`${base}/${endpoint}`, call.signal, {
        method: "POST",
        body: JSON.stringify(body),
      })).json() as QueueAnswer;
      if (!submitted.status_url || !submitted.response_url) {
        throw new ProviderError("unavailable", "fal's queue answer named no status_url/response_url");
      }
      while (true) {
        if (call.signal.aborted) throw new ProviderError("timeout", "fal did not finish in time");
        const s = await (await read(submitted.status_url, call.signal)).json() as QueueAnswer;
        if (s.status === "COMPLETED") break;
        if (s.status === "FAILED" || s.status === "CANCELED" || s.status === "CANCELLED") {
          throw new ProviderError("unavailable", `fal request ${s.status}`);
        }
        await abortableSleep(pollMs, call.signal);
      }
      const result = await (await read(submitted.response_url, call.signal)).json() as {
        images?: { url?: string; content_type?: string }[];
        has_nsfw_concepts?: boolean[];
      };
      if (result.has_nsfw_concepts?.[0] === true) {
        throw new ProviderError("blocked", "fal's safety checker flagged the output", {
          reason: "has_nsfw_concepts",
        });
      }
      const image = result.images?.[0];
      if (!image?.url) throw new ProviderError("no_image", "fal returned no image", { reason: "NO_IMAGE" });
      let res: Response;
      try {
        // fal's media URLs need no auth: never send the key to them.
        res = await fetch(image.url, { signal: call.signal });
      } catch (error) {
        throw new ProviderError(
          "unavailable",
          `fal's image could not be downloaded: ${(error as Error).message}`,
        );
      }
      if (!res.ok) {
        throw new ProviderError("unavailable", `fal's image could not be downloaded (${res.status})`);
      }
      return {
        bytes: new Uint8Array(await res.arrayBuffer()),
        mime: image.content_type ?? res.headers.get("content-type") ?? "image/png",
      };
    },
  };
}
