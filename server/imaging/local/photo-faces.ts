/**
 * A photo's pixels and its faces: decoding and face detection, the first two
 * steps of a render, kept apart from the renderer so that the face count (the
 * hosted models' output check) loads only these.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";
import type { DetectedFace, FaceModels } from "./face-engine.ts";

/**
 * Decodes the photo once, at its own size (photos over 2048 px are reduced):
 * the framing resizes it to the output in a single step, and detection runs
 * on it directly (or on an enlarged copy, see detectFaces).
 */
export async function decodePhoto(photo: Uint8Array): Promise<Canvas> {
  let p = sharp(photo).rotate().toColourspace("srgb").removeAlpha();
  const meta = await sharp(photo).metadata();
  const long = Math.max(meta.width ?? 0, meta.height ?? 0);
  if (long > 2048) p = p.resize(2048, 2048, { fit: "inside", kernel: "lanczos3" });
  const { data, info } = await p.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`unexpected channel count ${info.channels}`);
  return {
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
}

/** Below this long side, detection runs on a copy enlarged to DETECT_LONG (small faces). */
const DETECT_MIN = 640;
export const DETECT_LONG = 1024;

/**
 * Faces in photo coordinates. The mesh does not get more precise on a larger
 * copy (its resolution is the model's), but on small photos (faces of ~150
 * px) Human's integer coordinates do: those are detected on an enlarged copy.
 */
export async function detectFaces(engine: FaceModels, photo: Canvas): Promise<DetectedFace[]> {
  const long = Math.max(photo.width, photo.height);
  if (long >= DETECT_MIN) return await engine.detect(photo);
  const k = DETECT_LONG / long;
  const { data, info } = await sharp(photo.data, {
    raw: { width: photo.width, height: photo.height, channels: 3 },
  })
    .resize(Math.round(photo.width * k), Math.round(photo.height * k), { kernel: "cubic" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const faces = await engine.detect({
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    ...info,
  });
  const sx = photo.width / info.width, sy = photo.height / info.height;
  return faces.map((f) => ({
    ...f,
    box: [f.box[0] * sx, f.box[1] * sy, f.box[2] * sx, f.box[3] * sy],
    mesh: f.mesh.map((p): [number, number] => [p[0] * sx, p[1] * sy]),
  }));
}
