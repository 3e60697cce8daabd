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
import { hexToLab, hueDegrees, luminance, SRGB_TO_LINEAR } from "../../server/imaging/local/color.ts";
import {
  cropFace,
  darkerCopy,
  decode,
  type Decoded,
  FRONTAL_FACES,
  job,
  plainAndStyled,
  renderKept,
} from "./fixtures.ts";
import { skinMeanLinear } from "../../server/imaging/local/skin-tone.ts";

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

Deno.test("photo exposure: a shade under a warm cast turns toward red, its L* kept", () => {
  // L* decides whether dark hair would need bleaching: a cast must not move it (a warm cast once lifted Honey
  // Blonde's L* by 1.6 and refused the dye on sample5@1319's warm copy).
  const honey = hexToLab("#C69A5B"), hue = (c: number[]) => hueDegrees(c[1], c[2]);
  for (const exposure of [1, 0.6]) {
    const plain = litShade(honey, exposure), warm = litShade(honey, exposure, [1.08, 0.98, 0.92]);
    assert.ok(
      Math.abs(warm[0] - plain[0]) < 0.01,
      `L* ${warm[0].toFixed(2)} under the cast, ${plain[0].toFixed(2)}`,
    );
    assert.ok(
      hue(plain) - hue(warm) > 2,
      `hue ${hue(warm).toFixed(1)} under the cast, ${hue(plain).toFixed(1)}`,
    );
  }
  // A neutral cast leaves the shade (to the round trip's rounding).
  const neutral = litShade(honey, 1, [1, 1, 1]);
  assert.ok(neutral.every((v, i) => Math.abs(v - honey[i]) < 1e-3), `${neutral} under a neutral cast`);
});

Deno.test("a dim photo's person is brought up toward a new backdrop's light, a well-exposed one is not", async () => {
  // The backdrops are drawn as well-exposed photos; a person kept at a dim photo's exposure read as a dark
  // cut-out in front of Beach Sunset. The face skin's luminance at Beach Sunset, a copy darkened about 1.7 stops
  // (sRGB x 0.58) over the original: sample6@1081 0.31 before (the darkening itself), 0.60 now (lifted by
  // 1 / 0.50, its exposure); the original's face is as bright as in its plain render (exposure 1).
  const photo = await cropFace(FRONTAL_FACES[13]);
  const dark = await darkerCopy(photo);
  const faceY = async (bytes: Uint8Array, changes: Record<string, string>) => {
    const img = await decode((await renderKept(engine, job(bytes, changes, undefined, "hair"))).image);
    const skin = skinMeanLinear(img, faceGeometry((await engine.detect(img))[0].mesh));
    return luminance(skin[0], skin[1], skin[2]);
  };
  const beach = { setting: "beach-sunset" };
  const [orig, origPlain, dim] = [
    await faceY(photo, beach),
    await faceY(photo, {}),
    await faceY(dark, beach),
  ];
  console.log(
    `face luminance at Beach Sunset: original ${orig.toFixed(3)} (plain ${origPlain.toFixed(3)}), dark copy ${
      dim.toFixed(3)
    }, ratio ${(dim / orig).toFixed(2)}`,
  );
  assert.ok(dim / orig >= 0.5, `the dark copy's face is ${(dim / orig).toFixed(2)} of the original's`);
  assert.ok(
    Math.abs(orig / origPlain - 1) < 0.12,
    "a well-exposed photo's face keeps its light (the relight's colour only)",
  );
});

Deno.test("blush flushes a darker copy's cheeks about as deep as the portrait's", async () => {
  // Blush strength is bounded in ΔE, and Lab differences shrink with the light: judged on the dim skin itself,
  // Berry Flush at the default intensity flushed copies darkened to 0.58 of their light (sRGB x 0.58) deeper than
  // the portraits (mean log gain of green over the cheeks it reddened): sample4@908 1.21 times (sample6@1081 and
  // sample5@727 1.42 and 1.25 on lossless copies). Judged on the skin as a well-exposed photo shows it (the skin
  // over the photo's exposure): 1.08 / 1.15 / 1.00.
  const intensity = { lookStyle: 60, eyeshadow: 60, lips: 60, baseMakeup: 60, cheeks: 60, extras: 60 };
  const ratios: number[] = [];
  for (const face of [FRONTAL_FACES[9], FRONTAL_FACES[13], FRONTAL_FACES[10]]) {
    const photo = await cropFace(face);
    const lit = await plainAndStyled(engine, photo, { cheeks: "berry-flush" }, intensity);
    // The cheeks: pixels the blush moved on the portrait (the darker copy's face is where the portrait's is).
    const cheeks: number[] = [];
    for (let p = 0; p < lit.plain.width * lit.plain.height; p++) {
      let moved = 0;
      for (let c = 0; c < 3; c++) moved += Math.abs(lit.plain.data[p * 3 + c] - lit.out.data[p * 3 + c]);
      if (moved > 12) cheeks.push(p);
    }
    const greenGain = ({ plain, out }: { plain: Decoded; out: Decoded }) => {
      let sum = 0;
      for (const p of cheeks) {
        sum += Math.log(
          Math.max(1e-4, SRGB_TO_LINEAR[out.data[p * 3 + 1]]) /
            Math.max(1e-4, SRGB_TO_LINEAR[plain.data[p * 3 + 1]]),
        );
      }
      return sum / cheeks.length;
    };
    const dim = await plainAndStyled(engine, await darkerCopy(photo), { cheeks: "berry-flush" }, intensity);
    const ratio = greenGain(dim) / greenGain(lit);
    console.log(`sample${face[0]}@${face[1]}: ${cheeks.length} px, darker copy's flush ${ratio.toFixed(2)}x`);
    assert.ok(cheeks.length > 300, "the blush reddened the cheeks");
    assert.ok(
      ratio <= 1.18,
      `sample${face[0]}@${face[1]}: the darker copy flushed ${ratio.toFixed(2)}x as deep`,
    );
    ratios.push(ratio);
  }
  const mean = ratios.reduce((a, b) => a + b) / ratios.length;
  assert.ok(mean <= 1.12, `darker copies flushed ${mean.toFixed(2)}x as deep on average`);
});
