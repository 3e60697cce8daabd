import assert from "node:assert/strict";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import {
  chooseFace,
  decodePhoto,
  detectFaces,
  NO_FACE_MESSAGE,
  UserFacingError,
} from "../../server/imaging/local/render.ts";
import { cropFace, FRONTAL_FACES, landscape } from "./fixtures.ts";

const engine = await FaceEngine.load();

Deno.test("a face is found on every frontal face crop", async () => {
  for (const face of FRONTAL_FACES) {
    const photo = await decodePhoto(await cropFace(face));
    const faces = await detectFaces(engine, photo);
    const chosen = chooseFace(faces, photo.width, photo.height);
    assert.equal(chosen.mesh.length, 478, `sample${face[0]} ${face.slice(1)}`);
  }
});

Deno.test("no face on a landscape without people", async () => {
  const photo = await decodePhoto(await landscape());
  const faces = await detectFaces(engine, photo);
  assert.throws(() => chooseFace(faces, photo.width, photo.height), (err) => {
    assert.ok(err instanceof UserFacingError);
    assert.equal(err.message, NO_FACE_MESSAGE);
    return true;
  });
});

Deno.test("a group photo with no dominant face is refused", async () => {
  const { samplePath } = await import("./fixtures.ts");
  const photo = await decodePhoto(await Deno.readFile(samplePath(3)));
  const faces = await detectFaces(engine, photo);
  assert.ok(faces.length >= 3);
  assert.throws(() => chooseFace(faces, photo.width, photo.height), UserFacingError);
});
