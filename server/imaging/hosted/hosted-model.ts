/**
 * A hosted generative model (Gemini or OpenAI) behind the ImageModel
 * interface. One generate() call is one angle:
 *
 * 1. the shared prompt (prompt-builder.ts) and the input images: the
 *    portrait, the generated front view for the other angles of a 360° set,
 *    then product references, within the provider's image limit;
 * 2. a slot from the per-process limits (concurrent calls, calls per minute);
 * 3. the provider call (the whole remaining budget: a hang ends the job). 429 and 5xx are retried
 *    with exponential backoff that honours Retry-After, as long as the call's
 *    time budget (JOB_TIMEOUT_SECONDS less a margin) allows; then the job
 *    fails with a refund. Safety blocks fail at once (a retry would be
 *    refused again and billed again); an answer without an image is asked
 *    once more. An invalid key fails at once, logs an operator line and turns
 *    the model `failed` for AUTH_RECHECK_MS;
 * 4. output checks: the image decodes (else one more call, then failed) and
 *    (front view) shows a face found by the local model's detector (else one
 *    more call, then kept with a note);
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
  "The image service returned an image that could not be read. Your credits have been refunded; please try again.";
/** The note a front view keeps when, asked twice, the service drew no face the detector could find. */
export const NO_FACE_NOTE =
  "No face could be found in the image service's picture. If it is not the look you asked for, generate again with a clear, front-facing photo.";

/** After a refused key, how long before a generation tries the key again (the provider may recover). */
export const AUTH_RECHECK_MS = 30_000;

export interface HostedModelOptions {
  provider: ImageProvider;
  faces: FaceCounter;
  limits: CallLimits;
  /** The most one generate() call may take, retries and waits included. */
  budgetMs: number;
  /** Backoff before retry n (1-based) when the provider gives no Retry-After: base * 2^(n-1). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Default AUTH_RECHECK_MS. */
  authRecheckMs?: number;
}

export interface HostedModel extends ImageModel {
  readonly provider: ImageProvider;
  health(): ModelHealth;
}

async function sniffMime(bytes: Uint8Array): Promise<string> {
  const format = (await sharp(bytes).metadata()).format;
  return format === "png" ? "image/png" : format === "webp" ? "image/webp" : "image/jpeg";
}

/**
 * What is wrong with an output: `unreadable` (it does not decode: never kept), `no_face` (a front view in
 * which the detector finds no face: asked once more, then kept with a note, as the providers promise nothing
 * about what they draw), or null. Any size is kept: it is fitted into the frame.
 */
async function checkOutput(
  out: ProviderImage,
  req: ImageRequest,
  faces: FaceCounter,
): Promise<{ kind: "unreadable" | "no_face"; detail: string } | null> {
  try {
    // metadata() reads only the header: decode the pixels too, so a truncated image is caught.
    await sharp(out.bytes).resize(32, 32, { fit: "inside" }).raw().toBuffer();
  } catch (error) {
    return { kind: "unreadable", detail: `output does not decode: ${(error as Error).message}` };
  }
  // Side views are profiles (the detector is trained on frontal faces) and a back view has no face.
  if (req.angle === "front") {
    const found = await faces.count(out.bytes);
    if (found.error) return { kind: "unreadable", detail: `output does not decode: ${found.error}` };
    if (found.faces === 0) return { kind: "no_face", detail: "no face found in the output" };
  }
  return null;
}

/** What /api/health shows of a provider's error: its kind, status and code, never its own words. */
function publicDetail(provider: string, error: ProviderError): string {
  const status = error.status ? ` (HTTP ${error.status}${error.reason ? ` ${error.reason}` : ""})` : "";
  return `${provider}: ${error.kind.replace("_", " ")}${status}`;
}

export function createHostedModel(opts: HostedModelOptions): HostedModel {
  const { provider, faces, limits } = opts;
  const backoffBase = opts.backoffBaseMs ?? 1000;
  const backoffMax = opts.backoffMaxMs ?? 20_000;
  let health: ModelHealth = { state: "ready" };
  /** When the provider last refused the key (0: it has not). */
  let keyRefusedAt = 0;
  const authRecheckMs = opts.authRecheckMs ?? AUTH_RECHECK_MS;
  faces.ready().catch((error) => {
    health = { state: "failed", detail: `the output face check could not load: ${error.message}` };
    log.error("hosted image model: the face detector for output checks failed to load", { error });
  });
  const answered = (state: ModelHealth["state"], detail?: string) => {
    health = { state, ...(detail ? { detail } : {}), lastCallAt: new Date().toISOString() };
    if (state !== "failed") keyRefusedAt = 0;
  };
  /**
   * A refused key fails queued jobs fast (health `failed`) for AUTH_RECHECK_MS; then health says `degraded` and
   * the next generation tries the key again: a provider that refused it for a while (a lapsed bill, its own
   * outage) is used again without a restart.
   */
  const currentHealth = (): ModelHealth =>
    health.state === "failed" && keyRefusedAt > 0 && Date.now() - keyRefusedAt >= authRecheckMs
      ? { ...health, state: "degraded", detail: `${health.detail}; the next generation tries the key again` }
      : health;

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
    let noImageRetried = false;
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
      // The whole remaining budget: an edit with high input fidelity, or a queued one, takes 30-80 s, and a
      // request cut short to leave room for a retry was cut, retried, cut again and billed twice.
      const attemptMs = Math.max(1, deadline - Date.now());
      const timer = setTimeout(() => timeout.abort(), attemptMs);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
      try {
        out = await provider.edit({ prompt, images, signal, timeoutMs: attemptMs });
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
              retried: noImageRetried,
            });
            // A model that chose not to draw (text only, NO_IMAGE, IMAGE_OTHER) often draws when asked again:
            // one more call, then the user is told (a safety block, by contrast, is never asked again).
            if (noImageRetried || Date.now() >= deadline) {
              throw new ModelError(NO_IMAGE_MESSAGE, { transient: false });
            }
            noImageRetried = true;
            continue;
          case "auth":
            health = {
              state: "failed",
              detail: publicDetail(provider.name, error),
              lastCallAt: new Date().toISOString(),
            };
            keyRefusedAt = Date.now();
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
            answered("degraded", publicDetail(provider.name, error));
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
            const detail = publicDetail(provider.name, error);
            if (error.kind === "timeout") health = { ...currentHealth(), state: "degraded", detail };
            else answered("degraded", detail);
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
        lastFailure = problem.detail;
        log.warn("hosted image model: output rejected", {
          model: provider.name,
          problem: problem.detail,
          retried: outputRetried,
        });
        const again = !outputRetried && Date.now() < deadline;
        if (problem.kind === "unreadable" && !again) {
          throw new ModelError(BAD_OUTPUT_MESSAGE, { transient: false });
        }
        if (again) {
          outputRetried = true;
          continue;
        }
        notes.push(NO_FACE_NOTE);
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
    health: () => (faces.loaded() || health.state === "failed" ? currentHealth() : { state: "starting" }),
    ready: () => faces.ready(),
    close: () => faces.close(),
  };
}
