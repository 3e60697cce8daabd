/**
 * Client side of the benches that drive a running server over HTTP: a JSON
 * caller, a signed-up user with a portrait (a face cropped at run time from
 * @vladmandic/face-api's demo sample6.jpg, MIT, test-only data in
 * node_modules) and the full look every such bench generates.
 */
import { cropFace, DARK_HAIR } from "../tests/imaging/fixtures.ts";

export type LiveApi = (
  method: string,
  path: string,
  opts?: { token?: string; body?: unknown },
  // deno-lint-ignore no-explicit-any
) => Promise<any>;

/** JSON (or multipart, for a FormData body) requests to `baseUrl`; throws on a non-2xx answer. */
export function liveApi(baseUrl: string): LiveApi {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = {};
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData) body = opts.body;
    else if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch { /* not JSON */ }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return json;
  };
}

/** Registers a new user and uploads the portrait; its token and photo id. */
export async function userWithPortrait(api: LiveApi): Promise<{ token: string; photoId: string }> {
  const auth = await api("POST", "/api/auth/register", {
    body: { email: `bench-${crypto.randomUUID()}@example.com`, password: "Sup3r$ecret", full_name: "Bench" },
  });
  const form = new FormData();
  form.append(
    "file",
    new File([new Uint8Array(await cropFace(DARK_HAIR))], "face.jpg", { type: "image/jpeg" }),
  );
  const { photoId } = await api("POST", "/api/upload-photo", { token: auth.access_token, body: form });
  return { token: auth.access_token, photoId };
}

/** The generate body of a full look (makeup, backdrop, relight, hair colour) at 1080x1920. */
export function fullLook(photoId: string) {
  return {
    photoId,
    studioType: "makeup",
    options: {
      lookStyle: "soft-glam",
      setting: "beach-sunset",
      lighting: "golden-hour",
      hairColor: "auburn",
    },
  };
}

/**
 * Waits for a generation the way the studio does: on its server-sent event
 * stream (`status` events), reopened if it ends while the job still runs.
 * Resolves on `completed`; throws on `failed`.
 */
export async function untilCompleted(baseUrl: string, token: string, id: string): Promise<void> {
  while (true) {
    const res = await fetch(`${baseUrl}/api/generation/${id}/events`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!res.ok) throw new Error(`events ${id}: ${res.status} ${await res.text()}`);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
        if (text.includes('"status":"completed"')) return;
        if (text.includes('"status":"failed"')) {
          throw new Error(`generation ${id} failed: ${text.slice(-300)}`);
        }
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
  }
}
