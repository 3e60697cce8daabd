/**
 * A worker's photo cache (PhotoCache) keeps a photo's decode, faces, framing, person mask, matte plan and hair
 * measure between looks. A look renders the same whatever was styled on the photo before it and whatever the worker dropped
 * while idle, on real test portraits (read from @vladmandic/face-api's demo photos in node_modules at test time).
 */
import assert from "node:assert/strict";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { hairCacheBytes } from "../../server/imaging/local/hair-recolor.ts";
import { PhotoCache, render } from "../../server/imaging/local/render.ts";
import { assertSameImage } from "../helpers/same-bytes.ts";
import { cropFace, DARK_HAIR, FRONTAL_FACES, job } from "./fixtures.ts";

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

Deno.test("an idle trim keeps the hair measures of the photo used last, and its hair look still renders as a fresh one", async () => {
  const [earlier, last] = [FRONTAL_FACES[4], DARK_HAIR];
  const look = (photo: Uint8Array, hairColor: string) => job(photo, { hairColor }, undefined, "hair");
  const lastPhoto = await cropFace(last);
  const fresh = (await render(engine, look(lastPhoto, "copper-red"))).image;
  const cache = new PhotoCache();
  await render(engine, { ...look(await cropFace(earlier), "auburn"), cacheKey: "earlier" }, cache);
  await render(engine, { ...look(lastPhoto, "auburn"), cacheKey: "last" }, cache);
  const before = cache.bytes;
  cache.trim();
  // What each photo's framings hold after the trim: canvases and matte plans go everywhere; the hair's measure
  // (its plans) stays with the photo styled last only.
  const framings = (key: string) => [...cache.get(key)!.framed!.values()];
  assert.ok(framings("earlier").every((f) => !f.canvas && !f.plan && !f.hair), "the earlier photo kept more");
  assert.ok(framings("last").every((f) => !f.canvas && !f.plan), "the last photo kept its canvas or plan");
  assert.ok(
    framings("last").some((f) => (f.hair?.plans.size ?? 0) > 0 && hairCacheBytes(f.hair!) > 0),
    "the last photo's hair measure was dropped",
  );
  // The trim still gives back at least the 1080x1920 canvases of both photos.
  assert.ok(cache.bytes <= before - 2 * 1080 * 1920 * 3, `photo cache ${before} -> ${cache.bytes} bytes`);
  // Painted from the kept measure on a canvas framed again, the look is the fresh one, byte for byte.
  const afterTrim = await render(engine, { ...look(lastPhoto, "copper-red"), cacheKey: "last" }, cache);
  await assertSameImage(afterTrim.image, fresh, "the hair look after a trim differs from a fresh one");
});
