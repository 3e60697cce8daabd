/**
 * A hosted generative model (Gemini or OpenAI) behind the ImageModel
 * interface. One generate() call is one angle:
 *
 * 1. the shared prompt (prompt-builder.ts) and the input images: the
 *    portrait, the generated front view for the other angles of a 360° set,
 *    then product references, within the provider's image limit;
 * 2. a slot from the per-process limits (concurrent calls, calls per minute);
 * 3. the provider call. 429 and 5xx (and a request that hangs) are retried
 *    with exponential backoff that honours Retry-After, as long as the call's
 *    time budget (JOB_TIMEOUT_SECONDS less a margin) allows; then the job
 *    fails with a refund. Safety blocks and answers without an image fail at
 *    once (a retry would be refused again and billed again). An invalid key
 *    fails at once, logs an operator line and turns the model `failed`;
 * 4. output checks: the image decodes, is not tiny and (front view) shows a
 *    face found by the local model's detector; otherwise one more call;
 * 5. the image is fitted into 1080x1920 without distortion.
 *
 * Every failure is a ModelError whose message the user sees; all are
 * permanent for the job runner (this class has already spent the time budget
 * on retries), so the job fails and its credits are refunded.
 */
import sharp from "sharp";
import { log } from "../../log.ts";
import { abortableSleep } from "../../abortable-sleep.ts";
import type { ImageModel, ImageRequest, ImageResult, ModelHealth } from "../image-model.ts";
import { ModelError } from "../image-model.ts";
import { CallLimits, CallLimitWait } from "./call-limits.ts";
import { composeToFrame } from "./compose-frame.ts";
import type { FaceCounter } from "./face-check.ts";
import { HOSTED_CAPABILITIES } from "./hosted-capabilities.ts";
import { buildPrompt } from "./prompt-builder.ts";
import { type ImageProvider, ProviderError, type ProviderImage } from "./provider.ts";

export const DECLINED_MESSAGE =
  "The image service declined this request for safety reasons. Choose different options, or remove anything revealing or sensitive from your additional instructions and reference photos, then try again. Your credits have been refunded.";
export const NO_IMAGE_MESSAGE =
  "The image service answered without an image. Try fewer options at once or shorter, simpler additional instructions. Your credits have been refunded.";
export const BUSY_MESSAGE =
  "The image service is busy and did not answer in time. Your credits have been refunded; please try again in a few minutes.";
export const UNAVAILABLE_MESSAGE =
  "The image model is not available right now, so this look could not be generated. Your credits have been refunded. Please try again later.";
export const BAD_OUTPUT_MESSAGE =
  "The image service returned an unusable image (no face could be found in it). Your credits have been refunded; please try again, ideally with a clear, front-facing photo.";

/** Smallest side, in pixels, of an output worth keeping. */
export const MIN_OUTPUT_SIDE = 256;

export interface HostedModelOptions {
  provider: ImageProvider;
  faces: FaceCounter;
  limits: CallLimits;
  /** The most one generate() call may take, retries and waits included. */
  budgetMs: number;
  /** Backoff before retry n (1-based) when the provider gives no Retry-After: base * 2^(n-1). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
}

export interface HostedModel extends ImageModel {
  readonly provider: ImageProvider;
  health(): ModelHealth;
}

async function sniffMime(bytes: Uint8Array): Promise<string> {
  const format = (await sharp(bytes).metadata()).format;
  return format === "png" ? "image/png" : format === "webp" ? "image/webp" : "image/jpeg";
}

/** Why an output was rejected, or null when it is usable. */
async function checkOutput(
  out: ProviderImage,
  req: ImageRequest,
  faces: FaceCounter,
): Promise<string | null> {
  let width = 0, height = 0;
  try {
    const meta = await sharp(out.bytes).metadata();
    width = meta.width ?? 0;
    height = meta.height ?? 0;
    // metadata() reads only the header: decode the pixels too, so a truncated image is caught.
    await sharp(out.bytes).resize(32, 32, { fit: "inside" }).raw().toBuffer();
  } catch (error) {
    return `output does not decode: ${(error as Error).message}`;
  }
  if (width < MIN_OUTPUT_SIDE || height < MIN_OUTPUT_SIDE) return `output is tiny (${width}x${height})`;
  // Side views are profiles (the detector is trained on frontal faces) and a back view has no face.
  if (req.angle === "front") {
    const found = await faces.count(out.bytes);
    if (found.error) return `output does not decode: ${found.error}`;
    if (found.faces === 0) return "no face found in the output";
  }
  return null;
}

export function createHostedModel(opts: HostedModelOptions): HostedModel {
  const { provider, faces, limits } = opts;
  const backoffBase = opts.backoffBaseMs ?? 1000;
  const backoffMax = opts.backoffMaxMs ?? 20_000;
  let health: ModelHealth = { state: "ready" };
  faces.ready().catch((error) => {
    health = { state: "failed", detail: `the output face check could not load: ${error.message}` };
    log.error("hosted image model: the face detector for output checks failed to load", { error });
  });
  const answered = (state: ModelHealth["state"], detail?: string) => {
    health = { state, ...(detail ? { detail } : {}), lastCallAt: new Date().toISOString() };
  };

  async function generate(req: ImageRequest): Promise<ImageResult> {
    const started = Date.now();
    const deadline = started + opts.budgetMs;
    const notes: string[] = [];
    const portrait = { bytes: req.photo, mime: await sniffMime(req.photo) };
    const images: ProviderImage[] = [portrait];
    if (req.frontImage) images.push({ bytes: req.frontImage, mime: await sniffMime(req.frontImage) });
    const room = Math.max(0, provider.maxInputImages - images.length);
    const refs = req.references.slice(0, room);
    for (const r of refs) images.push({ bytes: r, mime: await sniffMime(r) });
    if (refs.length < req.references.length) {
      notes.push(
        `Only ${refs.length} of your ${req.references.length} reference photos could be sent to the ${provider.name} model (it takes ${provider.maxInputImages} images per request).`,
      );
    }
    const prompt = buildPrompt({
      studioType: req.studioType,
      options: req.options,
      intensity: req.intensity,
      instructions: req.instructions,
      angle: req.angle,
      references: refs.length,
      withFrontView: !!req.frontImage,
    });

    let retries = 0;
    let outputRetried = false;
    let lastFailure = "";
    while (true) {
      if (req.signal?.aborted) throw new ModelError(BUSY_MESSAGE, { transient: true });
      let release: () => void;
      try {
        release = await limits.acquire(deadline, req.signal);
      } catch (error) {
        if (error instanceof CallLimitWait) {
          log.warn("hosted image model: call budget exhausted", {
            model: provider.name,
            detail: error.message,
          });
          health = {
            ...health,
            state: "degraded",
            detail: "call budget (HOSTED_CALLS_PER_MINUTE) exhausted",
          };
          throw new ModelError(BUSY_MESSAGE, { transient: false });
        }
        throw error;
      }
      let out: ProviderImage;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), Math.max(1, deadline - Date.now()));
      const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
      try {
        out = await provider.edit({ prompt, images, signal, timeoutMs: Math.max(1, deadline - Date.now()) });
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        lastFailure = error.message;
        if (req.signal?.aborted) throw new ModelError(BUSY_MESSAGE, { transient: true });
        switch (error.kind) {
          case "blocked":
            answered("ready");
            log.info("hosted image model declined a request", { model: provider.name, reason: error.reason });
            throw new ModelError(DECLINED_MESSAGE, { transient: false });
          case "no_image":
            answered("ready");
            log.info("hosted image model answered without an image", {
              model: provider.name,
              reason: error.reason,
            });
            throw new ModelError(NO_IMAGE_MESSAGE, { transient: false });
          case "auth":
            health = { state: "failed", detail: error.message, lastCallAt: new Date().toISOString() };
            log.error(
              `hosted image model: the provider refused the API key; set a valid ${
                ({ gemini: "GEMINI_API_KEY", openai: "OPENAI_API_KEY", fal: "FAL_KEY" } as Record<
                  string,
                  string
                >)[
                  provider.name
                ] ?? "API key"
              } and restart`,
              { model: provider.name, status: error.status, reason: error.reason },
            );
            throw new ModelError(UNAVAILABLE_MESSAGE, { transient: false });
          case "config":
            answered("degraded", error.message);
            log.error("hosted image model: the provider rejected the request; check the model settings", {
              model: provider.name,
              providerModel: provider.model,
              status: error.status,
              reason: error.reason,
              detail: error.message,
            });
            throw new ModelError(UNAVAILABLE_MESSAGE, { transient: false });
          default: {
            // rate_limited, unavailable, timeout: wait and try again while the budget allows.
            if (error.kind === "timeout") health = { ...health, state: "degraded", detail: error.message };
            else answered("degraded", error.message);
            retries++;
            const backoff = Math.min(backoffMax, backoffBase * 2 ** (retries - 1));
            const wait = Math.max(error.retryAfterMs ?? 0, backoff) + Math.floor(Math.random() * 250);
            if (Date.now() + wait >= deadline) {
              log.warn("hosted image model: giving up within the job's time budget", {
                model: provider.name,
                kind: error.kind,
                retries,
                detail: error.message,
              });
              throw new ModelError(BUSY_MESSAGE, { transient: false });
            }
            log.warn("hosted image model: retrying", {
              model: provider.name,
              kind: error.kind,
              waitMs: wait,
            });
            await abortableSleep(wait, req.signal);
            continue;
          }
        }
      } finally {
        clearTimeout(timer);
        release();
      }
      answered("ready");
      const problem = await checkOutput(out, req, faces);
      if (problem) {
        lastFailure = problem;
        log.warn("hosted image model: output rejected", {
          model: provider.name,
          problem,
          retried: outputRetried,
        });
        if (outputRetried || Date.now() >= deadline) {
          throw new ModelError(BAD_OUTPUT_MESSAGE, { transient: false });
        }
        outputRetried = true;
        continue;
      }
      const framed = await composeToFrame(out.bytes, req.width, req.height);
      log.debug("hosted image model: generated", {
        model: provider.name,
        angle: req.angle,
        ms: Date.now() - started,
        retries,
        lastFailure: lastFailure || undefined,
      });
      return { ...framed, notes, prompt };
    }
  }

  return {
    name: provider.name,
    provider,
    capabilities: HOSTED_CAPABILITIES,
    generate,
    // Jobs wait (health `starting`) until the face detector used by the output check has loaded.
    health: () => (faces.loaded() || health.state === "failed" ? health : { state: "starting" }),
    ready: () => faces.ready(),
    close: () => faces.close(),
  };
}
