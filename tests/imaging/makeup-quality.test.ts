/**
 * Makeup that reads as product, not paint, on real portraits: each layer is
 * painted on the unstyled 1080x1920 render with the renderer's own landmarks
 * and measured against the unstyled render (see makeup-metrics.ts):
 * highlighter inside its regions with a bounded lift, blush swept along the
 * cheekbone inside the face outline, skin texture kept under the heaviest
 * base and the full looks, liner never inside the eye opening and its wing
 * flicking up, plum eyeshadow visible on both lids at the default intensity
 * (also on a dim, turned face), blush kept off strands of hair.
 */
import assert from "node:assert/strict";
import { blushLayer, highlighterLayer } from "../../server/imaging/local/cheeks-and-face.ts";
import { eyeshadowLayer, linerLayer } from "../../server/imaging/local/eye-makeup.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { applyMakeup, planMakeup } from "../../server/imaging/local/makeup.ts";
import { DEFAULT_INTENSITY } from "../../server/styling/option-keys.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { LIPS_OUTER } from "../../server/imaging/local/landmarks.ts";
import type { Point } from "../../server/imaging/local/masks.ts";
import { FRONTAL_FACES, polygonPixels } from "./fixtures.ts";
import {
  blushOnStrands,
  blushOutsideFace,
  changed,
  copyOf,
  eyeOpenings,
  faceBox,
  faceOval,
  type FramedFace,
  framedFace,
  highlighterSpill,
  intensityAll,
  lidContrast,
  linerInEyes,
  makeupLook,
  skinTexture,
} from "./makeup-metrics.ts";

const engine = await FaceEngine.load();
// Three portraits in different light and skin tones, eyes open (a closed eye under heavy black
// liner shows no lid to measure).
const FACES = [FRONTAL_FACES[7], FRONTAL_FACES[10], FRONTAL_FACES[13]];
const framed: FramedFace[] = [];
for (const face of FACES) framed.push(await framedFace(engine, face));
const name = (i: number) => `sample${FACES[i][0]}@${FACES[i][1]}`;

Deno.test("highlighter: a bounded lift on cheekbones, nose bridge and cupid's bow only", () => {
  framed.forEach((f, i) => {
    const out = copyOf(f.plain);
    highlighterLayer(out, f.g, 1);
    const h = highlighterSpill(f.plain, out, f.g);
    console.log(
      `${name(i)}: outside ${(100 * h.spill).toFixed(1)}%, lift ${h.lift.toFixed(1)} L*, texture ${
        h.texture.toFixed(2)
      }`,
    );
    assert.ok(h.spill <= 0.03, `${name(i)}: ${(100 * h.spill).toFixed(1)}% of changed pixels outside`);
    assert.ok(h.lift >= 2 && h.lift <= 12, `${name(i)}: L* lift ${h.lift.toFixed(1)}`);
    assert.ok(h.texture >= 0.8, `${name(i)}: texture under the highlighter ${h.texture.toFixed(2)}`);
  });
});

Deno.test("blush: swept along the cheekbone, never past the face outline", () => {
  framed.forEach((f, i) => {
    const out = copyOf(f.plain);
    blushLayer(out, f.g, "#B2476B", 1);
    const b = blushOutsideFace(f.plain, out, f.g);
    console.log(`${name(i)}: outside ${b.outside} px, elongation ${b.elongation.toFixed(2)}`);
    assert.equal(b.outside, 0, `${name(i)}: blush pixels outside the face outline`);
    assert.ok(b.elongation >= 1.3, `${name(i)}: elongation ${b.elongation.toFixed(2)} (a disc is 1)`);
  });
});

Deno.test("skin keeps >= 0.8 of its fine texture under the heaviest base and the glam looks", () => {
  framed.forEach((f, i) => {
    for (
      const [label, options, v] of [
        ["airbrushed 100", makeupLook({ baseMakeup: "airbrushed" }), 100],
        ["matte full coverage 100", makeupLook({ baseMakeup: "matte-full-coverage" }), 100],
        ["Soft Glam 60", makeupLook({ lookStyle: "soft-glam" }), DEFAULT_INTENSITY],
        ["Evening Glam 100", makeupLook({ lookStyle: "evening-glam" }), 100],
      ] as const
    ) {
      const out = copyOf(f.plain);
      applyMakeup(out, f.g, planMakeup(options, intensityAll(v)));
      const kept = skinTexture(f.plain, out, f.g);
      assert.ok(kept >= 0.8, `${name(i)} ${label}: texture ${kept.toFixed(2)}`);
    }
  });
});

Deno.test("eyeliner (plain and winged) stays on the lid, never inside the eye opening", () => {
  framed.forEach((f, i) => {
    for (const wing of [false, true]) {
      const out = copyOf(f.plain);
      linerLayer(out, f.g, 1, wing);
      assert.ok(changed(f.plain, out, faceBox(f.plain, f.g), 3).length > 50, `${name(i)}: liner visible`);
      assert.equal(linerInEyes(f.plain, out, f.g), 0, `${name(i)} wing ${wing}: liner inside the eye`);
    }
  });
});

Deno.test("plum eyeshadow at the default intensity shows on both lids", () => {
  framed.forEach((f, i) => {
    const out = copyOf(f.plain);
    eyeshadowLayer(out, f.g, "#5E2F4E", DEFAULT_INTENSITY / 100);
    const s = lidContrast(f.plain, out, f.g);
    console.log(`${name(i)}: lid ΔE right ${s.right.toFixed(1)}, left ${s.left.toFixed(1)}`);
    assert.ok(
      Math.min(s.right, s.left) >= 6,
      `${name(i)}: lid ΔE ${s.right.toFixed(1)}/${s.left.toFixed(1)}`,
    );
    assert.ok(
      Math.min(s.right, s.left) / Math.max(s.right, s.left) >= 0.8,
      `${name(i)}: one-sided ${s.right.toFixed(1)}/${s.left.toFixed(1)}`,
    );
  });
});

Deno.test("plum eyeshadow shows on both lids of a dim, turned face and of a face with one lid in shadow", async () => {
  // sample5@1319: dim, warm light, head turned (the far lid foreshortened); sample4@908: one
  // deep-set lid in shadow. Both used to show one lid barely made up (ΔE 3.6, balance 0.55).
  for (const face of [FRONTAL_FACES[12], FRONTAL_FACES[9]]) {
    const f = await framedFace(engine, face);
    const out = copyOf(f.plain);
    eyeshadowLayer(out, f.g, "#5E2F4E", DEFAULT_INTENSITY / 100);
    const s = lidContrast(f.plain, out, f.g);
    const label = `sample${face[0]}@${face[1]}`;
    console.log(`${label}: lid ΔE right ${s.right.toFixed(1)}, left ${s.left.toFixed(1)}`);
    assert.ok(Math.min(s.right, s.left) >= 6, `${label}: lid ΔE ${s.right.toFixed(1)}/${s.left.toFixed(1)}`);
    assert.ok(
      Math.min(s.right, s.left) / Math.max(s.right, s.left) >= 0.75,
      `${label}: one-sided ${s.right.toFixed(1)}/${s.left.toFixed(1)}`,
    );
  }
});

Deno.test("blush leaves strands of hair falling over the cheek untouched and flushes the skin between them", () => {
  const s = blushOnStrands(framed[0], (img, g) => blushLayer(img, g, "#B2476B", 1));
  console.log(
    `${
      name(0)
    }: strand pixels changed ${s.onHair} of ${s.hair}, skin between flushed ${s.flushed} of ${s.skin}`,
  );
  assert.ok(s.hair > 300, `strands across the blush band: ${s.hair} px`);
  assert.ok(s.onHair <= 0.01 * s.hair, `${s.onHair} of ${s.hair} strand pixels took blush`);
  assert.ok(s.flushed >= 0.6 * s.skin, `skin between the strands flushed: ${s.flushed} of ${s.skin}`);
});

Deno.test("a winged liner flicks up from the outer corner even where the corners slope down outward", () => {
  const f = framed[0], fw = f.g.fw;
  // The mesh's outer corners placed 0.03 face widths low (as on a tilted face whose mesh is off).
  const pts = f.g.pts.map((p): Point => [p[0], p[1]]);
  for (const i of [33, 263]) pts[i] = [pts[i][0] - f.g.up[0] * 0.03 * fw, pts[i][1] - f.g.up[1] * 0.03 * fw];
  const g = faceGeometry(pts);
  const skin = copyOf(f.plain);
  for (let i = 0; i < skin.data.length; i += 3) skin.data.set([200, 160, 140], i);
  const out = copyOf(skin);
  linerLayer(out, g, 1, true);
  const moved = changed(skin, out, faceBox(skin, g), 3);
  const [ux, uy] = g.up;
  for (const [outer, inner] of [[33, 133], [263, 362]]) {
    const o = g.pts[outer], n = g.pts[inner];
    const ox = o[0] - n[0], oy = o[1] - n[1], ol = Math.hypot(ox, oy);
    // Wing pixels: past the outer corner along the eye's own axis.
    let tipHeight = -Infinity;
    let farthest = 0;
    for (const p of moved) {
      const x = p % out.width - o[0], y = Math.floor(p / out.width) - o[1];
      const beyond = (x * ox + y * oy) / ol;
      if (beyond > farthest && Math.abs(beyond) < 0.15 * fw) {
        farthest = beyond;
        tipHeight = ux * x + uy * y;
      }
    }
    assert.ok(farthest > 0.04 * fw, `corner ${outer}: wing reaches ${(farthest / fw).toFixed(3)} fw`);
    assert.ok(
      tipHeight >= 0.03 * fw,
      `corner ${outer}: wing tip ${(tipHeight / fw).toFixed(3)} fw above the corner`,
    );
  }
});

Deno.test("Evening Glam and Soft Glam at 60: nothing painted outside the face or inside the eyes", () => {
  framed.forEach((f, i) => {
    // Lipstick follows the lips, even where a turned face's outline crosses a mouth corner.
    const inFace = new Set([
      ...faceOval(f.plain, f.g),
      ...polygonPixels(f.plain, LIPS_OUTER.map((k) => f.g.pts[k]), 0.02 * f.g.fw, 0.01),
    ]);
    for (const id of ["evening-glam", "soft-glam"]) {
      const out = copyOf(f.plain);
      applyMakeup(out, f.g, planMakeup(makeupLook({ lookStyle: id }), intensityAll(DEFAULT_INTENSITY)));
      const outside = changed(f.plain, out, faceBox(f.plain, f.g), 2).filter((p) => !inFace.has(p));
      assert.equal(outside.length, 0, `${name(i)} ${id}: ${outside.length} px changed outside the face`);
      // A stray pixel where the mesh's lid line meets the lashes (1 px of ~3,000 measured on one face
      // framed at 2.4x) is not liner across the eye: 0.2 % of the openings is.
      const eyes = eyeOpenings(f.plain, f.g);
      const inEyes = changed(f.plain, out, eyes, 2);
      assert.ok(
        inEyes.length <= 0.002 * eyes.length,
        `${name(i)} ${id}: ${inEyes.length} px of ${eyes.length} changed inside the eyes`,
      );
    }
  });
});
