/**
 * How many faces an image shows, and where the largest is: the hosted
 * models' output check (one person, the face still there) and the hybrid
 * model's makeup painter (is the generated face inside the painter's framing
 * bounds?). Runs wherever the face models are: the face-models worker of the
 * local model's pool, or the hosted-only mode's own face-check worker.
 */
import type { FaceModels } from "./face-engine.ts";
import { faceGeometry } from "./face-geometry.ts";
import { decodePhoto, detectFaces } from "./photo-faces.ts";

export interface FaceCount {
  faces: number;
  /** Width of the largest face as a fraction of the image width. */
  largestFaceWidth: number;
  /** The largest face's eye centre and cheek-to-cheek width, as fractions of the image size. */
  eye?: [number, number];
  meshWidth?: number;
  /** Set when the image could not be decoded. */
  error?: string;
}

export interface FaceCounter {
  count(image: Uint8Array): Promise<FaceCount>;
  /** Starts the worker (if needed) and resolves once the detector has loaded. */
  ready(): Promise<void>;
  /** True once the detector has loaded. */
  loaded(): boolean;
  close(): Promise<void>;
}

/** Faces scoring below this are not counted (a pattern in the backdrop, a face on a poster far away). */
const MIN_SCORE = 0.5;

/** Counts the faces in an encoded image; never throws (an undecodable image answers 0 faces and `error`). */
export async function countFaces(models: FaceModels, image: Uint8Array): Promise<FaceCount> {
  try {
    const photo = await decodePhoto(image);
    const faces = (await detectFaces(models, photo, { upright: false })).filter((f) => f.score >= MIN_SCORE);
    const largest = faces.reduce((m, f) => Math.max(m, f.box[2]), 0);
    const g = faces[0] ? faceGeometry(faces[0].mesh) : undefined;
    return {
      faces: faces.length,
      largestFaceWidth: largest / photo.width,
      ...(g
        ? {
          eye: [g.eyeCenter[0] / photo.width, g.eyeCenter[1] / photo.height] as [number, number],
          meshWidth: g.fw / photo.width,
        }
        : {}),
    };
  } catch (err) {
    return { faces: 0, largestFaceWidth: 0, error: String((err as Error)?.message ?? err) };
  }
}
