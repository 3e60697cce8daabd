/**
 * The photo's exposure (photoExposure), which lights a dye's shade: 1 on a well-exposed portrait, lower on a
 * darkened copy, and 1 again when the darkened copy holds a white highlight (its face as dark as deep skin in
 * good light).
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { litShade, photoExposure } from "../../server/imaging/local/photo-exposure.ts";
import { hexToLab } from "../../server/imaging/local/color.ts";
import { cropFace, decode, FRONTAL_FACES } from "./fixtures.ts";

const engine = await FaceEngine.load();

async function exposureOf(bytes: Uint8Array): Promise<number> {
  const img = await decode(bytes);
  return photoExposure(img, faceGeometry((await engine.detect(img))[0].mesh));
}

Deno.test("photo exposure: well exposed 1, a darkened copy less, the copy with a white highlight 1", async () => {
  const photo = await cropFace(FRONTAL_FACES[13]);
  const meta = await sharp(photo).metadata();
  const darkened = (k: number) => sharp(photo).linear(k, 0);
  const well = await exposureOf(new Uint8Array(await sharp(photo).png().toBuffer()));
  const dim = await exposureOf(new Uint8Array(await darkened(0.58).png().toBuffer()));
  const darker = await exposureOf(new Uint8Array(await darkened(0.4).png().toBuffer()));
  // A white band across the top tenth of the darkened copy: the light was good, the face is dark.
  const band = await sharp({
    create: { width: meta.width!, height: Math.round(meta.height! / 10), channels: 3, background: "#fff" },
  }).png().toBuffer();
  // (sharp applies linear() after composite(): darkened first, then the band laid on.)
  const darkBytes = await darkened(0.58).png().toBuffer();
  const lit = await exposureOf(
    new Uint8Array(await sharp(darkBytes).composite([{ input: band, top: 0, left: 0 }]).png().toBuffer()),
  );
  console.log(
    `exposure: well exposed ${well.toFixed(2)}, x0.58 ${dim.toFixed(2)}, x0.4 ${
      darker.toFixed(2)
    }, x0.58 + white ${lit.toFixed(2)}`,
  );
  assert.equal(well, 1);
  assert.ok(
    dim < 0.75 && darker < dim,
    `darker copies read darker (${dim.toFixed(2)}, ${darker.toFixed(2)})`,
  );
  assert.ok(darker >= 0.2, "never under the floor");
  assert.equal(lit, 1);
});

Deno.test("photo exposure: a shade lit at an exposure keeps its hue, its luminance scaled", () => {
  const auburn = hexToLab("#7E2E1F");
  assert.deepEqual(litShade(auburn, 1), auburn);
  const lit = litShade(auburn, 0.5);
  const Y = (L: number) => ((L + 16) / 116) ** 3;
  assert.ok(Math.abs(Y(lit[0]) / Y(auburn[0]) - 0.5) < 0.01, `luminance halved (L* ${lit[0].toFixed(1)})`);
  const hue = (c: number[]) => Math.atan2(c[2], c[1]) * 180 / Math.PI;
  assert.ok(Math.abs(hue(lit) - hue(auburn)) < 1, "hue kept");
});
