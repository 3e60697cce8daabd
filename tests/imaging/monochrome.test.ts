/**
 * Black-and-white photos are styled and their results kept black and white, with a note saying so; colour
 * photos are not touched by this.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { isMonochrome } from "../../server/imaging/local/monochrome.ts";
import { cropFace, decode, type Decoded, FRONTAL_FACES, job, renderKept } from "./fixtures.ts";

const engine = await FaceEngine.load();
const NOTE = "The photo is black and white, so the result is too: the colours chosen show as shades of grey";

/** Share of pixels whose channels differ by more than 12 levels. */
function colouredShare(img: Decoded): number {
  let n = 0;
  for (let o = 0; o < img.data.length; o += 3) {
    const r = img.data[o], g = img.data[o + 1], b = img.data[o + 2];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 12) n++;
  }
  return n / (img.width * img.height);
}

Deno.test("a black-and-white portrait is styled in black and white, with a note; a colour one keeps its colour", async () => {
  // Painted as any photo, a black-and-white portrait came back as colour on grey: auburn hair and berry lips on
  // a grey face (sample6@1081: 22.3 % of the result's pixels coloured, the look's own colours).
  const colour = await cropFace(FRONTAL_FACES[13]);
  const grey = new Uint8Array(
    await sharp(colour).grayscale().toColourspace("srgb").jpeg({ quality: 92 }).toBuffer(),
  );
  const look = { hairColor: "auburn", lips: "berry-gloss" };
  const plain = await renderKept(engine, job(grey, {}, undefined, "hair"));
  const styled = await renderKept(engine, job(grey, look, undefined, "hair"));
  const out = await decode(styled.image), before = await decode(plain.image);
  console.log(`black and white: ${(100 * colouredShare(out)).toFixed(2)} % of the result coloured`);
  assert.equal(colouredShare(out), 0);
  assert.ok(styled.notes.includes(NOTE), JSON.stringify(styled.notes));
  // The look is still applied: the dyed hair and the lips are another grey than the photo's.
  let moved = 0;
  for (let o = 0; o < out.data.length; o += 3) if (Math.abs(out.data[o] - before.data[o]) > 8) moved++;
  assert.ok(moved > 20_000, `${moved} px changed by the look`);
  // A colour photo keeps its colours and has no such note.
  const inColour = await renderKept(engine, job(colour, look, undefined, "hair"));
  assert.ok(!inColour.notes.includes(NOTE));
  assert.ok(colouredShare(await decode(inColour.image)) > 0.2);
});

Deno.test("black and white: a toned (sepia) photo and a grey one with a little colour are told apart", () => {
  const canvas = (f: (k: number) => [number, number, number]) => {
    const w = 200, h = 200, data = new Uint8Array(w * h * 3);
    for (let k = 0; k < w * h; k++) data.set(f(k), k * 3);
    return { width: w, height: h, data };
  };
  // Grey with JPEG-like noise of a few levels: black and white.
  assert.equal(isMonochrome(canvas((k) => [100 + (k % 5), 102, 99 + (k % 3)])), true);
  // A sepia print (channels 20-30 levels apart everywhere): a colour, kept.
  assert.equal(isMonochrome(canvas((k) => [140 + (k % 40), 120 + (k % 40), 100 + (k % 40)])), false);
  // Grey but for a face's worth of skin (4 % of the pixels): colour.
  assert.equal(isMonochrome(canvas((k) => (k % 25 === 0 ? [200, 150, 120] : [90, 90, 90]))), false);
});
