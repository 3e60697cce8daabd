/**
 * A flash's red pupils are darkened before anything is painted (red-eye.ts), and no other eye is touched.
 * Measured on the demo portraits framed at 1080x1920 as a render frames them: sample6@1402 (both pupils
 * glow red), sample6@587 (one pink pupil) and the fourteen other frontal faces (brown, hazel, blue and grey
 * irises, three under a pink or purple light, one in a warm dim light).
 */
import assert from "node:assert/strict";
import { srgbToLab } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import type { FaceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { IRIS_L, IRIS_R } from "../../server/imaging/local/landmarks.ts";
import { dist } from "../../server/imaging/local/masks.ts";
import { correctRedEyes } from "../../server/imaging/local/red-eye.ts";
import { cropFace, decode, type Decoded, FRONTAL_FACES, job, renderKept } from "./fixtures.ts";
import { framedFaces } from "./framed-crop.ts";

const engine = await FaceEngine.load();

/** sample6@1402 (two red eyes) and sample6@587 (one). */
const RED = [{ face: FRONTAL_FACES[14], eyes: 2 }, { face: FRONTAL_FACES[15], eyes: 1 }];

/** Each iris's centre and radius on the canvas. */
function irises(g: FaceGeometry): { c: [number, number]; r: number }[] {
  return [IRIS_R, IRIS_L].map((i) => ({
    c: g.pts[i],
    r: [1, 2, 3, 4].reduce((s, k) => s + dist(g.pts[i], g.pts[i + k]), 0) / 4,
  }));
}

/** Per iris, its pixels within 1.5 radii: how many glow red (a* well above b*, lit) and the lightest L*. */
function pupils(img: Decoded, g: FaceGeometry): { red: number; lightest: number }[] {
  return irises(g).map(({ c, r }) => {
    let red = 0, lightest = 0;
    for (let y = Math.floor(c[1] - 1.5 * r); y <= c[1] + 1.5 * r; y++) {
      for (let x = Math.floor(c[0] - 1.5 * r); x <= c[0] + 1.5 * r; x++) {
        if (Math.hypot(x + 0.5 - c[0], y + 0.5 - c[1]) > 1.5 * r) continue;
        const i = (y * img.width + x) * 3;
        const [L, a, b] = srgbToLab(img.data[i], img.data[i + 1], img.data[i + 2]);
        if (a - 0.6 * Math.max(0, b) >= 9 && Math.atan2(b, a) > -0.35 && L >= 32) red++;
        lightest = Math.max(lightest, L);
      }
    }
    return { red, lightest };
  });
}

Deno.test("a flash's red pupils are darkened, their glint kept, and nothing beyond the eyes changes", async () => {
  for (const { face, eyes } of RED) {
    const f = (await framedFaces(engine, await cropFace(face)))!;
    const before = { ...f.framed, data: f.framed.data.slice() };
    assert.equal(correctRedEyes(f.framed, f.g), eyes, `${face.join("@")}: eyes corrected`);
    const was = pupils(before, f.g), now = pupils(f.framed, f.g);
    // Before: a red pupil holds 100-400 glowing red pixels at this size; after, a few of its rim at most.
    assert.equal(
      was.filter((p) => p.red >= 60).length,
      eyes,
      `${face.join("@")}: red pupils ${JSON.stringify(was)}`,
    );
    for (const [k, p] of now.entries()) {
      assert.ok(
        p.red <= 0.1 * was[k].red + 3,
        `${face.join("@")} eye ${k}: ${was[k].red} -> ${p.red} red pixels`,
      );
      assert.ok(
        p.lightest >= was[k].lightest - 5,
        `${face.join("@")} eye ${k}: glint L* ${was[k].lightest} -> ${p.lightest}`,
      );
    }
    // Only pixels within three iris radii of an iris changed.
    const eyesAt = irises(f.g);
    for (let p = 0; p < f.framed.width * f.framed.height; p++) {
      const i = p * 3;
      if (
        before.data[i] === f.framed.data[i] && before.data[i + 1] === f.framed.data[i + 1] &&
        before.data[i + 2] === f.framed.data[i + 2]
      ) continue;
      const x = p % f.framed.width, y = Math.floor(p / f.framed.width);
      assert.ok(eyesAt.some(({ c, r }) => Math.hypot(x - c[0], y - c[1]) <= 3 * r), `changed at ${x},${y}`);
    }
  }
});

Deno.test("no other eye is touched: brown, hazel, blue and grey irises, a pink or purple light, a warm dim photo", async () => {
  for (const [k, face] of FRONTAL_FACES.entries()) {
    if (k === 14 || k === 15) continue;
    const f = (await framedFaces(engine, await cropFace(face)))!;
    const before = f.framed.data.slice();
    assert.equal(correctRedEyes(f.framed, f.g), 0, `${face.join("@")}: an eye was taken for red`);
    assert.deepEqual(f.framed.data, before, `${face.join("@")}: pixels changed`);
  }
});

Deno.test("a render shows the red pupils darkened, at the result's size and the preview's", async () => {
  const face = FRONTAL_FACES[14];
  for (const [width, height] of [[1080, 1920], [540, 960]]) {
    const f = (await framedFaces(engine, await cropFace(face), width, height))!;
    const out = await decode(
      (await renderKept(engine, { ...job(await cropFace(face)), width, height })).image,
    );
    assert.equal(out.width, f.framed.width);
    const was = pupils(f.framed, f.g), now = pupils(out, f.g);
    for (const [k, p] of now.entries()) {
      const least = width === 1080 ? 60 : 15;
      assert.ok(
        was[k].red >= least && p.red <= 0.1 * was[k].red + 3,
        `${width}: eye ${k}: ${was[k].red} -> ${p.red}`,
      );
    }
  }
});
