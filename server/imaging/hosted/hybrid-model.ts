/**
 * IMAGE_MODEL=hybrid: the hosted generative model renders everything (a new
 * cut, a beard, an outfit, a pose, a scene, the other angles), then, for the
 * front view when the user chose makeup, the local model paints the chosen
 * makeup on the generated image with its exact catalogue colours (a lipstick
 * shade is that shade, measurably), which a generative model only
 * approximates.
 *
 * The local painter frames its input 9:16 with the eyes at 30-47% of the
 * height and a face 22-62% of the width; a generated portrait inside those
 * bounds passes through unmoved (scale 1, no offset). Outside them (a full
 * body shot, a face turned away), painting would reframe the image, so the
 * generated image is kept as it is and a note says the exact colours were not
 * applied. Side and back views are never painted: they are conditioned on the
 * painted front view instead.
 */
import { defaultOptions } from "../../styling/catalog.ts";
import { MAKEUP_CATEGORIES, type SelectedOptions } from "../../styling/option-keys.ts";
import type { ImageModel, ImageRequest, ImageResult } from "../image-model.ts";
import { ModelError } from "../image-model.ts";
import { log } from "../../log.ts";
import type { FaceCounter } from "./face-check.ts";
import type { HostedModel } from "./hosted-model.ts";
import { HOSTED_CAPABILITIES } from "./hosted-capabilities.ts";

/** Bounds (fractions of the frame) in which the local painter keeps a 9:16 image where it is; with a margin. */
export const PASS_THROUGH = { eyeX: [0.32, 0.68], eyeY: [0.32, 0.45], faceWidth: [0.24, 0.6] } as const;

export const MAKEUP_NOT_EXACT =
  "Exact makeup colours were not painted on this image (the face is too small, too large or turned for the makeup painter); the makeup shown is the generative model's.";

/** Only the makeup choices, every other option at its default (the painter must change nothing else). */
export function makeupOnly(
  req: Pick<ImageRequest, "studioType" | "options" | "intensity">,
): SelectedOptions | null {
  const out = defaultOptions(req.studioType);
  let any = false;
  for (const key of MAKEUP_CATEGORIES) {
    if (req.options[key] !== out[key] && req.intensity[key] > 0) {
      out[key] = req.options[key];
      any = true;
    }
  }
  return any ? out : null;
}

const inside = (v: number, [lo, hi]: readonly [number, number]) => v >= lo && v <= hi;

/** The hybrid model, and the local model it paints with (the live previews share it: see createPreviewer). */
export interface HybridModel extends ImageModel {
  readonly local: ImageModel;
}

export function createHybridModel(
  opts: { hosted: HostedModel; local: ImageModel; faces: FaceCounter },
): HybridModel {
  const { hosted, local, faces } = opts;
  return {
    name: "hybrid",
    local,
    capabilities: HOSTED_CAPABILITIES,
    async generate(req: ImageRequest): Promise<ImageResult> {
      const out = await hosted.generate(req);
      const makeup = req.angle === "front" ? makeupOnly(req) : null;
      if (!makeup) return out;
      const face = await faces.count(out.image);
      if (
        !face.eye || face.meshWidth === undefined || !inside(face.eye[0], PASS_THROUGH.eyeX) ||
        !inside(face.eye[1], PASS_THROUGH.eyeY) || !inside(face.meshWidth, PASS_THROUGH.faceWidth)
      ) {
        log.info("hybrid model: makeup not painted, framing outside the painter's pass-through bounds", {
          eye: face.eye,
          faceWidth: face.meshWidth,
        });
        return { ...out, notes: [...out.notes, MAKEUP_NOT_EXACT] };
      }
      try {
        const painted = await local.generate({
          ...req,
          // No photo id: the local model caches what it derives from a photo under its id, and with the upload's
          // id it painted every later look on this photo over this generated image.
          photoId: undefined,
          photo: out.image,
          options: makeup,
          instructions: null,
          references: [],
          frontImage: undefined,
        });
        return {
          image: painted.image,
          mime: painted.mime,
          notes: [...out.notes, ...painted.notes],
          prompt: out.prompt,
        };
      } catch (error) {
        if (req.signal?.aborted) throw error;
        // The generated image is paid for and good: keep it rather than fail or call the provider again.
        log.warn("hybrid model: makeup painting failed; keeping the generated image", {
          error,
          userFacing: error instanceof ModelError,
        });
        return { ...out, notes: [...out.notes, MAKEUP_NOT_EXACT] };
      }
    },
    health: () => hosted.health(),
    ready: async () => {
      await Promise.all([hosted.ready?.(), local.ready?.()]);
    },
    close: async () => {
      await hosted.close();
      await local.close();
    },
  };
}
