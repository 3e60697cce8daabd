/**
 * Worker thread for the hosted models' output check: the local model's face
 * detector (FaceEngine, decodePhoto and detectFaces reused from
 * server/imaging/local), answering how many faces an image shows. Detection
 * blocks its thread for ~70 ms, so it never runs on the HTTP event loop.
 */
/// <reference lib="deno.worker" />
import { FaceEngine } from "../local/face-engine.ts";
import { faceGeometry } from "../local/face-geometry.ts";
import { decodePhoto, detectFaces } from "../local/render.ts";

export type FaceCheckIn = { id: number; image: Uint8Array };
export type FaceCheckOut =
  | { type: "ready" }
  | { type: "fatal"; message: string }
  | {
    type: "result";
    id: number;
    faces: number;
    largestFaceWidth: number;
    /** The largest face's eye centre and cheek-to-cheek width, as fractions of the image size. */
    eye?: [number, number];
    meshWidth?: number;
    error?: string;
  };

const post = (msg: FaceCheckOut) => self.postMessage(msg);
const engine = FaceEngine.load();
engine.then(
  () => post({ type: "ready" }),
  (err) => post({ type: "fatal", message: String(err?.stack ?? err) }),
);

self.onmessage = async (ev: MessageEvent<FaceCheckIn>) => {
  const { id, image } = ev.data;
  try {
    const photo = await decodePhoto(image);
    const faces = (await detectFaces(await engine, photo)).filter((f) => f.score >= 0.5);
    const largest = faces.reduce((m, f) => Math.max(m, f.box[2]), 0);
    const g = faces[0] ? faceGeometry(faces[0].mesh) : undefined;
    post({
      type: "result",
      id,
      faces: faces.length,
      largestFaceWidth: largest / photo.width,
      ...(g
        ? {
          eye: [g.eyeCenter[0] / photo.width, g.eyeCenter[1] / photo.height] as [number, number],
          meshWidth: g.fw / photo.width,
        }
        : {}),
    });
  } catch (err) {
    post({
      type: "result",
      id,
      faces: 0,
      largestFaceWidth: 0,
      error: String((err as Error)?.message ?? err),
    });
  }
};
