/**
 * The Scene Composer's lights with a direction (Dramatic Contrast, Golden Hour, Neon Night) light the person
 * from a side, as a light does, and leave the old background to the frame's grade. Measured on the cheeks of
 * three test portraits, each rendered as photographed ("natural") and under the light, at 1080x1920.
 */
import assert from "node:assert/strict";
import { deltaE, type Lab } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { CHEEK_L, CHEEK_R } from "../../server/imaging/local/landmarks.ts";
import type { Point } from "../../server/imaging/local/masks.ts";
import { render } from "../../server/imaging/local/render.ts";
import { gradeLighting } from "../../server/imaging/local/scene.ts";
import { cropFace, decode, type Decoded, FRONTAL_FACES, job, labOf, meanLab } from "./fixtures.ts";
import { previewGap } from "./preview-gap.ts";

const engine = await FaceEngine.load();

/** sample6@1081 (lit evenly), sample3@515 (lit from the right), sample5@1319 (lit from the left). */
const FACES = [FRONTAL_FACES[13], FRONTAL_FACES[5], FRONTAL_FACES[12]];

async function lit(photo: Uint8Array, lighting: string): Promise<Decoded> {
  return decode((await render(engine, job(photo, { lighting }))).image);
}

/** Mean Lab of a disc of 0.07 face widths around each cheek's centre: [the photo's lit side, the other]. */
function cheeks(img: Decoded, mesh: Point[], natural: Decoded): [Lab, Lab] {
  const g = faceGeometry(mesh);
  const disc = (idx: number[]) => {
    const cx = idx.reduce((s, i) => s + g.pts[i][0], 0) / idx.length;
    const cy = idx.reduce((s, i) => s + g.pts[i][1], 0) / idx.length;
    const r = 0.07 * g.fw, pixels: number[] = [];
    for (let y = Math.round(cy - r); y <= cy + r; y++) {
      for (let x = Math.round(cx - r); x <= cx + r; x++) {
        if (Math.hypot(x - cx, y - cy) <= r) pixels.push(y * img.width + x);
      }
    }
    return pixels;
  };
  const right = disc(CHEEK_R), left = disc(CHEEK_L);
  // The lit side is the one brighter as photographed.
  const [near, far] = meanLab(natural, right)[0] >= meanLab(natural, left)[0] ? [right, left] : [left, right];
  return [meanLab(img, near), meanLab(img, far)];
}

/** Each face's natural render, its mesh found on it, and its render under `lighting`. */
async function renders(lighting: string) {
  const out = [];
  for (const face of FACES) {
    const photo = await cropFace(face);
    const natural = await lit(photo, "natural");
    const [found] = await engine.detect(natural);
    out.push({ face, natural, mesh: found.mesh, styled: await lit(photo, lighting) });
  }
  return out;
}

Deno.test("Dramatic Contrast: a key light from the photo's lit side throws the far cheek into shadow", async () => {
  for (const { face, natural, mesh, styled } of await renders("dramatic")) {
    const [n1, n2] = cheeks(natural, mesh, natural), [s1, s2] = cheeks(styled, mesh, natural);
    const deeper = (s1[0] - s2[0]) - (n1[0] - n2[0]);
    // The frame's grade alone (before): -0.1 to 7.0 L*; with the key light 17-35.
    assert.ok(deeper >= 12, `${face}: the cheeks' L* gap grew by ${deeper.toFixed(1)} (at least 12)`);
  }
});

Deno.test("Neon Night: magenta light on the lit side of the face, cyan on the other", async () => {
  for (const { face, natural, mesh, styled } of await renders("neon")) {
    const [s1, s2] = cheeks(styled, mesh, natural);
    // a* (green-magenta) of the lit cheek over the far one: -4 to 1 with the frame's grade alone; now 28-52.
    assert.ok(s1[1] - s2[1] >= 15, `${face}: a* ${s1[1].toFixed(1)} lit side, ${s2[1].toFixed(1)} far side`);
  }
});

Deno.test("Golden Hour: the low sun warms the lit side more than the far side", async () => {
  for (const { face, natural, mesh, styled } of await renders("golden-hour")) {
    const [n1, n2] = cheeks(natural, mesh, natural), [s1, s2] = cheeks(styled, mesh, natural);
    const warmer = (s1[2] - n1[2]) - (s2[2] - n2[2]);
    // b* (blue-yellow) gained on the lit cheek over the far one's: 0.3-1.8 with the grade alone; now 11-13.
    assert.ok(warmer >= 6, `${face}: the lit cheek gained ${warmer.toFixed(1)} b* more than the far one`);
  }
});

Deno.test("a light falls on the person only: the old background changes as the frame's grade changes it", async () => {
  const photo = await cropFace(FACES[0]);
  const natural = await lit(photo, "natural"), styled = await lit(photo, "neon");
  const graded = { ...natural, data: natural.data.slice() };
  gradeLighting(graded, { id: "neon" });
  // The frame's top corners (squares 0.12 of its width): the wooden window frame at the left, the blinds at the
  // right; her hair does not reach them.
  let worst = 0;
  for (const x0 of [0, 0.88 * natural.width]) {
    for (let y = 0; y < 0.12 * natural.width; y++) {
      for (let x = Math.round(x0); x < x0 + 0.12 * natural.width; x++) {
        const p = y * natural.width + x;
        worst = Math.max(worst, deltaE(labOf(graded, p), labOf(styled, p)));
      }
    }
  }
  assert.ok(worst < 1, `the background's corners moved by ΔE ${worst.toFixed(2)} beyond the grade`);
});

Deno.test("a light's studio preview shows the result's light (sample6@1081, Neon Night)", async () => {
  // The same gap the other preview tests bound (see previewGap): the light's field is in face widths, so the
  // 540x960 preview lights the person as the result does.
  const gap = await previewGap(engine, FACES[0], "makeup", { lighting: "neon" });
  assert.ok(gap <= 2.5, `preview and result differ by ${gap.toFixed(2)}`);
});
