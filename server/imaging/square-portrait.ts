/**
 * Profile pictures: any photo the upload pipeline accepts, cropped to a
 * square around the largest face (the head with some hair and shoulders) and
 * scaled to a small JPEG. Without a face the crop is sharp's attention
 * strategy (the busiest, most skin-toned region), never a failure.
 */
import sharp from "sharp";
import { log } from "../log.ts";
import { FaceEngine } from "./local/face-engine.ts";
import { normalizePhoto } from "./normalize-photo.ts";

/** Faces are looked for on a copy whose long side is at most this (fast, and plenty for a box). */
const DETECT_SIDE = 640;
/** The square's side as a multiple of the face box's larger side. */
const FACE_MARGIN = 2.2;

export interface SquarePortrait {
  bytes: Uint8Array;
  mime: "image/jpeg";
  ext: "jpg";
  /** Where the crop came from: a detected face, or the attention fallback. */
  framing: "face" | "attention";
}

// Loaded on first use and kept: the face model takes a few seconds to load once.
let engine: Promise<FaceEngine | null> | undefined;
function faceEngine(): Promise<FaceEngine | null> {
  engine ??= FaceEngine.load().catch((error) => {
    log.warn("face engine unavailable; profile images use the attention crop", { error });
    return null;
  });
  return engine;
}

/**
 * Face boxes ([x, y, w, h] in input pixels, largest first) in an image;
 * null when the face engine cannot load. One engine per process (its model
 * loader registers globally), so tests look at results through this too.
 */
export async function faceBoxes(image: Uint8Array): Promise<[number, number, number, number][] | null> {
  const found = await faceEngine();
  if (!found) return null;
  const meta = await sharp(image).metadata();
  const scale = Math.min(1, DETECT_SIDE / Math.max(meta.width!, meta.height!));
  const { data, info } = await sharp(image)
    .resize(Math.round(meta.width! * scale), Math.round(meta.height! * scale))
    .removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const faces = await found.detect({
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    width: info.width,
    height: info.height,
  });
  return faces.map((f) => f.box.map((v) => v / scale) as [number, number, number, number]);
}

async function findFace(jpeg: Uint8Array) {
  const boxes = await faceBoxes(jpeg);
  if (!boxes?.length) return null;
  const [x, y, w, h] = boxes[0];
  return { x, y, w, h };
}

/** Throws ImageInputError (from normalizePhoto) for anything that is not an acceptable photo. */
export async function squarePortrait(input: Uint8Array, size: number): Promise<SquarePortrait> {
  const photo = await normalizePhoto(input);
  const { width, height } = photo;
  let face = null;
  try {
    face = await findFace(photo.bytes);
  } catch (error) {
    log.warn("face detection failed; using the attention crop", { error });
  }
  let pipeline = sharp(photo.bytes);
  if (face) {
    const side = Math.round(Math.min(width, height, Math.max(face.w, face.h) * FACE_MARGIN));
    // Centred on the face, a little above its middle so the hair fits, then kept inside the photo.
    const cx = face.x + face.w / 2;
    const cy = face.y + face.h * 0.42;
    const left = Math.round(Math.min(Math.max(0, cx - side / 2), width - side));
    const top = Math.round(Math.min(Math.max(0, cy - side / 2), height - side));
    pipeline = pipeline.extract({ left, top, width: side, height: side }).resize(size, size);
  } else {
    pipeline = pipeline.resize(size, size, { fit: "cover", position: sharp.strategy.attention });
  }
  const bytes = await pipeline.jpeg({ quality: 88, mozjpeg: true }).toBuffer();
  return {
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    mime: "image/jpeg",
    ext: "jpg",
    framing: face ? "face" : "attention",
  };
}
