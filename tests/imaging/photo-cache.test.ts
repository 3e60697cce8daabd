/**
 * A worker's photo cache (PhotoCache) keeps a photo's decode, faces, framing, person mask and matte plan between
 * looks. A look renders the same whatever was styled on the photo before it and whatever the worker dropped
 * while idle, on real test portraits (read from @vladmandic/face-api's demo photos in node_modules at test time).
 */
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { PhotoCache, render } from "../../server/imaging/local/render.ts";
import { assertSameImage } from "../helpers/same-bytes.ts";
import { cropFace, FRONTAL_FACES, job } from "./fixtures.ts";

const engine = await FaceEngine.load();

/** Demo faces whose scene look, planned without its cells' colours, came out unlike a fresh render's. */
const FACES = [
  FRONTAL_FACES.find((f) => f[0] === 2 && f[1] === 1370)!,
  FRONTAL_FACES.find((f) => f[0] === 5 && f[1] === 1045)!,
];

Deno.test("a scene look renders as a fresh one after a look without a scene, and after the worker trimmed its plans", async (t) => {
  for (const face of FACES) {
    await t.step(`sample${face[0]}@${face[1]}`, async () => {
      const photo = await cropFace(face);
      const scene = job(photo, { setting: "beach-sunset", lips: "classic-red-matte" });
      const fresh = (await render(engine, scene)).image;
      // A hair colour segments the person and keeps the mask, with no matte plan: the scene look plans it.
      const afterHair = new PhotoCache();
      await render(engine, { ...job(photo, { hairColor: "auburn" }), cacheKey: "photo" }, afterHair);
      const planned = await render(engine, { ...scene, cacheKey: "photo" }, afterHair);
      await assertSameImage(
        planned.image,
        fresh,
        "the scene look after a hair colour differs from a fresh one",
      );
      // An idle worker drops its plans and canvases and keeps the masks (see PhotoCache.trim).
      afterHair.trim();
      const trimmed = await render(engine, { ...scene, cacheKey: "photo" }, afterHair);
      await assertSameImage(trimmed.image, fresh, "the scene look after a trim differs from a fresh one");
    });
  }
});
