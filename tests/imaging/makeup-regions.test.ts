/**
 * Region checks on rendered output (not snapshots). Each look is compared with
 * a no-op render of the same photo (same framing, lossless PNG); landmarks are
 * found on the no-op output itself.
 */
import assert from "node:assert/strict";
import { deltaE, hexToLab } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { FACE_OVAL, LIPS_INNER, LIPS_OUTER } from "../../server/imaging/local/landmarks.ts";
import type { Point } from "../../server/imaging/local/masks.ts";
import {
  cropFace,
  decode,
  job,
  labOf,
  meanLab,
  meanPixelDeltaE,
  OPEN_MOUTH,
  polygonPixels,
  renderKept,
  ZERO_INTENSITY,
} from "./fixtures.ts";

const engine = await FaceEngine.load();
const photo = await cropFace(OPEN_MOUTH);
const plain = await decode((await renderKept(engine, job(photo))).image);
const faces = await engine.detect(plain);
const g = faceGeometry(faces[0].mesh);
const poly = (idx: number[]): Point[] => idx.map((i) => g.pts[i]);
const lipCore = polygonPixels(plain, poly(LIPS_OUTER), 2, 0.9)
  .filter((p) => !new Set(polygonPixels(plain, poly(LIPS_INNER), 0, 0.01)).has(p));
// The teeth in the mouth opening: lighter and much less red than the lip (lip inside the mesh's
// inner outline is lip, and is painted).
const lipLab = meanLab(plain, lipCore);
const mouthHole = polygonPixels(plain, poly(LIPS_INNER), 1.5, 0.95).filter((p) => {
  const [L, a] = labOf(plain, p);
  return L > lipLab[0] + 12 && a < 0.5 * lipLab[1];
});

/** Pixels outside a generous head ellipse (background, clothes). */
function outsideHead(): number[] {
  const out: number[] = [];
  const [cx, cy] = g.center;
  for (let y = 0; y < plain.height; y += 3) {
    for (let x = 0; x < plain.width; x += 3) {
      const ex = (x - cx) / (1.4 * g.fw), ey = (y - cy) / (1.5 * g.fh);
      if (ex * ex + ey * ey > 1) out.push(y * plain.width + x);
    }
  }
  return out;
}

function forehead(): number[] {
  const p = g.pts[151], r = 0.06 * g.fw;
  const out: number[] = [];
  for (let y = Math.round(p[1] - r); y <= p[1] + r; y++) {
    for (let x = Math.round(p[0] - r); x <= p[0] + r; x++) out.push(y * plain.width + x);
  }
  return out;
}

Deno.test("lipstick: lip colour moves to the swatch, the rest of the frame stays", async () => {
  assert.ok(lipCore.length > 500, `lip pixels ${lipCore.length}`);
  for (
    const [id, hex] of [["classic-red-matte", "#B22234"], ["nude-satin", "#B57F6E"], [
      "plum-matte",
      "#5C2340",
    ]]
  ) {
    const out = await decode((await renderKept(engine, job(photo, { lips: id }))).image);
    const swatch = hexToLab(hex);
    const before = deltaE(meanLab(plain, lipCore), swatch);
    const after = deltaE(meanLab(out, lipCore), swatch);
    assert.ok(after <= 12, `${id}: ΔE to swatch ${after.toFixed(1)} > 12`);
    assert.ok(after < before, `${id}: ΔE ${after.toFixed(1)} not below original ${before.toFixed(1)}`);
    assert.ok(meanPixelDeltaE(plain, out, forehead()) < 2, `${id}: forehead changed`);
    assert.ok(meanPixelDeltaE(plain, out, outsideHead()) < 2, `${id}: background changed`);
    const teeth = meanPixelDeltaE(plain, out, mouthHole);
    assert.ok(mouthHole.length > 100, `mouth opening (teeth) pixels ${mouthHole.length}`);
    assert.ok(teeth <= 3, `${id}: teeth ΔE ${teeth.toFixed(2)} > 3`);
  }
});

Deno.test("intensity 0 is the identity: ΔE < 1 on 99.9% of the frame, < 0.5 in the face", async () => {
  const out = await decode(
    (await renderKept(
      engine,
      job(photo, {
        lookStyle: "evening-glam",
        lips: "classic-red-matte",
        eyeshadow: "plum",
        baseMakeup: "matte-full-coverage",
        cheeks: "berry-flush",
        extras: "full-glam",
      }, ZERO_INTENSITY),
    )).image,
  );
  let moved = 0;
  const n = plain.width * plain.height;
  for (let p = 0; p < n; p++) if (deltaE(labOf(plain, p), labOf(out, p)) >= 1) moved++;
  assert.ok(moved / n <= 0.001, `${moved} of ${n} pixels changed`);
  let max = 0;
  for (const p of polygonPixels(plain, poly(FACE_OVAL), 0, 0.5)) {
    max = Math.max(max, deltaE(labOf(plain, p), labOf(out, p)));
  }
  assert.ok(max < 0.5, `max ΔE in the face ${max.toFixed(2)}`);
});

Deno.test("a full look changes the face but not the eyes' openings", async () => {
  const out = await decode((await renderKept(engine, job(photo, { lookStyle: "smokey-eye" }))).image);
  const face = polygonPixels(plain, poly(FACE_OVAL), 0, 0.5);
  assert.ok(meanPixelDeltaE(plain, out, face) > 1, "the look is visible");
  const { EYE_L, EYE_R } = await import("../../server/imaging/local/landmarks.ts");
  const eyes = [...polygonPixels(plain, poly(EYE_R), 1, 0.95), ...polygonPixels(plain, poly(EYE_L), 1, 0.95)];
  assert.ok(meanPixelDeltaE(plain, out, eyes) < 3, "eyes untouched");
});
