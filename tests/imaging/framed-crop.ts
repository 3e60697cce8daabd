/**
 * Test and bench helpers: a photo framed at W x H as a render frames it (no camera), with its
 * faces, the chosen one (the largest), its box on the canvas, the framing and the person mask. Used by the
 * matte tests and benches that measure on real crops without the rest of the render. And a demo portrait as
 * the renderer outputs it (renderedPortrait), for tests of a stage run on the render's canvas.
 */
import type { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { mapPoints, planFraming, renderFramed } from "../../server/imaging/local/framing.ts";
import { neighbourHeads, personMask } from "../../server/imaging/local/person-mask.ts";
import { decodePhoto, detectFaces } from "../../server/imaging/local/photo-faces.ts";
import { cropFace, decode, job, renderKept } from "./fixtures.ts";

export async function framedCrop(engine: FaceEngine, bytes: Uint8Array, W = 1080, H = 1920) {
  const found = await framedFaces(engine, bytes, W, H);
  if (!found) return undefined;
  const { photo, faces, face, framing, framed, g } = found;
  const others = neighbourHeads(faces, face, photo, framing);
  const person = await personMask(engine, framed, g, framing.photoRect, others, { photo, ...framing });
  return { ...found, person };
}

/** framedCrop without the person mask (its segmentation is ~half of framedCrop's time), for tests of the face. */
export async function framedFaces(engine: FaceEngine, bytes: Uint8Array, W = 1080, H = 1920) {
  const photo = await decodePhoto(bytes);
  const faces = await detectFaces(engine, photo);
  if (faces.length === 0) return undefined;
  const face = faces.reduce((a, b) => (a.box[2] * a.box[3] >= b.box[2] * b.box[3] ? a : b));
  const src = faceGeometry(face.mesh);
  const framing = planFraming({
    photoW: photo.width,
    photoH: photo.height,
    eye: src.eyeCenter,
    faceWidth: src.fw,
    outW: W,
    outH: H,
  });
  const framed = await renderFramed(photo, framing);
  const g = faceGeometry(mapPoints(face.mesh, framing));
  const [bx, by, bw, bh] = face.box;
  const box = [
    bx * framing.scale + framing.offsetX,
    by * framing.scale + framing.offsetY,
    bw * framing.scale,
    bh * framing.scale,
  ];
  return { photo, faces, face, framing, framed, g, box };
}

/**
 * A demo portrait (a FRONTAL_FACES entry) as the renderer frames it: its plain render in the hair studio,
 * the face found on it and its person mask over the whole canvas (no neighbours).
 */
export async function renderedPortrait(engine: FaceEngine, face: [number, number, number, number]) {
  const framed = await decode(
    (await renderKept(engine, job(await cropFace(face), {}, undefined, "hair"))).image,
  );
  const g = faceGeometry((await engine.detect(framed))[0].mesh);
  const person = await personMask(
    engine,
    framed,
    g,
    { x: 0, y: 0, w: framed.width, h: framed.height },
    false,
  );
  return { framed, g, person };
}
