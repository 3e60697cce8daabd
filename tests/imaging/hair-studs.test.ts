/**
 * Studs and pearls by the ear lobes are kept out of the hair dye (server/imaging/local/hair-studs.ts): on
 * synthetic dark hair, and on the test portrait whose grey pearl Auburn used to dye.
 */
import assert from "node:assert/strict";
import { deltaE, type Lab, srgbToLab } from "../../server/imaging/local/color.ts";
import { clearStuds, earLobes, type LobeZone } from "../../server/imaging/local/hair-studs.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { render } from "../../server/imaging/local/render.ts";
import { cropFace, decode, type Decoded, FRONTAL_FACES, job } from "./fixtures.ts";

const W = 200, H = 200, FW = 400;
const ZONE: LobeZone = { x0: 20, y0: 20, x1: 180, y1: 180 };

/** Dark hair (sRGB 40) over the whole canvas, the dye at full strength, and `paint` drawn on top. */
function hairWith(paint: (x: number, y: number) => number | undefined) {
  const data = new Uint8Array(W * H * 3).fill(40);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const v = paint(x, y);
      if (v !== undefined) data.fill(v, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  }
  return { img: { data, width: W, height: H }, plane: new Float32Array(W * H).fill(1) };
}

const disc = (cx: number, cy: number, r: number, shine: boolean) => (x: number, y: number) => {
  const d = Math.hypot(x - cx, y - cy);
  if (shine && d <= 2) return 250;
  return d <= r ? 120 : undefined;
};

Deno.test("studs: a grey bead with a glint in dark hair is cleared; a bead without one, a streak, a blob at the zone's edge are not", () => {
  // A pearl of radius 10 (0.05 face widths across): cleared, with 2 pixels about it, and nothing else.
  const pearl = hairWith(disc(100, 100, 10, true));
  const cleared = clearStuds(pearl.img, pearl.plane, 0, 0, W, H, [ZONE], FW);
  assert.ok(cleared > Math.PI * 10 ** 2 && cleared < Math.PI * 13 ** 2, `${cleared} px cleared`);
  assert.equal(pearl.plane[100 * W + 100], 0);
  assert.equal(pearl.plane[100 * W + 100 + 14], 1, "the hair beside it keeps the dye");

  // The same bead, matte (no reflection 35 L* over the hair): it could be a lit curl.
  const matte = hairWith(disc(100, 100, 10, false));
  assert.equal(clearStuds(matte.img, matte.plane, 0, 0, W, H, [ZONE], FW), 0);
  // A light streak along the lengths, with a glint: sheen, not a stud (aspect over 1.8).
  const streak = hairWith((x, y) =>
    Math.abs(x - 100) <= 4 && Math.abs(y - 100) <= 30 ? (y === 100 ? 250 : 120) : undefined
  );
  assert.equal(clearStuds(streak.img, streak.plane, 0, 0, W, H, [ZONE], FW), 0);
  // A bead cut by the zone's edge: it runs on out of the place where lobes hang.
  const edge = hairWith(disc(25, 100, 10, true));
  assert.equal(clearStuds(edge.img, edge.plane, 0, 0, W, H, [ZONE], FW), 0);
  // A coloured bead (a lit brown lock's colour, chroma over 12) with a glint.
  const brown = hairWith(disc(100, 100, 10, true));
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const o = (y * W + x) * 3;
      if (brown.img.data[o] === 120) brown.img.data.set([150, 100, 60], o);
    }
  }
  assert.equal(clearStuds(brown.img, brown.plane, 0, 0, W, H, [ZONE], FW), 0);
  // No dye there, nothing to clear.
  const bare = hairWith(disc(100, 100, 10, true));
  bare.plane.fill(0);
  assert.equal(clearStuds(bare.img, bare.plane, 0, 0, W, H, [ZONE], FW), 0);
});

const labAt = (img: Decoded, x: number, y: number): Lab => {
  const o = (y * img.width + x) * 3;
  return srgbToLab(img.data[o], img.data[o + 1], img.data[o + 2]);
};

/** The mean Lab of a disc. */
function meanIn(img: Decoded, cx: number, cy: number, r0: number, r1: number): Lab {
  const sum: Lab = [0, 0, 0];
  let n = 0;
  for (let y = cy - r1; y <= cy + r1; y++) {
    for (let x = cx - r1; x <= cx + r1; x++) {
      const d = Math.hypot(x - cx, y - cy);
      if (d < r0 || d > r1) continue;
      const l = labAt(img, x, y);
      sum[0] += l[0], sum[1] += l[1], sum[2] += l[2], n++;
    }
  }
  return sum.map((v) => v / n) as Lab;
}

Deno.test("a grey pearl stud in dark lengths stays grey under Auburn; the lengths about it are dyed (sample2@1370)", async () => {
  // Her stud hangs in her dark lengths by her left ear lobe. Dyed as hair before, a peach-red bead: in a disc of
  // 14 px about it, the photo's L* 39, a* -0.7, b* -0.7 became L* 44, a* 20, b* 17 (ΔE 26).
  const engine = await FaceEngine.load();
  const photo = await cropFace(FRONTAL_FACES[3]);
  const plain = await decode((await render(engine, job(photo, {}, undefined, "hair"))).image);
  const out = await decode(
    (await render(engine, job(photo, { hairColor: "auburn" }, undefined, "hair"))).image,
  );
  const g = faceGeometry((await engine.detect(plain))[0].mesh);
  // The stud: in the lobe zone on the image's right, the centre of the lightest grey 9x9 square.
  const zone = earLobes(g.pts, g.fw)[1];
  let best = -1, at: [number, number] = [0, 0];
  for (let y = zone.y0 + 4; y < zone.y1 - 4; y += 2) {
    for (let x = zone.x0 + 4; x < Math.min(plain.width - 4, zone.x1 - 4); x += 2) {
      let L = 0, grey = true;
      for (let dy = -4; dy <= 4 && grey; dy += 2) {
        for (let dx = -4; dx <= 4; dx += 2) {
          const l = labAt(plain, x + dx, y + dy);
          L += l[0];
          if (Math.hypot(l[1], l[2]) > 8) grey = false;
        }
      }
      if (grey && L > best) best = L, at = [x, y];
    }
  }
  const before = meanIn(plain, at[0], at[1], 0, 10), after = meanIn(out, at[0], at[1], 0, 10);
  const ring = deltaE(meanIn(plain, at[0], at[1], 30, 40), meanIn(out, at[0], at[1], 30, 40));
  console.log(
    `sample2@1370's stud at ${at}: L* ${before[0].toFixed(1)} a* ${before[1].toFixed(1)} b* ${
      before[2].toFixed(1)
    } -> ` +
      `L* ${after[0].toFixed(1)} a* ${after[1].toFixed(1)} b* ${after[2].toFixed(1)}; the hair about it ΔE ${
        ring.toFixed(1)
      }`,
  );
  assert.ok(before[0] > 35, `the stud found is light (L* ${before[0].toFixed(1)})`);
  assert.ok(deltaE(before, after) < 6, `the stud changed by ΔE ${deltaE(before, after).toFixed(1)}`);
  assert.ok(ring > 10, `the hair about it is dyed (ΔE ${ring.toFixed(1)})`);
});
