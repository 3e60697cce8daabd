import assert from "node:assert/strict";
import { deltaE, hexToLab, type Lab } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { SKIN_SAMPLES } from "../../server/imaging/local/landmarks.ts";
import { render } from "../../server/imaging/local/render.ts";
import { cropFace, DARK_HAIR, decode, job, meanLab, meanPixelDeltaE } from "./fixtures.ts";

const engine = await FaceEngine.load();

const hue = (l: Lab) => Math.atan2(l[2], l[1]);
const hueDist = (a: number, b: number) => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));

Deno.test("hair recolour moves the hair toward the target and leaves skin alone", async () => {
  const photo = await cropFace(DARK_HAIR);
  const plain = await decode((await render(engine, job(photo, {}, undefined, "hair"))).image);
  const g = faceGeometry((await engine.detect(plain))[0].mesh);
  const res = await render(engine, job(photo, { hairColor: "copper-red" }, undefined, "hair"));
  assert.deepEqual(res.notes, []);
  const out = await decode(res.image);
  // Hair: a patch above the forehead.
  const top = g.pts[10];
  const hair: number[] = [];
  for (let y = Math.round(top[1] - 0.25 * g.fh); y < top[1] - 0.1 * g.fh; y++) {
    for (let x = Math.round(top[0] - 0.2 * g.fw); x < top[0] + 0.2 * g.fw; x++) {
      hair.push(y * plain.width + x);
    }
  }
  const target = hexToLab("#B4532A");
  const before = meanLab(plain, hair), after = meanLab(out, hair);
  assert.ok(hueDist(hue(after), hue(target)) < hueDist(hue(before), hue(target)), "hue moves toward target");
  assert.ok(
    deltaE(after, target) < deltaE(before, target) - 5,
    `ΔE ${deltaE(before, target).toFixed(1)} -> ${deltaE(after, target).toFixed(1)}`,
  );
  // Skin: small patches at plain-skin mesh points.
  const skin: number[] = [];
  for (const i of SKIN_SAMPLES) {
    const [x, y] = g.pts[i];
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) skin.push((Math.round(y) + dy) * plain.width + Math.round(x) + dx);
    }
  }
  const skinDe = meanPixelDeltaE(plain, out, skin);
  assert.ok(skinDe <= 3, `skin ΔE ${skinDe.toFixed(2)}`);
});

Deno.test("blonde hair in mixed light: recolour is skipped and reported", async () => {
  const res = await render(
    engine,
    job(await cropFace([3, 1005, 187, 367]), { hairColor: "jet-black" }, undefined, "hair"),
  );
  assert.ok(
    res.notes.some((n) => n.startsWith('Hair colour "Jet Black" was not applied')),
    res.notes.join("; "),
  );
});

Deno.test("bleaching dark hair to platinum is refused with a note, not painted grey", async () => {
  const photo = await cropFace(DARK_HAIR);
  const plain = await render(engine, job(photo, {}, undefined, "hair"));
  const res = await render(engine, job(photo, { hairColor: "platinum-blonde" }, undefined, "hair"));
  assert.ok(
    res.notes.some((n) =>
      n.startsWith('Hair colour "Platinum Blonde" was not applied: lightening dark hair')
    ),
    res.notes.join("; "),
  );
  const a = await decode(plain.image), b = await decode(res.image);
  const all = Array.from({ length: a.width * a.height }, (_, i) => i).filter((i) => i % 97 === 0);
  assert.ok(meanPixelDeltaE(a, b, all) < 0.5, "the image is left as it was");
});
