import assert from "node:assert/strict";
import { deltaE, hexToLab, type Lab, luminanceOfL } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { type FaceGeometry, faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import {
  BROW_L,
  BROW_R,
  CHEEK_L,
  CHEEK_R,
  FACE_OVAL,
  LIPS_OUTER,
  SKIN_SAMPLES,
} from "../../server/imaging/local/landmarks.ts";
import {
  chooseFace,
  decodePhoto,
  detectFaces,
  framingFor,
  PhotoCache,
  render,
} from "../../server/imaging/local/render.ts";
import * as fx from "./fixtures.ts";
import type { Decoded } from "./fixtures.ts";
import {
  greyShare,
  hairFigures,
  hairlineBand,
  hueError,
  lengthsBesideNeck,
  lengthsFigures,
  lightnessSpread,
  offShade,
  strandSpread,
  stripeFigures,
  syntheticHead,
} from "./synthetic-hair.ts";
import { recolorHair } from "../../server/imaging/local/hair-recolor.ts";
import { earLobes } from "../../server/imaging/local/hair-studs.ts";
import {
  closeSeams,
  faceSkinPoints,
  fillEnclosed,
  neckSkin,
  skinTexture,
} from "../../server/imaging/local/hair-lengths.ts";
import { axisStats, skinSamples } from "../../server/imaging/local/hair-colour-samples.ts";
import { renderedPortrait } from "./framed-crop.ts";
import { personAt } from "../../server/imaging/local/person-mask.ts";
import { previewGap } from "./preview-gap.ts";
import { dyeSteps, undyedSpecks } from "./dye-steps.ts";
import { assertSameBytes } from "../helpers/same-bytes.ts";

const {
  cropFace,
  cropRect,
  DARK_HAIR,
  darkerCopy,
  decode,
  FRONTAL_FACES,
  job,
  labOf,
  meanLab,
  meanPixelDeltaE,
  plainAndStyled,
  polygonPixels,
} = fx;

const engine = await FaceEngine.load();

/** Pixel indices of the rectangle [x0, x1) x [y0, y1). */
function rect(img: Decoded, x0: number, x1: number, y0: number, y1: number): number[] {
  const out: number[] = [];
  for (let y = Math.max(0, Math.round(y0)); y < Math.min(img.height, y1); y++) {
    for (let x = Math.max(0, Math.round(x0)); x < Math.min(img.width, x1); x++) out.push(y * img.width + x);
  }
  return out;
}

/** The share of `px` whose colour `out` changed from `plain` by more than `over` ΔE (6). */
function movedShare(plain: Decoded, out: Decoded, px: number[], over = 6): number {
  return px.filter((p) => deltaE(labOf(plain, p), labOf(out, p)) > over).length / px.length;
}

/** A copy of a synthetic head's photo dyed `hex`; the dye must be applied (`name`, or the shade, in the assertion's message). */
function dyedHead(head: Awaited<ReturnType<typeof syntheticHead>>, hex: string, name?: string): Decoded {
  const out = { ...head.img, data: head.img.data.slice() };
  assert.equal(recolorHair(out, head.g, head.person, hex).applied, true, name ?? `${hex} applied`);
  return out;
}

/** The neck below the chin: within 0.15 face widths of the chin, 0.05-0.3 face heights down. */
function neckBox(img: Decoded, g: FaceGeometry): number[] {
  const chin = g.pts[152];
  return rect(img, chin[0] - 0.15 * g.fw, chin[0] + 0.15 * g.fw, chin[1] + 0.05 * g.fh, chin[1] + 0.3 * g.fh);
}

/** How a portrait is cropped (cropFace's aspect and span) and rendered (width x height). */
interface Shot {
  aspect?: number;
  span?: number;
  width?: number;
  height?: number;
}

/**
 * Plain renders by portrait and shot: many tests compare a shade against the same plain render, which the
 * renderer makes identically each time (the suite's longest file rendered each of them up to six times).
 * Read only: a test never writes into a render it is given.
 */
const plains = new Map<string, Promise<{ plain: Decoded; g: FaceGeometry }>>();
/**
 * The portraits' prepared photos (decode, faces, person mask, framing), as a worker keeps them while a
 * user tries shades: a shade renders byte for byte as on a fresh photo (photo-cache.test.ts), without
 * finding the faces and the person again (0.6-1 s a render here).
 */
const prepared = new PhotoCache(2);

/** A portrait rendered plain and with hair colour `id` (copper red), and the face found on the plain render. */
async function recoloured(face: [number, number, number, number], id = "copper-red", shot: Shot = {}) {
  const photo = await cropFace(face, shot.aspect, shot.span);
  const key = JSON.stringify([face, shot]);
  const size = (j: ReturnType<typeof job>) => ({
    ...j,
    width: shot.width ?? j.width,
    height: shot.height ?? j.height,
    cacheKey: key,
  });
  let plainRender = plains.get(key);
  if (!plainRender) {
    plainRender = (async () => {
      const plain = await decode(
        (await render(engine, size(job(photo, {}, undefined, "hair")), prepared)).image,
      );
      return { plain, g: faceGeometry((await engine.detect(plain))[0].mesh) };
    })();
    plains.set(key, plainRender);
  }
  const { plain, g } = await plainRender;
  const res = await render(engine, size(job(photo, { hairColor: id }, undefined, "hair")), prepared);
  return { plain, g, res, out: await decode(res.image) };
}

Deno.test("the dye's edge is soft where the photo is: no steps along the grid in a shadow or a soft edge", async () => {
  // Cut on the mask's 4-pixel grid and decided pixel by pixel, the dye stopped in stepped, ragged lines where the
  // photo has no edge: a staircase across the shadow under sample5@1045's jaw, blocky grey patches in
  // sample2@805's lengths, ragged strands on sample6@587. Steps per 1000 dyed pixels, Auburn at 1080x1920,
  // were 4.29 / 6.24 / 9.52; smoothed by a guided filter on the photo, 0.20 / 0.24 / 0.58.
  for (const i of [11, 4, 15]) {
    const { plain, out } = await recoloured(FRONTAL_FACES[i], "auburn");
    const s = dyeSteps(plain, out);
    const name = `sample${FRONTAL_FACES[i][0]}@${FRONTAL_FACES[i][1]}`;
    console.log(`${name}: ${s.steps} steps, ${s.dyed} px dyed, ${s.perThousand.toFixed(2)} per 1000`);
    assert.ok(s.dyed > 100_000, `${name}: ${s.dyed} px dyed`);
    assert.ok(s.perThousand <= 1.5, `${name}: ${s.perThousand.toFixed(2)} steps per 1000 dyed px`);
  }
});

Deno.test("lengths grown beside the face fade in above the eyes: no straight line across the hair (sample2@805)", async () => {
  // She looks down, her hair lit lilac beside her face: the colour model half takes it, and the lengths grown
  // below started at full strength on the eyes' row. The hair went from barely dyed to fully dyed along a
  // straight line at her eyes. Mean ΔE of 8-px rows beside the face (from the face's right edge, half a face
  // width wide), half a face height above eye level to 0.3 below: the largest change between neighbouring rows
  // was 7.2 (2 to 11 ΔE in 16 px); the lengths' room fading in over 0.35 face heights above the eyes, 1.5.
  const { plain, g, out } = await recoloured(FRONTAL_FACES[4], "auburn");
  const edge = Math.max(...g.pts.map((p) => p[0])), eyeY = g.eyeCenter[1];
  const rows: number[] = [];
  for (let y = eyeY - 0.5 * g.fh; y < eyeY + 0.3 * g.fh; y += 8) {
    rows.push(meanPixelDeltaE(plain, out, rect(plain, edge, edge + 0.5 * g.fw, y, y + 8)));
  }
  const jump = Math.max(...rows.slice(1).map((r, i) => Math.abs(r - rows[i])));
  console.log(`rows' mean ΔE ${rows.map((r) => r.toFixed(1)).join(" ")}; largest step ${jump.toFixed(2)}`);
  assert.ok(rows.at(-1)! > 12, `the lengths below the eyes are dyed (mean ΔE ${rows.at(-1)!.toFixed(1)})`);
  assert.ok(jump <= 3, `largest step between neighbouring rows ${jump.toFixed(2)} (was 7.2)`);
});

Deno.test("a dim photo's dye is lit as the photo is: no lighter against the face than when well exposed", async () => {
  // A shade is a colour as a well-lit photo shows it, and it was painted at that lightness on every photo: on a
  // dim one the dye glowed, as light as the face beside it. Each portrait and a copy darkened by about 1.7 stops
  // (sRGB values x 0.58), Auburn: the dyed hair's mean luminance over the face skin's, in the dark copy against
  // the original. sample6@1081: 1.94x before, 1.33x with the shade lit by the photo's exposure (photoExposure);
  // sample3@515: 2.02x before, 1.32x.
  for (const i of [13, 5]) {
    const name = `sample${FRONTAL_FACES[i][0]}@${FRONTAL_FACES[i][1]}`;
    const photo = await cropFace(FRONTAL_FACES[i]);
    const ratios: number[] = [];
    for (const bytes of [photo, await darkerCopy(photo)]) {
      const { plain, out: dyed } = await plainAndStyled(
        engine,
        bytes,
        { hairColor: "auburn" },
        undefined,
        "hair",
      );
      const g = faceGeometry((await engine.detect(plain))[0].mesh);
      const luminance = (img: Decoded, px: number[]) =>
        px.reduce((sum, p) => sum + luminanceOfL(labOf(img, p)[0]), 0) / px.length;
      const hair: number[] = [];
      for (let p = 0; p < plain.width * plain.height; p += 3) {
        if (deltaE(labOf(plain, p), labOf(dyed, p)) > 6) hair.push(p);
      }
      assert.ok(hair.length > 20_000, `${name}: the hair is dyed (${hair.length} px sampled)`);
      ratios.push(luminance(dyed, hair) / luminance(plain, skinPatches(plain, g)));
    }
    const gain = ratios[1] / ratios[0];
    console.log(
      `${name}: dyed hair / skin luminance ${ratios.map((r) => r.toFixed(3)).join(" -> ")}, x${
        gain.toFixed(2)
      }`,
    );
    assert.ok(
      gain <= 1.5,
      `${name}: in the dark copy the dye is ${gain.toFixed(2)}x as light against the face`,
    );
  }
});

Deno.test("near-black hair lying in front of the neck is dyed with the rest (sample1@773)", async () => {
  // The neck's column below the chin was kept out of the hair whatever lay there (shaded neck skin is as dark
  // and warm as brown hair): her near-black hair falling in front of her neck was left black in a block under
  // the chin, between dyed hair on both sides. A node far darker than the face's skin (under 0.35-0.5 of its
  // L*) and hair-like, not the clothes' colour, is no longer the neck, down to the chest. Dark pixels (L* < 30)
  // of the column, from 0.1 to 0.35 face heights under the chin, moved by over ΔE 6: 0.0 % before, 31.9 % after
  // (the darkest stay near-black, as the rest of her hair does).
  const { plain, g, out } = await recoloured(FRONTAL_FACES[2], "auburn");
  const chin = g.pts[152];
  const column = rect(
    plain,
    chin[0] - 0.12 * g.fw,
    chin[0] + 0.12 * g.fw,
    chin[1] + 0.1 * g.fh,
    chin[1] + 0.35 * g.fh,
  )
    .filter((p) => labOf(plain, p)[0] < 30);
  const moved = movedShare(plain, out, column);
  console.log(
    `sample1@773: ${column.length} dark px in the neck's column, ${(100 * moved).toFixed(1)} % dyed`,
  );
  assert.ok(column.length > 2000, `${column.length} dark px`);
  assert.ok(moved >= 0.2, `${(100 * moved).toFixed(1)} % of the hair in front of her neck dyed`);
});

const COPPER_RED = hexToLab("#B4532A");
const AUBURN = hexToLab("#7E2E1F");

const hue = (l: Lab) => Math.atan2(l[2], l[1]);
const hueDist = (a: number, b: number) => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));

Deno.test("hair recolour moves the hair toward the target and leaves skin alone", async () => {
  const { plain, g, res, out } = await recoloured(DARK_HAIR);
  assert.deepEqual(res.notes, []);
  // Hair: a patch above the forehead.
  const top = g.pts[10];
  const hair: number[] = [];
  for (let y = Math.round(top[1] - 0.25 * g.fh); y < top[1] - 0.1 * g.fh; y++) {
    for (let x = Math.round(top[0] - 0.2 * g.fw); x < top[0] + 0.2 * g.fw; x++) {
      hair.push(y * plain.width + x);
    }
  }
  const target = COPPER_RED;
  const before = meanLab(plain, hair), after = meanLab(out, hair);
  assert.ok(hueDist(hue(after), hue(target)) < hueDist(hue(before), hue(target)), "hue moves toward target");
  assert.ok(
    deltaE(after, target) < deltaE(before, target) - 5,
    `ΔE ${deltaE(before, target).toFixed(1)} -> ${deltaE(after, target).toFixed(1)}`,
  );
  // Skin: small patches at plain-skin mesh points.
  const skinDe = meanPixelDeltaE(plain, out, skinPatches(plain, g));
  assert.ok(skinDe <= 3, `skin ΔE ${skinDe.toFixed(2)}`);
});

Deno.test("hair over the temples is recoloured with the rest; shoulder skin beside it is not", async () => {
  const { plain, g, out } = await recoloured(DARK_HAIR);
  // Strands falling over the face oval between the brows and the cheekbone
  // (they used to keep their colour: a band at the brow line).
  const browY = Math.min(g.pts[105][1], g.pts[334][1]), edge = g.pts[234];
  const temple = rect(plain, edge[0], edge[0] + 0.06 * g.fw, browY, edge[1]);
  const toward = (px: number[]) =>
    deltaE(meanLab(plain, px), COPPER_RED) - deltaE(meanLab(out, px), COPPER_RED);
  // As far toward the shade as the hair above the forehead (dyed hair keeps less than the swatch's chroma;
  // measured: temple 8.1, crown 8.7 with the photo framed at 2.4x, 12.7 and 9.5 at 2.0x).
  const top = g.pts[10];
  const crown = rect(
    plain,
    top[0] - 0.2 * g.fw,
    top[0] + 0.2 * g.fw,
    top[1] - 0.25 * g.fh,
    top[1] - 0.1 * g.fh,
  );
  assert.ok(
    toward(temple) > 0.7 * toward(crown) && toward(temple) > 6,
    `temple moved ${toward(temple).toFixed(1)} toward the target, the hair above the forehead ${
      toward(crown).toFixed(1)
    }`,
  );
  // The bare shoulder raised beside the chin.
  const chin = g.pts[152];
  const shoulder = rect(plain, chin[0] + 0.3 * g.fw, chin[0] + 0.5 * g.fw, chin[1] - 0.15 * g.fh, chin[1]);
  const de = meanPixelDeltaE(plain, out, shoulder);
  assert.ok(de < 2.5, `shoulder ΔE ${de.toFixed(2)}`);
});

Deno.test("hair worn up over a black top: the top is not dyed", async () => {
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[0]);
  assert.deepEqual(res.notes, []);
  const below = rect(plain, 0, plain.width, g.pts[152][1] + 0.4 * g.fh, plain.height);
  const de = meanPixelDeltaE(plain, out, below);
  assert.ok(de < 3, `ΔE below the neck ${de.toFixed(2)}`);
});

/**
 * On a real portrait, recoloured to `hex`: the share of the hair above the
 * forehead (pixels there at least ΔE 20 from the skin)
 * that moved ΔE 8 toward the shade; the share of face skin (the oval below
 * the brows, and the forehead below the hairline) changed by more than ΔE 3,
 * and the same under the chin.
 */
/** Figures for the test log, numbers rounded to `digits`. */
function shown(figures: object, digits: number): string {
  return JSON.stringify(figures, (_, v) => typeof v === "number" ? Number(v.toFixed(digits)) : v);
}

async function portraitFigures(
  face: [number, number, number, number],
  id: string,
  hex: string,
  shot: Shot = {},
) {
  const { plain, g, res, out } = await recoloured(face, id, shot);
  const target = hexToLab(hex), top = g.pts[10], W = plain.width;
  const skinMean = meanLab(plain, skinPatches(plain, g));
  const hair = rect(
    plain,
    top[0] - 0.15 * g.fw,
    top[0] + 0.15 * g.fw,
    top[1] - 0.3 * g.fh,
    top[1] - 0.12 * g.fh,
  )
    .filter((p) => deltaE(labOf(plain, p), skinMean) > 20);
  const moved = hair.filter((p) => deltaE(labOf(out, p), target) < deltaE(labOf(plain, p), target) - 8);
  const browY = Math.min(g.pts[105][1], g.pts[334][1]);
  const changed = (px: number[]) =>
    px.filter((p) => deltaE(labOf(plain, p), labOf(out, p)) > 3).length / Math.max(1, px.length);
  const oval = polygonPixels(plain, FACE_OVAL.map((i) => g.pts[i]), 2).filter((p) => p / W > browY);
  const forehead = rect(plain, top[0] - 0.15 * g.fw, top[0] + 0.15 * g.fw, top[1] + 0.03 * g.fh, browY);
  const neck = neckBox(plain, g);
  // Blotches (see offShade) over the hair above the forehead and beside the
  // temples (the curls there; the palest highlights are within ΔE 20 of lit
  // skin, so not in `hair`).
  const box = [
    top[0] - 0.15 * g.fw,
    top[0] + 0.15 * g.fw,
    top[1] - 0.3 * g.fh,
    top[1] - 0.12 * g.fh,
  ] as const;
  const eyeY = g.eyeCenter[1], left = g.pts[127][0], right = g.pts[356][0];
  const curls = [
    ...rect(plain, ...box),
    ...rect(plain, left - 0.2 * g.fw, left - 0.04 * g.fw, top[1] - 0.1 * g.fh, eyeY),
    ...rect(plain, right + 0.04 * g.fw, right + 0.2 * g.fw, top[1] - 0.1 * g.fh, eyeY),
  ];
  return {
    notes: res.notes,
    hairPixels: hair.length,
    offShade: offShade(out, curls, target),
    strands: strandContrast(out, ...box) / strandContrast(plain, ...box),
    coverage: moved.length / hair.length,
    oval: changed(oval),
    // The middle of the face (within 0.2 face widths of its centre): strands lying across the face's sides,
    // dyed with the hair since the strands section of decision 018, are not counted here.
    inner: changed(oval.filter((p) => Math.abs((p % W) - g.center[0]) < 0.2 * g.fw)),
    forehead: changed(forehead),
    neck: changed(neck),
  };
}

/** 5x5 patches at plain-skin mesh points. */
function skinPatches(img: Decoded, g: ReturnType<typeof faceGeometry>): number[] {
  const skin: number[] = [];
  for (const i of SKIN_SAMPLES) {
    const [x, y] = g.pts[i];
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) skin.push((Math.round(y) + dy) * img.width + Math.round(x) + dx);
    }
  }
  return skin;
}

Deno.test("curly blonde hair is recoloured (it used to be refused), and no skin with it", async () => {
  for (const [id, hex] of [["auburn", "#7E2E1F"], ["chestnut", "#6A3E25"]]) {
    const f = await portraitFigures(FRONTAL_FACES[5], id, hex);
    console.log(
      `curly blonde, ${id}: ${shown(f, 3)}`,
    );
    assert.deepEqual(f.notes, [], id);
    assert.ok(f.hairPixels > 5000, `${id}: ${f.hairPixels} hair pixels measured`);
    // Measured at 2.4x framing: 59 % (Auburn) when the highlights were left pale and the dark roots went
    // near black; 65.5 % (Auburn) and 68.6 % (Chestnut) with light hair dyed evenly (the roots, L* 10-45,
    // are lifted toward the shade; the darkest of them still move less than ΔE 8 toward it).
    assert.ok(f.coverage >= 0.65, `${id}: ${(100 * f.coverage).toFixed(0)} % of the hair recoloured`);
    assert.ok(f.oval <= 0.01, `${id}: ${(100 * f.oval).toFixed(1)} % of the face changed`);
    assert.ok(f.forehead <= 0.02, `${id}: ${(100 * f.forehead).toFixed(1)} % of the forehead changed`);
    assert.ok(f.neck <= 0.02, `${id}: ${(100 * f.neck).toFixed(1)} % of the neck changed`);
  }
});

Deno.test("blonde hair dyed darker is even: the highlights take the shade, lighter than the rest", async () => {
  // Before: pale, almost undyed patches where the brightest curls are (their
  // colour is lit skin's) and a blonde-and-auburn wash elsewhere.
  for (
    const [id, hex] of [["auburn", "#7E2E1F"], ["chestnut", "#6A3E25"], ["burgundy", "#6B1F2E"], [
      "copper-red",
      "#B4532A",
    ]]
  ) {
    const f = await portraitFigures(FRONTAL_FACES[5], id, hex);
    console.log(
      `curly blonde, ${id}: off the shade ${f.offShade.toFixed(3)}, strands ${f.strands.toFixed(2)}`,
    );
    assert.deepEqual(f.notes, [], id);
    assert.ok(f.offShade <= 0.15, `${id}: ${(100 * f.offShade).toFixed(0)} % of the hair off the shade`);
    assert.ok(f.strands >= 0.8, `${id}: strand contrast ${f.strands.toFixed(2)} of the original`);
  }
});

Deno.test("synthetic blonde head with pale highlights, dyed darker: even, highlights lighter, strands kept", async () => {
  const head = await syntheticHead(engine, { blonde: true });
  const hair: number[] = [], lit: number[] = [], rest: number[] = [];
  for (let p = 0; p < head.hair.length; p++) {
    if (!head.hair[p]) continue;
    hair.push(p);
    (head.highlight[p] ? lit : rest).push(p);
  }
  for (const [name, hex] of [["auburn", "#7E2E1F"], ["chestnut", "#6A3E25"], ["burgundy", "#6B1F2E"]]) {
    const out = dyedHead(head, hex, name), target = hexToLab(hex);
    const f = hairFigures(head, out, target);
    const off = offShade(out, hair, target), litOff = offShade(out, lit, target);
    const litAbove = meanLab(out, lit)[0] - meanLab(out, rest)[0];
    const strands = lightnessSpread(out, rest) / lightnessSpread(head.img, rest);
    console.log(
      `synthetic blonde, ${name}: ${shown({ off, litOff, litAbove, strands, skin: f.skinChange }, 3)}`,
    );
    assert.ok(off <= 0.15, `${name}: ${(100 * off).toFixed(0)} % of the hair off the shade`);
    assert.ok(litOff <= 0.25, `${name}: ${(100 * litOff).toFixed(0)} % of the highlights off the shade`);
    assert.ok(litAbove > 5, `${name}: highlights ${litAbove.toFixed(1)} L* above the rest`);
    assert.ok(strands >= 0.8, `${name}: strand contrast ${strands.toFixed(2)}`);
    assert.ok(f.skinChange < 0.1, `${name}: skin ΔE ${f.skinChange.toFixed(2)}`);
  }
});

Deno.test("braided hair pulled back is recoloured; the lit forehead below it is not", async () => {
  // Cornrow-like braids over the crown into a ponytail, a high lit forehead
  // (its colour made the hair samples "mostly light": refused before).
  for (const [id, hex] of [["auburn", "#7E2E1F"], ["burgundy", "#6B1F2E"]]) {
    const f = await portraitFigures(FRONTAL_FACES[9], id, hex);
    console.log(
      `braided, ${id}: ${shown(f, 3)}`,
    );
    assert.deepEqual(f.notes, [], id);
    assert.ok(f.hairPixels > 3000, `${id}: ${f.hairPixels} hair pixels measured`);
    assert.ok(f.coverage >= 0.65, `${id}: ${(100 * f.coverage).toFixed(0)} % of the hair recoloured`);
    assert.ok(f.forehead <= 0.02, `${id}: ${(100 * f.forehead).toFixed(1)} % of the forehead changed`);
    // Known limit: the shaded jaw line and the neck under the turned jaw are as
    // dark as the braids and take a tint at their edge (1 % of the face oval,
    // 4-8 % of the neck patch, measured; 1.6 % of the oval with the photo framed at 2.4x).
    assert.ok(f.oval <= 0.02, `${id}: ${(100 * f.oval).toFixed(1)} % of the face changed`);
    assert.ok(f.neck <= 0.1, `${id}: ${(100 * f.neck).toFixed(1)} % of the neck changed`);
  }
});

/** One face per demo photo: dark, brown, curly blonde, braided, brown, dark with light lengths. */
const SIX = [0, 3, 5, 9, 10, 13].map((i) => FRONTAL_FACES[i]);

Deno.test("hair is recoloured on all six portraits (three used to be refused, then two)", async () => {
  const refused: string[] = [];
  for (const face of SIX) {
    const res = await render(engine, job(await cropFace(face), { hairColor: "auburn" }, undefined, "hair"));
    const note = res.notes.find((n) => /^Hair Color "Auburn" was not applied/.test(n));
    if (note) refused.push(`sample${face[0]}: ${note}`);
  }
  assert.deepEqual(refused, []);
});

/** The tests' crop and a wide one, at the canvas size the tests use and at the Hair Studio's 540 x 960. */
const SHOTS: [string, Shot][] = [
  ["3:4 crop", {}],
  ["3:4 crop at 540x960", { width: 540, height: 960 }],
  ["wide crop", { aspect: 0.6, span: 3.2 }],
  ["wide crop at 540x960", { aspect: 0.6, span: 3.2, width: 540, height: 960 }],
];

/**
 * sample4@1216's visible hair, traced by hand on the demo photo (photo pixels, inside the hair's outline): the
 * lit mass right of the parting down to the lengths' ends, the crown left of the parting above her forehead,
 * and her right side (the image's left) in shade down to its lengths beside the neck.
 */
const TRACED_HAIR_SAMPLE4: Record<string, [number, number][]> = {
  right: [
    [1400, 100],
    [1440, 95],
    [1478, 104],
    [1510, 126],
    [1540, 165],
    [1556, 215],
    [1566, 290],
    [1572, 370],
    [1577, 450],
    [1581, 530],
    [1584, 610],
    [1582, 655],
    [1565, 655],
    [1545, 620],
    [1522, 578],
    [1497, 532],
    [1470, 492],
    [1445, 457],
    [1427, 422],
    [1418, 382],
    [1412, 332],
    [1407, 282],
    [1403, 232],
    [1400, 182],
    [1398, 140],
  ],
  crown: [
    [1285, 168],
    [1294, 142],
    [1313, 121],
    [1342, 107],
    [1380, 101],
    [1398, 101],
    [1396, 136],
    [1382, 134],
    [1360, 131],
    [1338, 136],
    [1320, 150],
    [1308, 173],
    [1299, 197],
    [1288, 195],
  ],
  left: [
    [1250, 205],
    [1262, 192],
    [1276, 202],
    [1277, 260],
    [1275, 330],
    [1281, 380],
    [1298, 402],
    [1305, 440],
    [1301, 500],
    [1294, 560],
    [1284, 608],
    [1272, 616],
    [1264, 580],
    [1258, 520],
    [1252, 460],
    [1250, 400],
    [1248, 330],
    [1247, 260],
  ],
};

/** The traced hair of `face` on the canvas of a shot: pixels per region (mapped as render() frames the photo). */
async function tracedHair(
  face: [number, number, number, number],
  shot: Shot,
  canvas: Decoded,
  traced: Record<string, [number, number][]>,
): Promise<Record<string, number[]>> {
  const photo = await decodePhoto(await cropFace(face, shot.aspect, shot.span));
  const chosen = chooseFace(await detectFaces(engine, photo), photo.width, photo.height);
  const fr = framingFor(photo, chosen, canvas.width, canvas.height);
  const { left, top } = await cropRect(face, shot.aspect, shot.span);
  const out: Record<string, number[]> = {};
  for (const [name, poly] of Object.entries(traced)) {
    const onCanvas = poly.map(([x, y]): [number, number] => [
      (x - left) * fr.scale + fr.offsetX,
      (y - top) * fr.scale + fr.offsetY,
    ]);
    out[name] = polygonPixels(canvas, onCanvas, fr.scale, 0.75);
  }
  return out;
}

Deno.test("a blonde as light as her lit skin (sample4@1216): her whole hair dyed darker, or refused with the note; never half", async () => {
  // Refused at first on every shot (her hair's colours are her blown-out forehead's); then found by place
  // (lightByPlace) and dyed on the lit side only: the mass right of the parting took the shade and her shaded
  // side and the crown left of the parting stayed blonde (traced hair dyed 56-62 %: left side 1-5 %, crown
  // 24-27 %), a botched dye. A result must dye the whole traced hair (>= 85 %) and leave her skin, or be refused.
  const target = hexToLab("#7E2E1F");
  for (const [name, shot] of SHOTS) {
    const { plain, g, res, out } = await recoloured(FRONTAL_FACES[8], "auburn", shot);
    const traced = await tracedHair(FRONTAL_FACES[8], shot, plain, TRACED_HAIR_SAMPLE4);
    const parts = Object.entries(traced).map(([part, px]) => {
      const moved = px.filter((p) => deltaE(labOf(out, p), target) < deltaE(labOf(plain, p), target) - 8);
      return { part, n: px.length, dyed: moved.length };
    });
    const all = parts.reduce((s, q) => s + q.dyed, 0) / parts.reduce((s, q) => s + q.n, 0);
    const shown = parts.map((q) => `${q.part} ${(100 * q.dyed / q.n).toFixed(0)} % of ${q.n}`).join(", ");
    console.log(
      `sample4@1216, ${name}: notes ${JSON.stringify(res.notes)}; traced hair dyed ${
        (100 * all).toFixed(0)
      } % (${shown})`,
    );
    assert.ok(parts.every((q) => q.n > 1000), `${name}: traced regions ${shown}`);
    if (res.notes.length) {
      assert.deepEqual(res.notes, [
        'Hair Color "Auburn" was not applied: hair could not be told apart from skin in this light',
      ], name);
      assert.ok(plain.data.every((v, i) => v === out.data[i]), `${name}: refused but painted`);
      continue;
    }
    assert.ok(all >= 0.85, `${name}: ${(100 * all).toFixed(0)} % of her traced hair dyed (${shown})`);
    for (const q of parts) assert.ok(q.dyed >= 0.7 * q.n, `${name}: ${q.part} half-dyed (${shown})`);
    const f = blondeFigures(plain, out, g, target);
    assert.ok(f.face <= 0.01, `${name}: ${(100 * f.face).toFixed(1)} % of the face's skin changed`);
    assert.ok(f.forehead <= 0.02, `${name}: ${(100 * f.forehead).toFixed(1)} % of the forehead changed`);
    assert.ok(f.neck <= 0.01, `${name}: ${(100 * f.neck).toFixed(1)} % of the neck changed`);
    assert.ok(f.strands >= 0.8, `${name}: strand contrast ${f.strands.toFixed(2)} of the original`);
  }
  // Lighter than her blonde is not found by place: refused with the note, as before.
  const { res } = await recoloured(FRONTAL_FACES[8], "platinum-blonde");
  assert.ok(
    res.notes.includes(
      'Hair Color "Platinum Blonde" was not applied: hair could not be told apart from skin in this light',
    ),
    JSON.stringify(res.notes),
  );
});

Deno.test("hair lighter than the skin but greyer, in a strong light (sample5@1045), is recoloured; the lit face and neck are not", async () => {
  // Refused before: most of its hair samples are lighter than the skin. Only
  // the palest cluster (L* 80, near white: her highlights, or the blown-out
  // forehead's colour) is like the lit skin; it is left out and the rest
  // dyed. Measured: 68 / 67 % of the hair above the forehead (47 / 54 % on
  // the wide crop, where the pale highlights are more of it), face oval 1.1-1.6 %
  // (strands over the face's edge), forehead and neck 0 %. Since the strands
  // lying across her temple and cheek are dyed with the hair (decision 018,
  // strands section), the oval's share is 5-6 %: those strands only (looked at
  // as a map of the changed pixels); the middle of the face stayed at 0. Since
  // hair over a brow's box is dyed (2026-11-28: the box keeps only columns
  // with no hair above them), the strand over her left brow is dyed too: oval
  // 7.2-7.9 %, middle 0.8-1.1 % (looked at as a map: the strand only).
  for (const [name, shot] of SHOTS) {
    const f = await portraitFigures(FRONTAL_FACES[11], "auburn", "#7E2E1F", shot);
    console.log(`sample5@1045, ${name}: ${shown(f, 3)}`);
    assert.deepEqual(f.notes, [], name);
    assert.ok(
      f.coverage >= (shot.aspect ? 0.4 : 0.6),
      `${name}: ${(100 * f.coverage).toFixed(0)} % of the hair recoloured`,
    );
    assert.ok(f.oval <= 0.09, `${name}: ${(100 * f.oval).toFixed(1)} % of the face changed`);
    assert.ok(f.inner <= 0.015, `${name}: ${(100 * f.inner).toFixed(1)} % of the middle of the face changed`);
    assert.ok(f.forehead <= 0.02, `${name}: ${(100 * f.forehead).toFixed(1)} % of the forehead changed`);
    assert.ok(f.neck <= 0.02, `${name}: ${(100 * f.neck).toFixed(1)} % of the neck changed`);
  }
});

Deno.test("curly blonde at 540x960 and on a wide crop: recoloured, the forehead below the hairline not specked", async () => {
  // At 540x960 (3:4 crop) and on the wide crop at 1080x1920 the hair was
  // refused (most samples light); the wide crop at 540x960 was recoloured
  // with auburn specks over 11 % of the forehead (23 % with the refusal
  // lifted at 1080x1920). Measured now: 66-77 % of the hair, forehead 0 %.
  // The neck box's changed pixels on the wide crop (2.0 % at 1080x1920, and 2.1 % at 540x960 since the
  // preview's person mask is made on the result's grid: 0.2 % before) are the edge of her dyed lock beside the
  // neck, inside the box's left edge (looked at, both sizes).
  for (const [name, shot] of SHOTS) {
    const f = await portraitFigures(FRONTAL_FACES[5], "auburn", "#7E2E1F", shot);
    console.log(`curly blonde, ${name}: ${shown(f, 3)}`);
    assert.deepEqual(f.notes, [], name);
    assert.ok(f.coverage >= 0.6, `${name}: ${(100 * f.coverage).toFixed(0)} % of the hair recoloured`);
    assert.ok(f.oval <= 0.01, `${name}: ${(100 * f.oval).toFixed(1)} % of the face changed`);
    assert.ok(f.forehead <= 0.02, `${name}: ${(100 * f.forehead).toFixed(1)} % of the forehead changed`);
    assert.ok(f.neck <= 0.025, `${name}: ${(100 * f.neck).toFixed(1)} % of the neck changed`);
    assert.ok(f.offShade <= 0.15, `${name}: ${(100 * f.offShade).toFixed(0)} % of the hair off the shade`);
    assert.ok(f.strands >= 0.8, `${name}: strand contrast ${f.strands.toFixed(2)} of the original`);
  }
});

Deno.test("synthetic head: strands, saturation and hue of the dyed hair", async () => {
  const head = await syntheticHead(engine);
  for (const [hex, name] of [["#7E2E1F", "auburn"], ["#B4532A", "copper red"]]) {
    const out = dyedHead(head, hex);
    const f = hairFigures(head, out, hexToLab(hex));
    console.log(name, shown(f, 2));
    assert.ok(f.strandContrast >= 0.8, `${name}: strand contrast ${f.strandContrast}`);
    // Dyed hair shows less chroma than the swatch (the swatch at full chroma was a flat fire-engine red)...
    assert.ok(
      f.chromaRatio <= 0.85 && f.chromaRatio >= 0.45,
      `${name}: chroma ${f.chromaRatio} of the swatch`,
    );
    // ...in the swatch's hue.
    assert.ok(f.hueError <= 4, `${name}: hue ${f.hueError.toFixed(1)} degrees off`);
    assert.ok(f.skinChange < 1, `${name}: skin ΔE ${f.skinChange}`);
  }
});

Deno.test("synthetic head, Honey Blonde: the dyed hair's shadows amber, its lights the swatch's hue", async () => {
  // A golden shade held at its hue in the dyed hair's shadows (L* 35-50 on dark hair, about 0.6 of the
  // swatch's chroma) read khaki, olive beside the skin in a warm photo (sample5@1319, sample1@773); hair in
  // shadow is deeper and warmer (see SHADOW_WARMTH). Hue of the darkest quarter of the hair after minus the
  // lightest quarter's (negative: toward red) on light-brown hair: before, +0.1 degrees; now, -5.4.
  const head = await syntheticHead(engine, { brown: true });
  const target = hexToLab("#C69A5B"), out = dyedHead(head, "#C69A5B");
  const hair: number[] = [];
  for (let p = 0; p < head.hair.length; p++) {
    if (head.hair[p] && Math.abs((p % head.img.width) - head.parting.x) >= 20) hair.push(p);
  }
  const byL = hair.map((p) => [labOf(out, p)[0], p]).sort((a, b) => a[0] - b[0]).map(([, p]) => p);
  const quarter = Math.floor(byL.length / 4);
  const darkest = meanLab(out, byL.slice(0, quarter)), lightest = meanLab(out, byL.slice(-quarter));
  const turn = (hue(darkest) - hue(lightest)) * 180 / Math.PI, f = hairFigures(head, out, target);
  console.log(`honey blonde: shadows' hue ${turn.toFixed(1)} degrees from the lights', ${shown(f, 2)}`);
  assert.ok(turn <= -3 && turn >= -16, `shadows' hue ${turn.toFixed(1)} degrees from the lights'`);
  assert.ok(hueError(lightest, target) <= 4, "the lights in the swatch's hue");
  assert.ok(f.hueError <= 10, `mean hue ${f.hueError.toFixed(1)} degrees off the swatch's`);
  assert.ok(f.strandContrast >= 0.8, `strand contrast ${f.strandContrast}`);
  assert.ok(f.chromaRatio >= 0.45, `chroma ${f.chromaRatio} of the swatch`);
});

Deno.test("synthetic head: highlights lit blue inside the hair take the dye, no blue blotches", async () => {
  // Dark hair lit blue from the side (a screen, a neon sign): the colour model holds no such colour, and the
  // highlights stayed blue in copper hair (sample3@1372). Measured before filling the hair's enclosed holes
  // (see fillEnclosed): 66 % of their pixels 10 ΔE nearer Copper Red, mean hue -33 degrees (82 off the
  // swatch's); after: 100 %, 25 degrees (24 off: a highlight in a blue light stays a little cooler).
  const head = await syntheticHead(engine, { lit: true });
  const hex = "#B4532A", target = hexToLab(hex);
  const out = dyedHead(head, hex);
  const lit: number[] = [];
  for (let p = 0; p < head.highlight.length; p++) if (head.highlight[p]) lit.push(p);
  const nearer = lit.filter((p) => deltaE(labOf(out, p), target) < deltaE(labOf(head.img, p), target) - 10);
  const hue = hueError(meanLab(out, lit), target);
  console.log(
    `blue-lit highlights: ${lit.length} px, ${(100 * nearer.length / lit.length).toFixed(1)} % nearer, hue ${
      hue.toFixed(1)
    } deg off`,
  );
  assert.ok(
    nearer.length >= 0.95 * lit.length,
    `${nearer.length} of ${lit.length} px 10 ΔE nearer the swatch`,
  );
  assert.ok(hue <= 30, `their mean hue ${hue.toFixed(1)} degrees off the swatch's`);
  // The rest of the head is dyed as the plain head is.
  const f = hairFigures(head, out, target);
  assert.ok(f.strandContrast >= 0.8, `strand contrast ${f.strandContrast.toFixed(2)}`);
  assert.ok(f.skinChange < 1, `skin ΔE ${f.skinChange.toFixed(2)}`);
});

Deno.test("synthetic head: no seam at the parting, darker roots, the hair at the face edge recoloured", async () => {
  const head = await syntheticHead(engine);
  const out = { ...head.img, data: head.img.data.slice() };
  const copper = hexToLab("#B4532A");
  recolorHair(out, head.g, head.person, "#B4532A");
  const f = hairFigures(head, out, copper);
  // Beside the scalp line the hair is dyed like the rest (a half-dyed band used to give ΔE 8-12).
  assert.ok(
    f.partingSeam < 3,
    `parting seam ΔE ${f.partingSeam.toFixed(2)} (before ${f.partingSeamBefore.toFixed(2)})`,
  );
  // The roots change less than the lengths, and stay darker.
  assert.ok(
    f.rootChangeRatio > 0.6 && f.rootChangeRatio < 0.9,
    `root change ${f.rootChangeRatio.toFixed(2)} of the lengths'`,
  );
  assert.ok(f.rootMinusLengthsL < -1, `roots ${f.rootMinusLengthsL.toFixed(1)} L* against the lengths`);
  // No unrecoloured band along the face.
  assert.ok(
    f.faceEdgeCoverage >= 0.9,
    `hair within 12 px of the face recoloured: ${f.faceEdgeCoverage.toFixed(2)}`,
  );
  // Not even for the faintest change, Chestnut on dark brown (81 % once: a half-dyed band along the face).
  const chestnut = hexToLab("#6A3E25"), faint = { ...head.img, data: head.img.data.slice() };
  recolorHair(faint, head.g, head.person, "#6A3E25");
  const fc = hairFigures(head, faint, chestnut);
  assert.ok(fc.faceEdgeCoverage >= 0.9, `chestnut: ${fc.faceEdgeCoverage.toFixed(2)} of the face edge`);
  assert.ok(fc.skinChange < 0.1, `chestnut: skin ΔE ${fc.skinChange.toFixed(2)}`);
});

Deno.test("synthetic cornrows: every braid recoloured with its weave, the face edge too, the face not", async () => {
  const head = await syntheticHead(engine, { braids: true });
  const W = head.img.width, braidsEnd = head.g.eyeCenter[1] - 0.2 * head.g.fh;
  const braids: number[] = [];
  for (let p = 0; p < head.hair.length; p++) {
    const y = Math.floor(p / W);
    if (head.hair[p] && y > head.crownY + 6 && y < braidsEnd) braids.push(p);
  }
  // Chestnut is the faintest change on dark brown; the lit braid lobes move least (31 % before this change).
  for (const [name, hex, least] of [["auburn", "#7E2E1F", 0.95], ["chestnut", "#6A3E25", 0.7]] as const) {
    const out = dyedHead(head, hex, name), target = hexToLab(hex);
    const moved = braids.filter((p) =>
      deltaE(labOf(out, p), target) < deltaE(labOf(head.img, p), target) - 8
    );
    const f = hairFigures(head, out, target);
    assert.ok(
      moved.length >= least * braids.length,
      `${name}: ${moved.length} of ${braids.length} braid pixels`,
    );
    assert.ok(f.strandContrast >= 0.8, `${name}: strand contrast ${f.strandContrast.toFixed(2)}`);
    assert.ok(f.faceEdgeCoverage >= 0.85, `${name}: face edge ${f.faceEdgeCoverage.toFixed(2)}`);
    assert.ok(f.skinChange < 0.1, `${name}: skin ΔE ${f.skinChange.toFixed(2)}`);
  }
});

Deno.test("bleaching dark hair to platinum is refused with a note, not painted grey", async () => {
  const photo = await cropFace(DARK_HAIR);
  const plain = await render(engine, job(photo, {}, undefined, "hair"));
  const res = await render(engine, job(photo, { hairColor: "platinum-blonde" }, undefined, "hair"));
  assert.ok(
    res.notes.some((n) => n.startsWith('Hair Color "Platinum Blonde" was not applied: lightening dark hair')),
    res.notes.join("; "),
  );
  const a = await decode(plain.image), b = await decode(res.image);
  const all = Array.from({ length: a.width * a.height }, (_, i) => i).filter((i) => i % 97 === 0);
  assert.ok(meanPixelDeltaE(a, b, all) < 0.5, "the image is left as it was");
});

Deno.test("facial hair: a beard is recoloured, lips and cheeks are not", async () => {
  const photo = await fx.withPaintedBeard(engine, FRONTAL_FACES[5]);
  const plain = await decode((await render(engine, job(photo, {}, undefined, "barber"))).image);
  const g = faceGeometry((await engine.detect(plain))[0].mesh);
  const res = await render(engine, job(photo, { facialHairColor: "ginger" }, undefined, "barber"));
  assert.deepEqual(res.notes, []);
  const out = await decode(res.image);
  const ginger = hexToLab("#A4512A");
  // The chin between the lower lip and the jaw.
  const chin = rect(
    plain,
    g.pts[152][0] - 0.08 * g.fw,
    g.pts[152][0] + 0.08 * g.fw,
    g.pts[17][1] + 0.04 * g.fh,
    g.pts[152][1] - 0.03 * g.fh,
  );
  const before = deltaE(meanLab(plain, chin), ginger), after = deltaE(meanLab(out, chin), ginger);
  assert.ok(after < before - 15, `beard ΔE to ginger ${before.toFixed(1)} -> ${after.toFixed(1)}`);
  const lips = polygonPixels(plain, LIPS_OUTER.map((i) => g.pts[i]), 2, 0.9);
  assert.ok(meanPixelDeltaE(plain, out, lips) < 3, "lips keep their colour");
  const cheeks = [
    ...polygonPixels(plain, CHEEK_R.map((i) => g.pts[i]), 2),
    ...polygonPixels(plain, CHEEK_L.map((i) => g.pts[i]), 2),
  ];
  assert.ok(meanPixelDeltaE(plain, out, cheeks) < 1, "cheeks untouched");
});

Deno.test("facial hair: beardless faces, shaded chins and lipstick are left alone, with a note", async () => {
  for (const face of [FRONTAL_FACES[0], FRONTAL_FACES[10], FRONTAL_FACES[12], DARK_HAIR]) {
    const photo = await cropFace(face);
    const plain = await render(engine, job(photo, {}, undefined, "barber"));
    const res = await render(engine, job(photo, { facialHairColor: "ginger" }, undefined, "barber"));
    assert.ok(
      res.notes.includes('Facial Hair Color "Ginger" was not applied: no facial hair was found to recolour'),
      `sample${face[0]} ${face.slice(1)}: ${res.notes.join("; ")}`,
    );
    assertSameBytes(res.image, plain.image, `sample${face[0]} ${face.slice(1)} changed`);
  }
});

/** Strand contrast: the spread of L* around its 5x5 local mean (the fine light/dark structure of hair). */
function strandContrast(img: Decoded, x0: number, x1: number, y0: number, y1: number): number {
  const L = (x: number, y: number) => labOf(img, y * img.width + x)[0];
  let s = 0, n = 0;
  for (let y = Math.round(y0) + 2; y < y1 - 2; y++) {
    for (let x = Math.round(x0) + 2; x < x1 - 2; x++) {
      let m = 0;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) m += L(x + dx, y + dy);
      s += (L(x, y) - m / 25) ** 2;
      n++;
    }
  }
  return Math.sqrt(s / n);
}

Deno.test("hair recolour keeps the strands' light and dark structure (>= 0.8 of the original)", async () => {
  for (const id of ["auburn", "copper-red"]) {
    const { plain, g, out } = await recoloured(DARK_HAIR, id);
    const top = g.pts[10];
    const box = [
      top[0] - 0.2 * g.fw,
      top[0] + 0.2 * g.fw,
      top[1] - 0.25 * g.fh,
      top[1] - 0.1 * g.fh,
    ] as const;
    const ratio = strandContrast(out, ...box) / strandContrast(plain, ...box);
    console.log(`${id}: strand contrast ${ratio.toFixed(2)} of the original`);
    assert.ok(ratio >= 0.8, `${id}: strand contrast ${ratio.toFixed(2)}`);
  }
});

Deno.test("near-black hair dyed lighter keeps its shadows dark: no flat brown slab (sample1@773)", async () => {
  // Her hair and the shadow between it and her jaw are crushed to L* 0-4. Moved by its L* offset from the
  // hair's mean alone, every such pixel took about the same lightness (median L* 21 under Copper Red): a flat
  // brown slab beside her face. A dye adds no light: shadows keep their luminance's ratio to the mean (to
  // the power 0.7), and the lit strands still take the shade.
  const { plain, out } = await recoloured(FRONTAL_FACES[2], "copper-red");
  const swatch = hexToLab("#B4532A");
  const crushed: number[] = [];
  let lit = 0, toward = 0;
  for (let p = 0; p < plain.width * plain.height; p += 2) {
    const before = labOf(plain, p), after = labOf(out, p);
    if (deltaE(before, after) <= 3) continue;
    if (before[0] <= 4) crushed.push(after[0]);
    else if (before[0] >= 15) {
      lit++;
      if (deltaE(after, swatch) <= deltaE(before, swatch) - 10) toward++;
    }
  }
  const median = crushed.sort((a, b) => a - b)[crushed.length >> 1];
  console.log(
    `crushed shadows dyed: ${crushed.length} px, median L* ${
      median.toFixed(1)
    }; lit strands: ${toward} of ${lit} ` +
      `10 ΔE or more nearer the swatch`,
  );
  assert.ok(median <= 15, `crushed shadows dyed to median L* ${median.toFixed(1)}`);
  assert.ok(lit > 20_000 && toward >= 0.9 * lit, `lit strands: ${toward} of ${lit} moved toward the swatch`);
});

Deno.test("pale strands in dark hair take the shade at their own lightness, not left grey-green", async () => {
  // Olive lights and sheen beside dark strands, a minority the hair colour
  // samples do not hold: they kept their colour (grey-green in auburn hair).
  // Measured before -> after: pale strands grey or green 83 -> 16 % (Auburn),
  // 67 -> 12 % (Copper Red); their mean hue 36 -> 15 and 27 -> 10 degrees off.
  const head = await syntheticHead(engine, { pale: true });
  const strands: number[] = [];
  for (let p = 0; p < head.hair.length; p++) if (head.hair[p] && head.paleStrand[p]) strands.push(p);
  for (const [name, hex] of [["auburn", "#7E2E1F"], ["copper red", "#B4532A"]]) {
    const out = dyedHead(head, hex, name), target = hexToLab(hex);
    const f = hairFigures(head, out, target);
    const grey = greyShare(out, strands, target), hue = hueError(meanLab(out, strands), target);
    console.log(`synthetic pale strands, ${name}: ${shown({ grey, hue, strands: f.strandContrast }, 3)}`);
    assert.ok(grey <= 0.3, `${name}: ${(100 * grey).toFixed(0)} % of the pale strands grey or green`);
    assert.ok(hue <= 18, `${name}: pale strands ${hue.toFixed(1)} degrees off the shade`);
    assert.ok(f.strandContrast >= 0.8, `${name}: strand contrast ${f.strandContrast.toFixed(2)}`);
    assert.ok(f.skinChange < 0.1, `${name}: skin ΔE ${f.skinChange.toFixed(2)}`);
  }
  // The demo portraits: sample5@1045's pale highlights above the forehead
  // (18 -> 2.7 % grey or green) and sample1@1438's strands beside her temple
  // (28 -> 5.6 %), Auburn at the tests' crop.
  for (
    const [face, where, most] of [[FRONTAL_FACES[11], "crown", 0.08], [
      FRONTAL_FACES[1],
      "temple",
      0.12,
    ]] as const
  ) {
    const { plain, g, res, out } = await recoloured(face, "auburn");
    assert.deepEqual(res.notes, []);
    const top = g.pts[10], right = g.pts[356][0];
    const px = where === "crown"
      ? rect(plain, top[0] - 0.15 * g.fw, top[0] + 0.15 * g.fw, top[1] - 0.3 * g.fh, top[1] - 0.12 * g.fh)
      : rect(plain, right + 0.04 * g.fw, right + 0.2 * g.fw, top[1] - 0.1 * g.fh, g.eyeCenter[1]);
    const target = hexToLab("#7E2E1F"), grey = greyShare(out, px, target);
    console.log(
      `sample${face[0]}@${face[1]} ${where}: grey or green ${
        shown({ before: greyShare(plain, px, target), after: grey }, 3)
      }`,
    );
    assert.ok(
      grey <= most,
      `sample${face[0]}@${face[1]} ${where}: ${(100 * grey).toFixed(1)} % grey or green`,
    );
  }
});

Deno.test("a dark strand lying across the face (sample6@587) is dyed with the hair; the face's skin is not", async () => {
  const photo = await cropFace(FRONTAL_FACES[15]);
  const plain = await decode((await render(engine, job(photo, {}, undefined, "hair"))).image);
  const out = await decode(
    (await render(engine, job(photo, { hairColor: "auburn" }, undefined, "hair"))).image,
  );
  const g = faceGeometry((await engine.detect(plain))[0].mesh);
  const f = strandFigures(plain, out, g);
  console.log(
    `sample6@587: strand dyed ${(100 * f.strand).toFixed(1)} %, skin changed ${(100 * f.skin).toFixed(2)} %`,
  );
  // Before: 9.8 % (the strand stayed near-black beside auburn hair, with a hard edge where the face core began).
  assert.ok(f.strand >= 0.5, `strand dyed ${f.strand}`);
  assert.ok(f.skin <= 0.005, `skin changed ${f.skin}`);
});

/**
 * On her left side of the face (beyond the eye's outer corner, the face oval
 * below the brows and above the mouth corners): the share of the dark pixels
 * (L* < 35: the strand) moved by ΔE > 8, and of the oval's light pixels
 * (L* >= 45: skin) by ΔE > 3.
 */
function strandFigures(
  plain: Decoded,
  out: Decoded,
  g: ReturnType<typeof faceGeometry>,
): { strand: number; skin: number } {
  const browY = Math.min(g.pts[105][1], g.pts[334][1]), mouthY = Math.max(g.pts[61][1], g.pts[291][1]);
  const oval = polygonPixels(plain, FACE_OVAL.map((k) => g.pts[k]), 2).filter((p) => p / plain.width > browY);
  const strand = oval.filter((p) =>
    p % plain.width > g.pts[263][0] && p / plain.width < mouthY && labOf(plain, p)[0] < 35
  );
  const skin = oval.filter((p) => labOf(plain, p)[0] >= 45);
  const moved = (px: number[], by: number) =>
    px.filter((p) => deltaE(labOf(plain, p), labOf(out, p)) > by).length / Math.max(1, px.length);
  return { strand: moved(strand, 8), skin: moved(skin, 3) };
}

/** sample4@1216's hair colours (her two light clusters beside and above the face, measured). */
const BLONDE_BESIDE_LIT_SKIN: Lab[] = [[85.5, 9.9, 28.4], [91.6, 3.5, 20.9]];

/**
 * sample4@1216 recoloured to `target`: the share of her hair (pixels outside
 * the face oval grown by 15 %, from 0.6 face heights above the mesh's top to
 * 1.2 below the chin, within ΔE 12 of one of her hair colours and more than 12
 * from her skin) moved ΔE 8 toward the shade; the share of the skin changed by
 * more than ΔE 6 in the face oval below the brows (skin-coloured pixels there:
 * within ΔE 20 of the skin and its hue, not the hair over the face's edge),
 * on her forehead (the mesh's top 0.2 face widths to its right, from 0.15 face
 * heights above it down to the brows, skin-hued) and on the neck under the
 * chin; the strands' 5x5 L* spread in the hair beside her face, after / before.
 */
function blondeFigures(plain: Decoded, out: Decoded, g: ReturnType<typeof faceGeometry>, target: Lab) {
  const W = plain.width, H = plain.height;
  const skin = meanLab(plain, skinPatches(plain, g)), skinHue = hue(skin);
  const skinLike = (p: number) => {
    const l = labOf(plain, p);
    return deltaE(l, skin) < 20 && hueDist(hue(l), skinHue) < (10 * Math.PI) / 180;
  };
  const changed = (px: number[]) => px.length ? movedShare(plain, out, px) : 0;
  const browY = Math.min(g.pts[105][1], g.pts[334][1]), top = g.pts[10], chin = g.pts[152];
  const face = polygonPixels(plain, FACE_OVAL.map((k) => g.pts[k]), 2).filter((p) => p / W > browY)
    .filter(skinLike);
  const forehead = rect(plain, top[0] - 0.2 * g.fw, top[0], top[1] - 0.15 * g.fh, browY).filter(skinLike);
  const neck = neckBox(plain, g).filter((p) => deltaE(labOf(plain, p), skin) < 20);
  const grown = new Uint8Array(W * H);
  const c = g.center;
  for (
    const p of polygonPixels(
      plain,
      FACE_OVAL.map((k): [number, number] => [
        c[0] + (g.pts[k][0] - c[0]) * 1.15,
        c[1] + (g.pts[k][1] - c[1]) * 1.15,
      ]),
      0,
    )
  ) grown[p] = 1;
  const hair = rect(plain, c[0] - 1.5 * g.fw, c[0] + 1.5 * g.fw, top[1] - 0.6 * g.fh, chin[1] + 1.2 * g.fh)
    .filter((p) => {
      if (grown[p]) return false;
      const l = labOf(plain, p);
      return BLONDE_BESIDE_LIT_SKIN.some((h) => deltaE(l, h) < 12) && deltaE(l, skin) > 12;
    });
  const moved = hair.filter((p) => deltaE(labOf(out, p), target) < deltaE(labOf(plain, p), target) - 8);
  // Strands: her lengths beside the face's right edge, from the eyes to the chin.
  const side = g.pts[356][0], eyeY = g.eyeCenter[1];
  const box = [side + 0.05 * g.fw, side + 0.3 * g.fw, eyeY, chin[1]] as const;
  return {
    hairPixels: hair.length,
    hair: moved.length / Math.max(1, hair.length),
    face: changed(face),
    forehead: changed(forehead),
    neck: changed(neck),
    strands: strandContrast(out, ...box) / strandContrast(plain, ...box),
  };
}

Deno.test("synthetic ombre: the lighter lengths are dyed with the hair; the neck, chest and face are not", async () => {
  // Lengths turning a lighter, warmer brown (about ΔE 13 from the chest's skin they fall over) lay outside
  // the hair colours sampled above the forehead and beside the temples: none of them was dyed before
  // reachLengths (0 % -> 81 % Auburn, 0 -> 77 % Copper Red; the body's skin unchanged).
  const head = await syntheticHead(engine, { ombre: true });
  for (const [name, hex] of [["auburn", "#7E2E1F"], ["copper red", "#B4532A"]]) {
    const out = dyedHead(head, hex, name), target = hexToLab(hex);
    const f = lengthsFigures(head, out, target), h = hairFigures(head, out, target);
    console.log(`synthetic ombre, ${name}: ${shown({ ...f, face: h.skinChange }, 3)}`);
    assert.ok(f.lengthsDyed >= 0.6, `${name}: ${(100 * f.lengthsDyed).toFixed(0)} % of the lengths dyed`);
    assert.ok(
      f.bodyChanged <= 0.002,
      `${name}: ${(100 * f.bodyChanged).toFixed(2)} % of the body's skin changed`,
    );
    assert.ok(h.skinChange < 0.1, `${name}: face ΔE ${h.skinChange.toFixed(2)}`);
  }
});

Deno.test("synthetic ombre: lighter lengths dyed a darker shade take it, their strands kept", async () => {
  // The recolour keeps each pixel's L* offset from the hair's mean: light ends under a darker shade stayed
  // far lighter than it (the bench portrait's blonde ends under Auburn: pale salmon). Measured on the ombre
  // lengths' dyed pixels (ΔE over 5), Auburn: median L* 64 before the deposit (see hair-deposit.ts); after
  // it, nearer the shade's 31, with the strands' local L* contrast (strandSpread beside the neck) kept.
  const head = await syntheticHead(engine, { ombre: true });
  const hex = "#7E2E1F", target = hexToLab(hex);
  const out = dyedHead(head, hex);
  const dyed: number[] = [];
  for (let p = 0; p < head.ombre.length; p++) {
    if (head.ombre[p] && deltaE(labOf(head.img, p), labOf(out, p)) > 5) dyed.push(p);
  }
  const L = dyed.map((p) => labOf(out, p)[0]).sort((a, b) => a - b), median = L[L.length >> 1];
  const g = head.g, chinY = g.pts[152][1];
  const box = [g.center[0] - 0.75 * g.fw, g.center[0] - 0.55 * g.fw, chinY, chinY + 0.3 * g.fh] as const;
  const strands = strandSpread(out, ...box) / strandSpread(head.img, ...box);
  console.log(
    `ombre lengths under Auburn: ${dyed.length} px dyed, median L* ${median.toFixed(1)}, strands ${
      strands.toFixed(2)
    }`,
  );
  assert.ok(
    median <= target[0] + 20,
    `dyed lengths' median L* ${median.toFixed(1)} (the shade's ${target[0].toFixed(0)})`,
  );
  assert.ok(strands >= 0.8, `strand contrast in the lengths ${strands.toFixed(2)} of the original`);
});

/**
 * A portrait's crown above the mesh's top (0.02-0.3 face heights, 0.35 face widths either side, the person mask
 * at 0.95 and more, plain L* up to 58: hair, not the forehead) dyed Jet Black on its rendered canvas: the
 * crown's pixels, their L* after (ascending), and the canvases and geometry.
 */
async function jetBlackCrown(face: [number, number, number, number]) {
  const { framed, g, person } = await renderedPortrait(engine, face);
  const top = g.pts[10], W = framed.width, crown: number[] = [];
  for (let y = Math.round(top[1] - 0.3 * g.fh); y < top[1] - 0.02 * g.fh; y++) {
    for (let x = Math.round(top[0] - 0.35 * g.fw); x < top[0] + 0.35 * g.fw; x++) {
      if (personAt(person, x, y) >= 0.95 && labOf(framed, y * W + x)[0] <= 58) crown.push(y * W + x);
    }
  }
  const out = { ...framed, data: framed.data.slice() };
  assert.equal(recolorHair(out, g, person, "#1B1B1D").applied, true);
  return { crown, L: crown.map((p) => labOf(out, p)[0]).sort((a, b) => a - b), framed, out, g, person };
}

Deno.test("a shade far darker than the hair covers its crown too: Jet Black on light brown hair", async () => {
  // Far darker than every colour of her hair (DEEPER_BY), the dye is painted at full strength, and the hair
  // about each node lighter than the mean keeps its luminance scaled by the dye as the mean's is (a lit crown
  // and light lengths alike), not its L* offset. Measured above the mesh's top (0.02-0.3 face heights, 0.35
  // face widths either side, the person mask at 0.95 and more, plain L* up to 58: hair, not the forehead): the
  // crown's median L* under Jet Black (the shade's 10) was 38.1 (sample3@1005), 27.9 (sample4@908) and 21.5
  // (sample5@1045); 30.8, 19.7 and 16.3 after, and 27.7 on sample3@1005 once her lit hairline was dyed as hair
  // (see the next test).
  for (
    const [face, most] of [[FRONTAL_FACES[6], 30], [FRONTAL_FACES[9], 23], [FRONTAL_FACES[11], 19]] as const
  ) {
    const { crown, L } = await jetBlackCrown(face);
    const median = L[L.length >> 1], name = `sample${face[0]}@${face[1]}`;
    console.log(`${name}, Jet Black: crown of ${crown.length} px, median L* ${median.toFixed(1)}`);
    assert.ok(crown.length > 5000, `${name}: ${crown.length} crown pixels`);
    assert.ok(median <= most, `${name}: the crown's median L* ${median.toFixed(1)} under Jet Black`);
  }
  // The synthetic light brown head (its striped lengths aside, strands of L* about 40-50): its hair above
  // the eyes had a median L* of 17.4 under Jet Black, 14.7 now; its strands' local contrast is kept.
  const head = await syntheticHead(engine, { striped: true });
  const out = dyedHead(head, "#1B1B1D"), W = head.img.width, crown: number[] = [];
  for (let p = 0; p < head.hair.length; p++) if (head.hair[p] && p / W < head.g.eyeCenter[1]) crown.push(p);
  const L = crown.map((p) => labOf(out, p)[0]).sort((a, b) => a - b), median = L[L.length >> 1];
  const top = head.g.pts[10], fw = head.g.fw;
  const box = [top[0] - 0.3 * fw, top[0] + 0.3 * fw, head.crownY + 10, top[1] - 10] as const;
  const strands = strandSpread(out, ...box) / strandSpread(head.img, ...box);
  console.log(
    `synthetic light brown, Jet Black: crown median L* ${median.toFixed(1)}, strands ${strands.toFixed(2)}`,
  );
  assert.ok(median <= 16, `synthetic: the crown's median L* ${median.toFixed(1)}`);
  assert.ok(strands >= 0.8, `synthetic: strand contrast ${strands.toFixed(2)} of the original`);
});

Deno.test("a lit hairline takes a dark dye as hair, with no straight-edged patch: Jet Black on sample3@1005", async () => {
  // Along the forehead and temples, pixels between the hair's lightness and the skin's are dyed as blends of
  // the two (the hairline's table), judged by the hair's mean lightness. Her lit light brown hair there lies
  // 0.24-0.54 of the way from that mean to the skin, so its strands were dyed as blends and stayed light brown:
  // 35.9 % of her crown stayed lighter than L* 35 under Jet Black (its swatch L* 10), in a band along the
  // hairline; 15.6 % now (LIT_HAIR_FROM). The zone of that table over the forehead ended in straight lines
  // 0.6 face widths either side of the face's centre: beside her temple the dye's change (ΔE, 3 px either side
  // of that column, over the hair's rows above the brows) jumped by 7.9 across it; 0.9 now, faded in over
  // SOFT_FEATHER (the median column elsewhere: 0.5-0.7).
  const { L, framed, out, g, person } = await jetBlackCrown(FRONTAL_FACES[6]);
  const light = L.filter((v) => v > 35).length / L.length;
  const W = framed.width,
    change = (x: number, y: number) => deltaE(labOf(framed, y * W + x), labOf(out, y * W + x));
  const side = Math.round(g.center[0] + 0.6 * g.fw),
    browTop = Math.min(g.pts[105][1], g.pts[334][1]) - 0.03 * g.fh;
  let jump = 0, rows = 0;
  for (let y = Math.round(browTop - 0.6 * g.fh); y < browTop; y++) {
    if (personAt(person, side - 3, y) < 0.95 || personAt(person, side + 3, y) < 0.95) continue;
    jump += change(side + 3, y) - change(side - 3, y), rows++;
  }
  console.log(
    `sample3@1005, Jet Black: ${(100 * light).toFixed(1)} % of the crown lighter than L* 35; change across` +
      ` the zone's old side ${(jump / rows).toFixed(2)} over ${rows} rows`,
  );
  assert.ok(light <= 0.22, `${(100 * light).toFixed(1)} % of the crown lighter than L* 35`);
  assert.ok(rows >= 50, `${rows} rows of hair across the zone's side`);
  assert.ok(
    Math.abs(jump / rows) <= 3,
    `the change jumps by ${(jump / rows).toFixed(2)} across the zone's side`,
  );
});

Deno.test("closeSeams: hair between grown lengths takes their strength; gaps, long runs and stronger hair do not", () => {
  // A 20 x 9 grid: lengths grown at 0.9 with hair the colour model half knew (mask 0.6) between them, in runs
  // of 3 (row 1), 6 (row 3) and 7 (row 5) nodes; row 7's run holds a node that is not hair (0.2).
  const w = 20, h = 9, grown = new Float32Array(w * h), data = new Float32Array(w * h);
  const run = (row: number, from: number, n: number, gap?: number) => {
    grown[row * w + from - 1] = grown[row * w + from + n] = 0.9;
    for (let i = from; i < from + n; i++) data[row * w + i] = i === gap ? 0.2 : 0.6;
  };
  run(1, 2, 3);
  run(3, 2, 6);
  run(5, 2, 7);
  run(7, 2, 4, 3);
  data[1 * w + 3] = 0.95; // stronger than the lengths: keeps its own
  closeSeams(grown, data, w, h);
  assert.deepEqual([...grown.slice(w + 2, w + 5)].map((v) => +v.toFixed(2)), [0.9, 0, 0.9], "row 1");
  assert.ok(grown.slice(3 * w + 2, 3 * w + 8).every((v) => Math.abs(v - 0.9) < 1e-6), "row 3: six nodes");
  assert.ok(grown.slice(5 * w + 2, 5 * w + 9).every((v) => v === 0), "row 5: seven nodes stay");
  assert.ok(grown.slice(7 * w + 2, 7 * w + 6).every((v) => v === 0), "row 7: broken by a node not hair");
});

Deno.test("fillEnclosed: a skin-coloured hole is filled when it continues the dyed hair about it, not otherwise", () => {
  // A 12 x 12 grid of dyed hair (mask 0.9) with a 4 x 4 hole in its middle that the colour model reads as skin
  // (0.8). Each node's colour (see Lengths.colourAt) is set per case, the hair's about it and the hole's.
  // Skin: L* 62, a* 5, b* 28 (chroma 28.4).
  const w = 12, h = 12, n = w * h, skin: Lab = [62, 5, 28], lock: Lab = [44, 3, 25];
  const inHole = (k: number) => {
    const i = k % w, j = (k - i) / w;
    return i >= 4 && i < 8 && j >= 4 && j < 8;
  };
  /** Whether the whole hole was dyed, with the hole's and the hair's colours (no colours: as before). */
  const filled = (colours?: { hole: Lab; hair: Lab }) => {
    const data = new Float32Array(n), skinLike = new Float32Array(n);
    for (let k = 0; k < n; k++) {
      if (inHole(k)) skinLike[k] = 0.8;
      else data[k] = 0.9;
    }
    fillEnclosed(
      { x: 0, y: 0, w, h, data },
      new Float32Array(n),
      new Float32Array(n).fill(1),
      new Uint8Array(n),
      skinLike,
      new Float32Array(n).fill(1),
      new Float32Array(n),
      8,
      colours && { colourAt: (k) => (inHole(k) ? colours.hole : colours.hair), skin },
    );
    const hole = [...data].filter((_, k) => inHole(k));
    assert.ok(hole.every((v) => v === 0) || hole.every((v) => v > 0.85), "all of the hole or none of it");
    return hole[0] > 0;
  };
  assert.ok(filled({ hole: [46, 4, 27], hair: lock }), "a light lock 3.0 ΔE from the hair about it is dyed");
  assert.ok(!filled(), "without the nodes' colours the skin-like hole stays, as before");
  assert.ok(!filled({ hole: [79, -1, 3], hair: lock }), "a pale hoop earring's gap, 41.5 ΔE off, stays");
  assert.ok(!filled({ hole: [55, 8, 30], hair: lock }), "skin between locks, 13.1 ΔE off, stays");
  // A grey top between grey-edged locks: 4 ΔE from them, with under a tenth of the skin's chroma.
  assert.ok(!filled({ hole: [49, 1, 2], hair: [45, 1, 2] }), "a grey top's corner stays");
});

Deno.test("light locks inside dyed hair are dyed with it, not left golden (sample6@1081, Auburn)", async () => {
  // Her ombré ends are her skin's hue, darker: among the lengths at the image left, just above the chin, a lock
  // lies across a curl, and the colour model reads its nodes as skin. Enclosed by dyed hair, it stayed golden
  // (olive beside auburn). In a box on that curl (0.58-0.8 face widths left of the face's centre, 0.65-0.95 of
  // the way from the eyes to the chin), the share of the pixels golden in the photo (L* 35-70, chroma over 12,
  // hue over 65 degrees) still golden in the result: 40.1 % before, 6.7 % now.
  const { plain, g, res, out } = await recoloured(DARK_HAIR, "auburn");
  assert.deepEqual(res.notes, []);
  const eyeY = g.eyeCenter[1], chinY = g.pts[152][1];
  const golden = (l: Lab) =>
    l[0] > 35 && l[0] < 70 && Math.hypot(l[1], l[2]) > 12 && Math.atan2(l[2], l[1]) > 65 * Math.PI / 180;
  let n = 0, gold = 0, kept = 0;
  for (let y = Math.round(eyeY + 0.65 * (chinY - eyeY)); y < eyeY + 0.95 * (chinY - eyeY); y++) {
    for (let x = Math.round(g.center[0] - 0.8 * g.fw); x < g.center[0] - 0.58 * g.fw; x++) {
      const p = y * plain.width + x;
      n++;
      if (!golden(labOf(plain, p))) continue;
      gold++;
      if (golden(labOf(out, p))) kept++;
    }
  }
  console.log(
    `sample6@1081: ${kept} of ${gold} golden px of ${n} left golden (${(100 * kept / gold).toFixed(1)} %)`,
  );
  assert.ok(gold >= 0.5 * n, `the box is her golden lock (${gold} of ${n} px)`);
  assert.ok(kept <= 0.15 * gold, `${(100 * kept / gold).toFixed(1)} % of the lock left golden`);
});

Deno.test("no seam of half-dyed hair in lengths dyed far darker: Jet Black, no row of orange dots", async () => {
  // The lengths grow from the dyed hair (see reachLengths), which kept its own strength: where the colour model
  // half knew the hair (mask 0.5-0.9) between lengths grown whole, a streak was dyed at half strength, and the
  // refinement judged its lit pixels one by one as skin: sample1@1438's golden lengths under Jet Black showed
  // a seam and a row of orange dots at the chin. Counted as undyedSpecks (pixels changed by under 0.6 of the
  // mean change about them, where that is ΔE 25 or more): sample1@1438 82, sample3@515 79, sample5@1045 21
  // before closeSeams and the cells inside the hair held at their weakest node's strength; 2, 17 and 0 after.
  for (
    const [face, most] of [[FRONTAL_FACES[1], 10], [FRONTAL_FACES[5], 35], [FRONTAL_FACES[11], 10]] as const
  ) {
    const { framed, g, person } = await renderedPortrait(engine, face);
    const out = { ...framed, data: framed.data.slice() };
    assert.equal(recolorHair(out, g, person, "#1B1B1D").applied, true);
    const specks = undyedSpecks(framed, out), name = `sample${face[0]}@${face[1]}`;
    console.log(`${name}, Jet Black: ${specks} undyed specks`);
    assert.ok(specks <= most, `${name}: ${specks} pixels of undyed specks in the dyed hair`);
  }
});

Deno.test("a shade far darker than the hair closes up hair it half knew: no blotches at sample1@1438's crown, sample4@908's ear untouched", async () => {
  // Her lit strawberry-blonde crown is half like her skin to the colour model; Jet Black is painted at full
  // strength (see DEEPER_BY), so the half-dyed nodes showed as light brown blotches with the grid's edges. In a
  // box of her crown beside the parting (0.5-0.84 face widths right of the face's centre, 0.5-0.81 above it),
  // pixels still at L* 30 or more: 26.7 % before the closing (see DEEPER_CLOSE_FROM), 19.6 % after; specks left
  // undyed in the hair (see undyedSpecks) 58 -> 0.
  const { plain, g, out } = await recoloured(FRONTAL_FACES[1], "jet-black");
  const crown = rect(
    plain,
    g.center[0] + 0.5 * g.fw,
    g.center[0] + 0.84 * g.fw,
    g.center[1] - 0.81 * g.fw,
    g.center[1] - 0.5 * g.fw,
  );
  const light = (img: Decoded) => crown.filter((p) => labOf(img, p)[0] >= 30).length / crown.length;
  const specks = undyedSpecks(plain, out);
  console.log(
    `sample1@1438, Jet Black: crown at L* 30+ ${(100 * light(plain)).toFixed(1)} % -> ${
      (100 * light(out)).toFixed(1)
    } %, ${specks} undyed specks`,
  );
  assert.ok(light(plain) >= 0.9, `the box is her light crown (${(100 * light(plain)).toFixed(1)} % light)`);
  assert.ok(light(out) <= 0.22, `${(100 * light(out)).toFixed(1)} % of her crown left light`);
  assert.ok(specks <= 10, `${specks} pixels of undyed specks in her dyed hair`);
  // Closed whole, the mask took the skin between her braids and her ear: sample4@908's ear, in the lobe's zone
  // on the image right, was dyed grey (47 % of its skin-coloured pixels moved by over 6 ΔE; 17-19 % is the hair
  // over its edge).
  const nb = await recoloured(FRONTAL_FACES[9], "jet-black");
  const cheek = labOf(nb.plain, Math.round(nb.g.pts[205][1]) * nb.plain.width + Math.round(nb.g.pts[205][0]));
  const zone = earLobes(nb.g.pts, nb.g.fw)[1];
  const ear = rect(nb.plain, zone.x0, zone.x1, zone.y0, zone.y1)
    .filter((p) => deltaE(labOf(nb.plain, p), cheek) < 12);
  const moved = movedShare(nb.plain, nb.out, ear);
  console.log(
    `sample4@908, Jet Black: ${(100 * moved).toFixed(1)} % of ${ear.length} skin px by her ear dyed`,
  );
  assert.ok(ear.length > 1000, `the zone holds her ear (${ear.length} px)`);
  assert.ok(moved <= 0.25, `${(100 * moved).toFixed(1)} % of the skin by her ear dyed`);
});

Deno.test("dark hair dyed lighter: the blends of hair and skin at the hairline take the dye, never a pale band", async () => {
  // The recolour maps a pixel by its lightness offset from the hair's mean, stretched when dark hair is
  // lightened a lot; the hairline's blends of hair and skin, far lighter than any strand, went to white
  // out of gamut: a grey-white band between the forehead and the copper hair, or a pale patch over the
  // forehead. Counted: pixels of the ring around the face oval above the eyes that the dye made lighter
  // (> 5 L*) and greyer (chroma down > 3). Before: 2,600-22,000 per look; after: 0-158.
  for (const face of [FRONTAL_FACES[7], FRONTAL_FACES[13], FRONTAL_FACES[14]]) {
    for (const id of ["copper-red", "caramel"]) {
      const { plain, g, res, out } = await recoloured(face, id);
      assert.deepEqual(res.notes, [], `sample${face[0]}@${face[1]} ${id}`);
      const ring = (k: number) =>
        polygonPixels(
          plain,
          FACE_OVAL.map((i): [number, number] => [
            g.center[0] + (g.pts[i][0] - g.center[0]) * k,
            g.center[1] + (g.pts[i][1] - g.center[1]) * k,
          ]),
          0,
          0.5,
        );
      const inner = new Set(ring(0.9));
      const zone = ring(1.2).filter((p) => !inner.has(p) && Math.floor(p / plain.width) < g.eyeCenter[1]);
      let paled = 0;
      for (const p of zone) {
        const [a, b] = [labOf(plain, p), labOf(out, p)];
        if (b[0] > a[0] + 5 && Math.hypot(b[1], b[2]) < Math.hypot(a[1], a[2]) - 3) paled++;
      }
      console.log(`sample${face[0]}@${face[1]} ${id}: ${paled} of ${zone.length} hairline px made paler`);
      assert.ok(paled <= 300, `sample${face[0]}@${face[1]} ${id}: ${paled} px made paler`);
    }
  }
});

Deno.test("synthetic head: pale strands over the crown, far from the skin, are dyed as fully as those in the lengths", async () => {
  // The soft hairline's plane covers all the hair above the brows; the table for blends of hair and skin
  // used it whole, so lighter strands deep in the hair there were dyed as blends, weaker than the same
  // strands below the brows: a greyer rectangle with a straight edge at the brows' line (sample6@587).
  // Measured: the pale strands' mean ΔE moved, over the crown against the lengths. Before: 0.56-0.66;
  // after: 0.86-0.87.
  const head = await syntheticHead(engine, { pale: true });
  const eyeY = head.g.eyeCenter[1];
  const crown: number[] = [], lengths: number[] = [];
  for (let p = 0; p < head.paleStrand.length; p++) {
    if (head.paleStrand[p]) (Math.floor(p / head.img.width) < eyeY ? crown : lengths).push(p);
  }
  for (const hex of ["#B4532A", "#7E2E1F", "#A0683A"]) {
    const img = dyedHead(head, hex, hex);
    const moved = (px: number[]) => meanPixelDeltaE(head.img, img, px);
    const ratio = moved(crown) / moved(lengths);
    console.log(
      `${hex}: crown ${moved(crown).toFixed(1)}, lengths ${moved(lengths).toFixed(1)}, ratio ${
        ratio.toFixed(2)
      }`,
    );
    assert.ok(crown.length > 1000 && lengths.length > 1000);
    assert.ok(ratio >= 0.8, `${hex}: the crown's pale strands moved ${ratio.toFixed(2)} of the lengths'`);
  }
});

Deno.test("dark hair lit blue is dyed whole: no blue blotches in copper hair (sample3@1372)", async () => {
  // Her near-black hair takes a blue light from the side: its highlights were left blue inside the dyed hair,
  // two blotches about 0.1 face widths long beside her jaw and shoulder. Blue pixels (b* under -12, chroma over
  // 15) in the box x 0-450, y 950-1250 of the 1080x1920 render: 8,682 in the photo; under Copper Red 2,477
  // before the hair's enclosed holes were filled (see fillEnclosed), 407 after (strands at the hair's edge).
  const { plain, out } = await recoloured(FRONTAL_FACES[7]);
  const blue = (img: Decoded) =>
    rect(img, 0, 450, 950, 1250).filter((p) => {
      const [, a, b] = labOf(img, p);
      return b < -12 && Math.hypot(a, b) > 15;
    }).length;
  const before = blue(plain), after = blue(out);
  console.log(`sample3@1372 blue pixels beside the jaw: ${before} in the photo, ${after} dyed`);
  assert.ok(before >= 5000, `the photo's blue-lit hair: ${before} px`);
  assert.ok(after <= 1000, `${after} blue pixels left in her copper hair`);
});

Deno.test("skin in a second light is not hair: her shoulder keeps its colour (sample3@1372, lit blue and warm)", async () => {
  // Lit blue from the front and warm from above, her skin is two colours 77 degrees of hue apart: the warm
  // half (upper forehead, nose, the shoulder under her hair) came out as a hair colour, and Copper Red dyed
  // her shoulder pale peach with ragged edges. Counted: pixels below the chin, as light as skin (L* > 55),
  // that the dye moved by ΔE > 10. Before: 39,102; after: 0.
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[7]);
  assert.deepEqual(res.notes, []);
  const chinY = g.pts[152][1];
  let dyed = 0;
  for (let p = Math.ceil(chinY) * plain.width; p < plain.width * plain.height; p++) {
    const a = labOf(plain, p);
    if (a[0] > 55 && deltaE(a, labOf(out, p)) > 10) dyed++;
  }
  console.log(`sample3@1372: ${dyed} skin-light px below the chin dyed`);
  assert.ok(dyed <= 500, `${dyed} px of her shoulder dyed`);
  // Her hair is still dyed: the patch above the forehead moves toward the shade.
  const top = g.pts[10], hair: number[] = [];
  for (let y = Math.round(top[1] - 0.25 * g.fh); y < top[1] - 0.12 * g.fh; y++) {
    for (let x = Math.round(top[0] - 0.15 * g.fw); x < top[0] + 0.15 * g.fw; x++) {
      hair.push(y * plain.width + x);
    }
  }
  const before = deltaE(meanLab(plain, hair), COPPER_RED), after = deltaE(meanLab(out, hair), COPPER_RED);
  assert.ok(after < before - 10, `hair ΔE to the shade ${before.toFixed(1)} -> ${after.toFixed(1)}`);
});

/** The bounding box of the mesh's brow `idx` (BROW_R or BROW_L). */
function browExtent(g: FaceGeometry, idx: readonly number[]) {
  const xs = idx.map((i) => g.pts[i][0]), ys = idx.map((i) => g.pts[i][1]);
  const left = Math.min(...xs), right = Math.max(...xs);
  return { left, right, width: right - left, top: Math.min(...ys), bottom: Math.max(...ys) };
}

/** The pixels of `img` in the box [x0, x1) x [y0, y1) (starts rounded) darker than L* `maxL`. */
function darkPixels(img: Decoded, maxL: number, [x0, x1]: number[], [y0, y1]: number[]): number[] {
  const out: number[] = [];
  for (let y = Math.round(y0); y < y1; y++) {
    for (let x = Math.round(x0); x < x1; x++) {
      const p = y * img.width + x;
      if (labOf(img, p)[0] < maxL) out.push(p);
    }
  }
  return out;
}

Deno.test("hair over a brow's tail at the temple is dyed; the brows are not (sample3@1372, sample6@587)", async () => {
  // The brows are kept out of the hair as boxes reaching 0.1 brow widths past their ends. Where hair lies
  // over the temple, the box's outer end was hair, left dark and undyed in a rectangle with straight edges
  // beside dyed hair. Counted: the dark pixels (L* < 30) of the box's outer end (0.1 brow widths either side
  // of the brow's end, from 0.08 face widths above the brow to 0.02 below) that Copper Red left as they
  // were (ΔE < 5). Before: 70 % (sample3@1372, image-left), 75 % (sample6@587, image-right); after: 0 %, 10 %.
  for (const [face, idx, side] of [[FRONTAL_FACES[7], BROW_R, -1], [FRONTAL_FACES[15], BROW_L, 1]] as const) {
    const { plain, g, res, out } = await recoloured(face);
    const name = `sample${face[0]}@${face[1]}`;
    assert.deepEqual(res.notes, [], name);
    const brow = browExtent(g, idx), end = side < 0 ? brow.left : brow.right;
    const px = darkPixels(plain, 30, [end - 0.1 * brow.width, end + 0.1 * brow.width], [
      brow.top - 0.08 * g.fw,
      brow.bottom + 0.02 * g.fw,
    ]);
    const dark = px.length, kept = px.filter((p) => deltaE(labOf(plain, p), labOf(out, p)) < 5).length;
    console.log(`${name}: ${kept} of ${dark} dark px at the brow's end left undyed`);
    assert.ok(dark > 300, `${name}: ${dark} dark px`);
    assert.ok(kept <= 0.2 * dark, `${name}: ${kept} of ${dark} dark px left undyed`);
    // The brows themselves (the mesh's brows, their middle two thirds) keep their colour.
    for (const each of [BROW_R, BROW_L]) {
      const b = browExtent(g, each);
      const inside = polygonPixels(plain, each.map((i) => g.pts[i]), 0, 0.5).filter((p) => {
        const x = p % plain.width;
        return x > b.left + b.width / 6 && x < b.right - b.width / 6;
      });
      const moved = meanPixelDeltaE(plain, out, inside);
      assert.ok(moved <= 3, `${name}: a brow moved by ΔE ${moved.toFixed(2)}`);
    }
  }
});

Deno.test("a brow's tail near the hair keeps its colour (sample6@1402, sample1@773, sample2@1370)", async () => {
  // The mesh's brow can lie 0.05 face widths below the brow (sample6@1402): the brow's tail, outside the
  // face core and as dark as the hair, was dyed copper with it. Counted: dark pixels (L* < 50) of the brow's
  // box (its middle 80 % across, from 0.06 face widths above the mesh's brow to 0.02 below) that Copper Red
  // moved by ΔE > 8. Before: 275 (sample6@1402, image-left brow), 243 (sample1@773, image-left), 268
  // (sample2@1370, image-right); after: 0-30.
  for (
    const [face, idx] of [[FRONTAL_FACES[14], BROW_R], [FRONTAL_FACES[2], BROW_R], [
      FRONTAL_FACES[3],
      BROW_L,
    ]] as const
  ) {
    const { plain, g, res, out } = await recoloured(face);
    const name = `sample${face[0]}@${face[1]}`;
    assert.deepEqual(res.notes, [], name);
    const brow = browExtent(g, idx);
    const px = darkPixels(plain, 50, [brow.left + 0.1 * brow.width, brow.right - 0.1 * brow.width], [
      brow.top - 0.06 * g.fw,
      brow.bottom + 0.02 * g.fw,
    ]);
    const dark = px.length, dyed = px.filter((p) => deltaE(labOf(plain, p), labOf(out, p)) > 8).length;
    console.log(`${name}: ${dyed} of ${dark} dark px of the brow dyed`);
    assert.ok(dark > 1000, `${name}: ${dark} dark px`);
    assert.ok(dyed <= 100, `${name}: ${dyed} dark px of the brow dyed`);
  }
});

Deno.test("dark hair dyed lighter: lighter lengths and sheen take the shade, never white", async () => {
  // Each pixel keeps its lightness offset from the hair's mean, stretched up to 1.6x when dark hair is
  // lightened a lot; ombre ends and sheen 30-45 L* above a near-black mean went to L* 98, white strands
  // with their colour lost out of gamut (the bench portrait's curls). Counted: pixels the dye made white
  // (L* > 88, chroma < 15, 15 L* lighter than they were). Before: 22,045 (sample6@1081, Copper Red), 5,188
  // (sample5@1319, Honey Blonde), 4,296 (sample6@1402, Honey Blonde); after: 0-200.
  for (
    const [face, id] of [[DARK_HAIR, "copper-red"], [FRONTAL_FACES[12], "honey-blonde"], [
      FRONTAL_FACES[14],
      "honey-blonde",
    ]] as const
  ) {
    const { plain, res, out } = await recoloured(face, id);
    const name = `sample${face[0]}@${face[1]} ${id}`;
    assert.deepEqual(res.notes, [], name);
    let white = 0, dyed = 0;
    for (let p = 0; p < plain.width * plain.height; p++) {
      const [a, b] = [labOf(plain, p), labOf(out, p)];
      if (deltaE(a, b) > 8) dyed++;
      if (b[0] > 88 && Math.hypot(b[1], b[2]) < 15 && b[0] - a[0] > 15) white++;
    }
    console.log(`${name}: ${white} px made white of ${dyed} dyed`);
    assert.ok(dyed > 20_000, `${name}: only ${dyed} px dyed`);
    assert.ok(white <= 300, `${name}: ${white} px made white`);
  }
});

Deno.test("lighter lengths on the demo portraits are dyed; neck and chest are not; no grey-green band under the hairline", async () => {
  // sample6@1402 (brown hair with lighter, warmer lengths) and the bench portrait (ombre lengths), Auburn at
  // the tests' crop. Before reachLengths and softHairline: lengths beside the neck changed by ΔE > 8 on
  // 10 % (sample6@1402, image-left) and 1 % (bench portrait); the band under sample6@1402's hairline lay
  // 5.36 ΔE off the blend of dyed hair and forehead (3.21 on the plain photo, its own hair and skin).
  for (const [face, most] of [[FRONTAL_FACES[14], 0.35], [DARK_HAIR, 0.3]] as const) {
    const { plain, g, res, out } = await recoloured(face, "auburn");
    assert.deepEqual(res.notes, []);
    const f = lengthsBesideNeck(plain, out, g), band = hairlineBand(plain, out, g);
    const name = `sample${face[0]}@${face[1]}`;
    console.log(`${name}: lengths and skin ${shown(f, 3)}, hairline band ${shown(band, 2)}`);
    assert.ok(f.left >= most, `${name}: ${(100 * f.left).toFixed(1)} % of the lengths beside the neck dyed`);
    assert.ok(f.neck <= 0.03, `${name}: ${(100 * f.neck).toFixed(2)} % of the neck changed`);
    assert.ok(f.chest <= 0.01, `${name}: ${(100 * f.chest).toFixed(2)} % of the chest changed`);
    assert.ok(
      band.offBlend - band.offBlendBefore <= 1,
      `${name}: hairline band ${band.offBlend.toFixed(2)} ΔE off the hair-to-forehead blend (photo ${
        band.offBlendBefore.toFixed(2)
      })`,
    );
  }
});

Deno.test("the neck's skin is skin: black lengths or their shadow under the chin are not taken for it", async () => {
  // The lengths grow through everything but the body's skin (see reachLengths), sampled on the face and
  // under the chin. Under sample1@773's and sample1@334's chins the box holds black hair and its shadow:
  // their neck classes read L* 1, and near-black lengths there were the body's skin. sample1@1438's read
  // L* 16 (her shaded neck behind dark strands). Where the neck shows (the rest), it is still sampled.
  const chroma = (c: Lab) => Math.hypot(c[1], c[2]);
  for (const [i, mayLack] of [[0, false], [1, false], [2, true], [14, false], [6, false]] as const) {
    const face = FRONTAL_FACES[i], name = `sample${face[0]}@${face[1]}`;
    const { framed, g, person } = await renderedPortrait(engine, face);
    const skin = axisStats(skinSamples(framed, g)).mean;
    const neck = neckSkin(framed, g, person, skin).skin;
    console.log(
      `${name}: face L* ${skin[0].toFixed(0)}, neck ${neck ? neck.mean.map((v) => v.toFixed(0)) : "none"}`,
    );
    if (!neck) {
      assert.ok(mayLack, `${name}: no neck skin found`);
      continue;
    }
    assert.ok(
      neck.mean[0] >= 0.5 * skin[0],
      `${name}: neck L* ${neck.mean[0].toFixed(1)}, face ${skin[0].toFixed(1)}`,
    );
    assert.ok(
      chroma(neck.mean) >= 0.4 * chroma(skin),
      `${name}: neck chroma ${chroma(neck.mean).toFixed(1)}`,
    );
  }
});

Deno.test("long black lengths hiding the neck are dyed below the chin; her white top is not (sample1@773)", async () => {
  // Her black lengths fall in front of her neck onto a white top. The clothes' colours sampled below the
  // chin held them (L* 5) as a clothes colour like the hair's, which faded out of the mask below the chin:
  // the dye stopped along a line across her lengths. Beside the neck, from 0.3 face heights below the chin,
  // pixels of L* 35 or less that end 8 ΔE nearer Auburn: 3.2 % before, 68.1 % after (her deepest shadows
  // cannot move that far).
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[2], "auburn");
  assert.deepEqual(res.notes, []);
  const target = hexToLab("#7E2E1F"), W = plain.width, chin = g.pts[152], cx = g.center[0];
  let lengths = 0, moved = 0, light = 0, changed = 0;
  for (let y = Math.round(chin[1] + 0.3 * g.fh); y < plain.height; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x, before = labOf(plain, p), off = Math.abs(x - cx);
      if (y < chin[1] + 1.2 * g.fh && off >= 0.4 * g.fw && off <= 1.2 * g.fw && before[0] <= 35) {
        lengths++;
        if (deltaE(labOf(out, p), target) < deltaE(before, target) - 8) moved++;
      }
      if (y >= chin[1] + 0.5 * g.fh && before[0] >= 55) {
        light++;
        if (deltaE(labOf(out, p), before) > 6) changed++;
      }
    }
  }
  console.log(
    `lengths moved ${(100 * moved / lengths).toFixed(1)} % of ${lengths}; top changed ${changed} of ${light}`,
  );
  assert.ok(moved >= 0.5 * lengths, `lengths below the chin dyed: ${moved} of ${lengths}`);
  assert.ok(light > 10_000 && changed <= 0.01 * light, `white top changed: ${changed} of ${light}`);
});

Deno.test("brown lengths behind a shoulder are dyed; a green top's colours do not claim them (sample6@1402)", async () => {
  // Her lengths' ends hang behind her shoulder (x 960-1070, y 1340-1600 of the 1080x1920 render). The clothes'
  // colours sampled below her chin mixed her green top with its strap and skin into one class, so wide that
  // her brown ends (hue 77 degrees; the class's 153) were nearer it than the hair and counted as clothes: the
  // dye stopped at the shoulder's line. Pixels there of L* under 50 (not the wall, not the shoulder) that end
  // 8 ΔE nearer Auburn: 0.3 % before, 75.6 % after.
  const { plain, res, out } = await recoloured(FRONTAL_FACES[14], "auburn");
  assert.deepEqual(res.notes, []);
  const target = hexToLab("#7E2E1F");
  const ends = rect(plain, 960, 1070, 1340, 1600).filter((p) => labOf(plain, p)[0] < 50);
  const moved = ends.filter((p) => deltaE(labOf(out, p), target) < deltaE(labOf(plain, p), target) - 8);
  console.log(`ends moved ${(100 * moved.length / ends.length).toFixed(1)} % of ${ends.length}`);
  assert.ok(ends.length > 5000, `ends in the box: ${ends.length}`);
  assert.ok(moved.length >= 0.5 * ends.length, `ends dyed: ${moved.length} of ${ends.length}`);
});

Deno.test("hair over one eye: the skin is sampled on the face's other side, and her lengths are dyed (sample2@805)", async () => {
  // Her side-swept hair covers her left eye, that side of her face and her forehead. Sampled there as skin,
  // the strands made the skin class a blend (L* 48.5, spread 9.2): her ash-brown lengths read as skin and
  // only the top of her head was dyed. Pixels moved 8 ΔE or more toward Auburn, before: lengths right of her
  // face 9.9 %, left of it 18.9 %; after 49.6 % and 34.4 %. Her face and grey camisole stay as they were.
  const { plain, res, out } = await recoloured(FRONTAL_FACES[4], "auburn");
  assert.deepEqual(res.notes, []);
  const box = (x0: number, x1: number, y0: number, y1: number) =>
    changedAndToward(plain, out, rect(plain, x0, x1, y0, y1), AUBURN);
  const right = box(880, 1040, 700, 950).toward, left = box(150, 330, 800, 1100).toward;
  const face = box(420, 620, 700, 900).changed, camisole = box(500, 800, 1300, 1600).changed;
  console.log(
    `sample2@805: lengths dyed ${(100 * right).toFixed(1)} % / ${(100 * left).toFixed(1)} %; face changed ` +
      `${(100 * face).toFixed(2)} %, camisole ${(100 * camisole).toFixed(2)} %`,
  );
  assert.ok(
    right >= 0.35 && left >= 0.25,
    `lengths dyed ${(100 * right).toFixed(1)} / ${(100 * left).toFixed(1)} %`,
  );
  assert.ok(
    face <= 0.005 && camisole <= 0.005,
    `face ${(100 * face).toFixed(2)} %, camisole ${(100 * camisole).toFixed(2)} %`,
  );
});

Deno.test("a neighbour's shaded arm is not lengths: it keeps its colour; her lengths are dyed (sample2@805)", async () => {
  // Her ash lengths fall beside her neighbour's arm. The lengths' growth (see reachLengths) ran down the arm's
  // shaded edge (L* 35-39, chroma 21-24: far darker than her grey-lit skin, and smooth, as her out-of-focus
  // lengths are) and the dark gap beside it to the frame's bottom, and painted them in every shade. Polygons in
  // the 1080x1920 render's pixels, changed by ΔE > 6, Auburn: before, arm and gap 47.7 %, her lengths left of
  // her face 42.6 %; after, 0.0 % and 42.6 %. (Shaded skin's colour ruled out at every depth, not only from
  // half a face height below the chin, left a third of those lengths undyed: 33.8 %.)
  const f = await auburnChanged(FRONTAL_FACES[4], "sample2@805", {
    armAndGap: [[235, 1360], [300, 1360], [400, 1700], [235, 1700]],
    lengths: [[150, 800], [330, 800], [330, 1100], [150, 1100]],
  });
  assert.ok(f.armAndGap <= 0.03, `${(100 * f.armAndGap).toFixed(1)} % of the arm and the gap changed`);
  assert.ok(f.lengths >= 0.4, `${(100 * f.lengths).toFixed(1)} % of her lengths dyed`);
});

Deno.test("a detached piece of the neighbour's hair keeps its colour (sample6@1081)", async () => {
  // Beside the bench portrait's right lengths, the split between her and her neighbour left a patch of the
  // neighbour's dark hair (x 930-1000, y 900-980 of the 1080x1920 render) in the person mask, detached from
  // her: it was dyed, a copper blob on the neighbour's head. Its pixels' mean ΔE to the photo: 9.55 before,
  // 0.01 after.
  const { plain, res, out } = await recoloured(DARK_HAIR, "auburn");
  assert.deepEqual(res.notes, []);
  const blob = rect(plain, 930, 1000, 900, 980);
  const de = meanPixelDeltaE(plain, out, blob);
  console.log(`neighbour's patch: mean ΔE ${de.toFixed(2)}`);
  assert.ok(de < 3, `the neighbour's patch changed by ΔE ${de.toFixed(2)}`);
});

/**
 * sample6@587's lock over her chest on a render `scale` times 1080x1920 (x 540-740, y 1450-1900 at full size):
 * its pixels (chroma under 12 and L* under 60: not her maroon top) and those that end 8 ΔE nearer Auburn.
 */
function chestLock(plain: Decoded, out: Decoded, scale: number): { lock: number[]; moved: number[] } {
  const lock = rect(plain, 540 * scale, 740 * scale, 1450 * scale, 1900 * scale).filter((p) => {
    const [L, a, b] = labOf(plain, p);
    return L < 60 && Math.hypot(a, b) < 12;
  });
  return {
    lock,
    moved: lock.filter((p) => deltaE(labOf(out, p), AUBURN) < deltaE(labOf(plain, p), AUBURN) - 8),
  };
}

/**
 * The lit strands of sample6@587's lock over her chest: the grey pixels (L* 50 or more, chroma under 6) of its
 * middle (x 600-750, y 1600-1850 at full size, below her neck's pale skin) must have changed by more than ΔE 5,
 * 90 % of them. Her face's skin in the window's light spreads 9 in b*, and these greys (chroma 3) read as that
 * skin: left grey among dyed strands, 64.4 % changed in the result and 53.0 % in the preview. A colour no
 * lighter than a skin class with under 0.2 of its chroma (fading in up to 0.3) is not that class
 * (SKIN_CHROMA_SHARE): 100 % at both sizes.
 */
function assertLitStrandsDyed(plain: Decoded, out: Decoded, scale: number, size: string) {
  const lit = rect(plain, 600 * scale, 750 * scale, 1600 * scale, 1850 * scale).filter((p) => {
    const [L, a, b] = labOf(plain, p);
    return L >= 50 && Math.hypot(a, b) < 6;
  });
  const share = movedShare(plain, out, lit, 5);
  console.log(
    `sample6@587 ${size}: ${(100 * share).toFixed(1)} % of the lock's ${lit.length} lit grey pixels dyed`,
  );
  assert.ok(lit.length > 150 * scale * scale, `lit grey pixels in the lock: ${lit.length}`);
  assert.ok(share >= 0.9, `the lock's lit strands dyed in the ${size}: ${(100 * share).toFixed(1)} %`);
}

Deno.test("a lock falling over the chest is dyed with the lengths, its lit strands too; the neck between is not (sample6@587)", async () => {
  // Her lock falls from beside her neck down over her maroon top (x 540-740, y 1450-1900 of the 1080x1920
  // render). The neck's column is kept out of the hair all the way down, so the lock stayed grey-black down
  // to the frame's bottom. The lock's pixels (chroma under 12 and L* under 60: not the top) that end 8 ΔE
  // nearer Auburn, and the neck's skin below the chin (L* 50 or more, chroma 12 or more, within 0.15 face
  // widths of its axis, 0.05-0.3 face heights down) changed by more than ΔE 3. Before: 2.3 % of the lock,
  // then 63.4 % (the rest its darkest shadows and dark undyed blocks: the lock's texture fell under the bar the
  // neck's box set, a collar's edge in it); with the bar bounded by the face's skin (NECK_TEXTURE_FACE),
  // 90.4 %. The neck 0 of 8,985 throughout.
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[15], "auburn");
  assert.deepEqual(res.notes, []);
  const { lock, moved } = chestLock(plain, out, 1);
  const neck = neckBox(plain, g).filter((p) => {
    const [L, a, b] = labOf(plain, p);
    return L >= 50 && Math.hypot(a, b) >= 12;
  });
  const neckChanged = neck.filter((p) => deltaE(labOf(plain, p), labOf(out, p)) > 3);
  const share = (100 * moved.length / lock.length).toFixed(1);
  console.log(
    `lock moved ${share} % of ${lock.length}; neck skin changed ${neckChanged.length} of ${neck.length}`,
  );
  assert.ok(lock.length > 10_000, `lock pixels in the box: ${lock.length}`);
  assert.ok(moved.length >= 0.8 * lock.length, `lock dyed: ${moved.length} of ${lock.length}`);
  assert.ok(neck.length > 5000 && neckChanged.length <= 0.01 * neck.length, `neck: ${neckChanged.length}`);
  assertLitStrandsDyed(plain, out, 1, "result");
});

Deno.test("a neighbour's navy top beside her lengths keeps its colour; her lengths are dyed (sample5@1319)", async () => {
  // Her dark brown lengths (hair classes at hue 45-58 degrees) fall beside her neighbour's navy top (L* 14,
  // chroma 8, hue -30 to -60): 2-3 spreads off the hair in b* alone, so the colour model found its lighter
  // folds like her hair and every shade painted them (gold or copper streaks on the navy). Polygons in the
  // 1080x1920 render's pixels, changed by ΔE > 6, Auburn: before, the top 23.9 %, her lengths above it 44.6 %
  // (their darkest strands move less than 6 ΔE toward Auburn); after, 0.0 % and 42.8 %.
  const f = await auburnChanged(FRONTAL_FACES[12], "sample5@1319", {
    top: [[280, 1310], [420, 1310], [470, 1370], [470, 1470], [300, 1470]],
    lengths: [[330, 1000], [500, 1000], [500, 1140], [330, 1140]],
  });
  assert.ok(f.top <= 0.05, `${(100 * f.top).toFixed(1)} % of the navy top changed`);
  assert.ok(f.lengths >= 0.35, `${(100 * f.lengths).toFixed(1)} % of her lengths dyed`);
});

Deno.test("at 540x960 the lock over the chest and its lit strands are dyed as at 1080x1920 (sample6@587)", async () => {
  // The same lock at the preview's 540x960 (the box above, halved). A preview node spans four of the result's;
  // the lengths' growth through textured nodes broke down the lock there: 4.1 % of it dyed against the
  // result's 63.4 %. With each preview node's texture the second highest of the four it spans: 61.9 %; with
  // the texture bar bounded by the face's skin (NECK_TEXTURE_FACE), 86.1 % (the result's 90.4 %).
  const { plain, out } = await recoloured(FRONTAL_FACES[15], "auburn", { width: 540, height: 960 });
  const { lock, moved } = chestLock(plain, out, 0.5);
  console.log(
    `sample6@587 preview: lock moved ${(100 * moved.length / lock.length).toFixed(1)} % of ${lock.length}`,
  );
  assert.ok(lock.length > 2500, `lock pixels in the box: ${lock.length}`);
  assert.ok(
    moved.length >= 0.75 * lock.length,
    `lock dyed in the preview: ${moved.length} of ${lock.length}`,
  );
  assertLitStrandsDyed(plain, out, 0.5, "preview");
});

Deno.test("light lengths are dyed with the head, evenly, at 1080x1920 and at 540x960 (sample1@1438)", async () => {
  // Her long light-brown lengths at the image right, below the chin. The growth (see reachLengths) took their
  // darker strands, far darker than her skin, and left the golden ones: as smooth as skin out of focus, and in
  // a colour the clothes' samples took from the lengths lying over her jacket. First pink bands among golden
  // strands (2.2 changes between dyed and undyed per 100 px, 24 % dyed); then, with banded patches left
  // undyed, auburn roots over golden lengths (7.8 % dyed). The lengths grown so far agree on one colour
  // (see continueLengthColour): the lengths of that colour are dyed whole, 99.9 %, 0.02 changes per 100 px.
  for (const [scale, size] of [[1, {}], [0.5, { width: 540, height: 960 }]] as const) {
    const { plain, out, res } = await recoloured(FRONTAL_FACES[1], "auburn", size);
    assert.ok(res.notes.every((n) => !/hair/i.test(n)), `notes: ${res.notes}`);
    const box = (x0: number, x1: number, y0: number, y1: number) => {
      const at = new Uint8Array(plain.width * plain.height);
      const s = (v: number) => Math.round(v * scale);
      for (const p of rect(plain, s(x0), s(x1), s(y0), s(y1))) at[p] = 1;
      return stripeFigures(plain, out, at);
    };
    // The lengths' rows (x 820-1070, y 1100-1850 at 1080x1920), and beside the face above the chin.
    const f = box(820, 1070, 1100, 1850), h = box(900, 1060, 500, 800);
    console.log(
      `sample1@1438 at ${plain.width}x${plain.height} lengths: ${shown(f, 3)}, beside the face: ${
        shown(h, 3)
      }`,
    );
    assert.ok(f.dyed >= 0.9, `${(100 * f.dyed).toFixed(1)} % of the lengths dyed`);
    assert.ok(f.changesPer100 <= 1, `${f.changesPer100.toFixed(2)} changes dyed/undyed per 100 px`);
    assert.ok(h.dyed >= 0.3, `${(100 * h.dyed).toFixed(1)} % beside the face dyed`);
  }
});

Deno.test("the lengths' own colour reaches no skin and no top of another colour (sample3@515, sample4@908)", async () => {
  // Continuing the lengths by their colour without their strand texture (see continueLengthColour) reaches
  // what lies beside them in a like colour unless the lengths agree on one colour and the node keeps off the
  // skin's hue. Taken from any grown lengths, it dyed sample3@515's lit chest (38.2 % of the box below changed,
  // 0 % now) and sample4@908's chest above her patterned top (34.6 %, 3 % now); with the skin's hue kept off but
  // any lengths' colours taken, 0 % and 21.7 %. Rectangles at 1080x1920, changed by ΔE > 6.
  const chest515 = await recoloured(FRONTAL_FACES[5], "auburn");
  const chest908 = await recoloured(FRONTAL_FACES[9], "auburn");
  const box = (x0: number, y0: number, x1: number, y1: number): [number, number][] => [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
  ];
  const f = {
    chest515: changedShare(chest515.plain, chest515.out, box(150, 1350, 500, 1600)),
    chest908: changedShare(chest908.plain, chest908.out, box(450, 1220, 540, 1300)),
  };
  console.log(`changed by ΔE > 6: ${shown(f, 3)}`);
  assert.ok(f.chest515 <= 0.02, `${(100 * f.chest515).toFixed(1)} % of sample3@515's chest changed`);
  assert.ok(f.chest908 <= 0.12, `${(100 * f.chest908).toFixed(1)} % of sample4@908's chest changed`);
});

Deno.test("a tilted head's shaded neck under the jaw is not dyed (sample1@1438)", async () => {
  // Her head leans 31 degrees: the shade under her jaw lies beside her chin in the image, not below it, and
  // the neck was kept out of the mask only straight below the chin. Copper Red dyed a band along the jaw.
  // Measured in the face's own frame (top of the mesh to the chin): the pixels 0.02-0.15 face heights below
  // the chin, within 0.2 face widths of that axis, changed by ΔE > 6: 18.7 % before (a copper band along the
  // jaw), 3.9 % with this fix, 5.0 % since the gain fades out below the chin instead of stopping at it (the
  // jaw's edge where it meets the box).
  const { plain, g, out } = await recoloured(FRONTAL_FACES[1]);
  const top = g.pts[10], chin = g.pts[152], len = Math.hypot(chin[0] - top[0], chin[1] - top[1]);
  const u = [(chin[0] - top[0]) / len, (chin[1] - top[1]) / len];
  let n = 0, dyed = 0;
  for (let y = 0; y < plain.height; y++) {
    for (let x = 0; x < plain.width; x++) {
      const down = (x - chin[0]) * u[0] + (y - chin[1]) * u[1];
      const across = (y - chin[1]) * u[0] - (x - chin[0]) * u[1];
      if (down < 0.02 * g.fh || down > 0.15 * g.fh || Math.abs(across) > 0.2 * g.fw) continue;
      const p = y * plain.width + x;
      n++;
      if (deltaE(labOf(plain, p), labOf(out, p)) > 6) dyed++;
    }
  }
  console.log(`sample1@1438, under the jaw: ${n} px, ${(100 * dyed / n).toFixed(1)} % dyed`);
  assert.ok(n > 5000, `${n} px under the jaw`);
  assert.ok(dyed <= 0.06 * n, `${(100 * dyed / n).toFixed(1)} % of the skin under the jaw dyed`);
});

Deno.test("lengths in the clothes' colours fade out toward the chin, not along a straight line (sample3@1005)", async () => {
  // Her lengths at the image right, in the blue light, are as dark as her top: dyed down to the chin's row
  // and left below it, along a horizontal line. Per row (x from 700 to the frame's edge, within 40 px of the
  // chin's row), the summed ΔE of the pixels the dye moved: its largest drop over 3 rows was 45 % of the
  // row above (at the chin's row); 8 % now.
  const { plain, g, out } = await recoloured(FRONTAL_FACES[6]);
  const chinY = Math.round(g.pts[152][1]);
  const moved = new Map<number, number>();
  for (let y = chinY - 40; y <= chinY + 40; y++) {
    let sum = 0;
    for (let x = 700; x < plain.width; x++) {
      const p = y * plain.width + x, d = deltaE(labOf(plain, p), labOf(out, p));
      if (d > 1) sum += d;
    }
    moved.set(y, sum);
  }
  let drop = 0;
  for (let y = chinY - 37; y <= chinY + 40; y++) {
    const above = moved.get(y - 3)!;
    if (above > 0) drop = Math.max(drop, (above - moved.get(y)!) / above);
  }
  console.log(`sample3@1005: largest 3-row drop of the dye by the chin ${(100 * drop).toFixed(0)} %`);
  assert.ok(moved.get(chinY - 20)! > 0, "her lengths above the chin are dyed");
  assert.ok(drop <= 0.2, `the dye drops ${(100 * drop).toFixed(0)} % within 3 rows by the chin`);
});

/** Of the pixels inside `poly` (render pixels), the share whose colour `out` changed by more than 6 ΔE. */
function changedShare(plain: Decoded, out: Decoded, poly: [number, number][]): number {
  return movedShare(plain, out, polygonPixels(plain, poly));
}

/**
 * `face` dyed Auburn at 1080x1920: per named polygon (render pixels), the share changed by more than 6 ΔE,
 * printed under `name`.
 */
async function auburnChanged<K extends string>(
  face: [number, number, number, number],
  name: string,
  polys: Record<K, [number, number][]>,
): Promise<Record<K, number>> {
  const { plain, out } = await recoloured(face, "auburn");
  const f = Object.fromEntries(
    Object.entries<[number, number][]>(polys).map(([k, poly]) => [k, changedShare(plain, out, poly)]),
  ) as Record<K, number>;
  console.log(`${name}, changed by ΔE > 6: ${shown(f, 3)}`);
  return f;
}

Deno.test("the bench portrait's lengths: her shoulder and her top's neckline are not dyed, her curl is", async () => {
  // The growth (see reachLengths) crept from the tip of her ombre curl, through a neck of a few nodes, onto
  // her lit shoulder, the strap beside it and her top's neckline: a salmon rim and pink specks. Polygons in
  // the 1080x1920 render's pixels, changed by ΔE > 6: before, shoulder 3.9 %, neckline 11.1 %, curl 74 %.
  const f = await auburnChanged(FRONTAL_FACES[13], "bench portrait", {
    shoulder: [[120, 1330], [250, 1310], [255, 1440], [125, 1440]],
    neckline: [[60, 1440], [420, 1440], [420, 1510], [60, 1510]],
    curl: [[110, 1050], [250, 1050], [250, 1250], [110, 1250]],
  });
  assert.ok(f.neckline <= 0.03, `${(100 * f.neckline).toFixed(1)} % of the neckline changed`);
  assert.ok(f.shoulder <= 0.03, `${(100 * f.shoulder).toFixed(1)} % of the shoulder changed`);
  assert.ok(f.curl >= 0.6, `${(100 * f.curl).toFixed(1)} % of the curl dyed`);
});

Deno.test("curly blonde falling onto a light jacket: the jacket is not dyed, her lengths are (sample3@515)", async () => {
  // Her beige jacket is the colour of her hair: below the chin the colour model's mask took its shoulder
  // (the clothes model cannot hold a colour that is also the hair's), a mauve patch. The jacket is smooth
  // between its folds, her curls are not (see dropSmoothCloth). Rectangles in the 1080x1920 render's
  // pixels, changed by ΔE > 6: before, jacket shoulder 39.4 %, lengths at the image right 100 %, at the
  // image left 84.9 %.
  const f = await auburnChanged(FRONTAL_FACES[5], "sample3@515", {
    jacket: [[850, 1255], [1075, 1255], [1075, 1450], [850, 1450]],
    right: [[880, 1000], [1075, 1000], [1075, 1200], [880, 1200]],
    left: [[180, 950], [440, 950], [440, 1250], [180, 1250]],
  });
  assert.ok(f.jacket <= 0.2, `${(100 * f.jacket).toFixed(1)} % of the jacket's shoulder changed`);
  assert.ok(f.right >= 0.9, `${(100 * f.right).toFixed(1)} % of the lengths at the image right dyed`);
  assert.ok(f.left >= 0.75, `${(100 * f.left).toFixed(1)} % of the lengths at the image left dyed`);
});

Deno.test("a closed eye's lashes and brow keep their colour when the mesh misses them (sample2@1370)", async () => {
  // Her right eye (at the image left) is closed. The mesh's outline of it is a line along the lid, above the
  // lashes, and its brow stops 0.1 face widths short of the brow's tail; the hair at the face's edge reached
  // the lashes, and a strand the tail. Copper Red dyed them. In a box from 0.14 face widths outside the eye's
  // outer corner to its inner corner, 0.2 face widths above it to 0.1 below, the share of the dark pixels
  // (L* under 40: lashes, liner, brow) moved by over 6 ΔE: 78.9 % before, then 29.1 % (her outer lashes, an
  // eye's width past the mesh's corner and outside the face oval, joined to the hair at the face's edge),
  // 14.7 % since the eyes' zones (see eyeZones).
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[3]);
  assert.deepEqual(res.notes, []);
  const outer = g.pts[33], inner = g.pts[133];
  const box = rect(plain, outer[0] - 0.14 * g.fw, inner[0], outer[1] - 0.2 * g.fw, outer[1] + 0.1 * g.fw);
  const dark = box.filter((p) => labOf(plain, p)[0] < 40);
  const share = movedShare(plain, out, dark);
  console.log(`sample2@1370: ${(100 * share).toFixed(1)} % of ${dark.length} dark px by her closed eye dyed`);
  assert.ok(dark.length >= 0.25 * box.length, `the box holds her lashes and brow (${dark.length} dark px)`);
  assert.ok(share <= 0.2, `${(100 * share).toFixed(1)} % of her lashes and brow dyed`);
  // The hair beside the face is still dyed: the band 0.1-0.2 face widths outside the outer corner.
  const side = rect(
    plain,
    outer[0] - 0.2 * g.fw,
    outer[0] - 0.1 * g.fw,
    outer[1] + 0.2 * g.fw,
    outer[1] + 0.4 * g.fw,
  )
    .filter((p) => labOf(plain, p)[0] < 40);
  const sideMoved = movedShare(plain, out, side);
  assert.ok(sideMoved >= 0.8, `${(100 * sideMoved).toFixed(1)} % of the hair beside her face dyed`);
});

Deno.test("dye does not run from a strand beside the eye into its outer corner (sample4@908)", async () => {
  // A strand falls past her right eye's outer corner (at the image left), outside the face oval; the dye ran
  // from it into the corner's skin and shadow. In a box from 0.02 face widths outside the mesh's outer corner
  // to 0.04 inside, 0.01 above it to 0.07 below, the share of pixels moved by over 6 ΔE: Auburn 48.5 %, Jet
  // Black 63.9 % before the eyes' zones (see eyeZones); 10.8 % and 16.4 % after.
  for (const id of ["auburn", "jet-black"]) {
    const { plain, g, res, out } = await recoloured(FRONTAL_FACES[9], id);
    assert.deepEqual(res.notes, [], id);
    const outer = g.pts[33], fw = g.fw;
    const moved = (px: number[]) => movedShare(plain, out, px);
    const corner = rect(
      plain,
      outer[0] - 0.02 * fw,
      outer[0] + 0.04 * fw,
      outer[1] - 0.01 * fw,
      outer[1] + 0.07 * fw,
    );
    const share = moved(corner);
    assert.ok(share <= 0.25, `${id}: ${(100 * share).toFixed(1)} % of her eye's outer corner dyed`);
    // The strand beside it is dyed as before (76.2 % and 90.7 % of its darker pixels).
    const strand = rect(
      plain,
      outer[0] - 0.055 * fw,
      outer[0] - 0.03 * fw,
      outer[1] - 0.01 * fw,
      outer[1] + 0.07 * fw,
    )
      .filter((p) => labOf(plain, p)[0] < 45);
    assert.ok(strand.length > 100, `${id}: the strand's box holds the strand (${strand.length} px)`);
    assert.ok(moved(strand) >= 0.6, `${id}: ${(100 * moved(strand)).toFixed(1)} % of the strand dyed`);
  }
});

Deno.test("sheen across dark lengths is dyed with them, not left in grey-olive specks (sample6@1402)", async () => {
  // Her straight lengths at the image right catch the light in a grey-olive band (L* 45-50 over hair of
  // L* 22), nearer her skin than her hair by colour, and the colour of her clothes. Its nodes were left out
  // one by one, and a band above the chin was dyed at half strength: dyed lengths speckled with the original.
  // In a box inside those lengths (0.75-1.08 face widths right of the chin, from 0.35 face heights above it
  // to 0.2 below), the share of pixels still at the original's olive hue (over 60 degrees; copper lies near
  // 45): 8.1 % before, 0.1 % now.
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[14]);
  assert.deepEqual(res.notes, []);
  const chin = g.pts[152];
  let n = 0, olive = 0, kept = 0;
  for (let y = Math.round(chin[1] - 0.35 * g.fh); y < chin[1] + 0.2 * g.fh; y++) {
    for (let x = Math.round(chin[0] + 0.75 * g.fw); x < chin[0] + 1.08 * g.fw; x++) {
      const p = y * plain.width + x;
      n++;
      if (hue(labOf(plain, p)) > Math.PI / 3) olive++;
      if (hue(labOf(out, p)) > Math.PI / 3) kept++;
    }
  }
  console.log(`sample6@1402: ${(100 * kept / n).toFixed(1)} % of ${n} px of her lengths left olive`);
  assert.ok(olive >= 0.95 * n, `the box is her olive-brown lengths (${(100 * olive / n).toFixed(1)} %)`);
  assert.ok(kept <= 0.02 * n, `${(100 * kept / n).toFixed(1)} % of her lengths left olive`);
});

/** The share of `px` that `out` changed from `plain` by more than ΔE 3, and that moved ΔE 8 toward `shade`. */
function changedAndToward(plain: Decoded, out: Decoded, px: number[], shade: Lab) {
  let changed = 0, toward = 0;
  for (const p of px) {
    const a = labOf(plain, p), b = labOf(out, p);
    if (deltaE(a, b) > 3) changed++;
    if (deltaE(a, shade) - deltaE(b, shade) > 8) toward++;
  }
  return { changed: changed / px.length, toward: toward / px.length };
}

Deno.test("dark clothes apart from the head's hair are not dyed: a lit shoulder, straps (sample3@1005, sample1@334)", async () => {
  // The pieces of the hair's mask below the chin are kept where they connect to the hair above eye level.
  // Connected only to the row above the chin, a garment's lit edge beside the chin counted as hair and the
  // lengths' growth spread from it down the garment. Dark pixels (L* < 35) changed by ΔE over 3, Auburn:
  // sample3@1005's shoulder (0.25-0.9 face widths left of the chin, down 0.6 face heights) 38.4 % before;
  // sample1@334's top and straps (0.1-0.4 face heights below the chin) 9.0 % before; 0.0 % after, both.
  for (
    const [face, box, before] of [
      [FRONTAL_FACES[6], [[-0.9, -0.25], [0, 0.6]], 38.4],
      [FRONTAL_FACES[0], [[-5, 5], [0.1, 0.4]], 9.0],
    ] as const
  ) {
    const { plain, g, res, out } = await recoloured(face, "auburn");
    const name = `sample${face[0]}@${face[1]}`;
    assert.deepEqual(res.notes, [], name);
    const chin = g.pts[152], [[fx0, fx1], [fy0, fy1]] = box;
    const dark = darkPixels(
      plain,
      35,
      [Math.max(0, chin[0] + fx0 * g.fw), Math.min(plain.width, chin[0] + fx1 * g.fw)],
      [chin[1] + fy0 * g.fh, Math.min(plain.height, chin[1] + fy1 * g.fh)],
    );
    assert.ok(dark.length > 10_000, `${name}: ${dark.length} dark pixels`);
    const { changed } = changedAndToward(plain, out, dark, AUBURN);
    assert.ok(
      changed <= 0.02,
      `${name}: ${(100 * changed).toFixed(1)} % of the dark clothes changed (${before} % before)`,
    );
  }
});

Deno.test("curls under the jaw, apart from the head's hair where the face hides it, are dyed (sample3@1372)", async () => {
  // Hair the face hides reappears at its outline apart from the hair above: such a piece is kept when its
  // colour is surely hair. Dark pixels (L* < 35) of her curls (0-0.2 face widths right of the chin, 0.15 face
  // heights above it to 0.05 below) moved ΔE 8 toward Auburn: 70.9 %; 0.0 % when only pieces connected to the
  // hair above eye level were kept.
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[7], "auburn");
  assert.deepEqual(res.notes, []);
  const chin = g.pts[152];
  const curls = darkPixels(plain, 35, [chin[0], chin[0] + 0.2 * g.fw], [
    chin[1] - 0.15 * g.fh,
    chin[1] + 0.05 * g.fh,
  ]);
  assert.ok(curls.length > 1_000, `${curls.length} dark pixels`);
  const { toward } = changedAndToward(plain, out, curls, AUBURN);
  assert.ok(toward >= 0.5, `${(100 * toward).toFixed(1)} % of her curls moved toward the shade`);
});

/** The strand texture of a demo portrait's face skin (see faceSkinPoints) on its plain render at `width` x `height`. */
async function faceTexture(face: [number, number, number, number], width: number, height: number) {
  const photo = await cropFace(face);
  const framed = await decode(
    (await render(engine, { ...job(photo, {}, undefined, "hair"), width, height })).image,
  );
  const g = faceGeometry((await engine.detect(framed))[0].mesh);
  return skinTexture(framed, faceSkinPoints(g));
}

Deno.test("strand texture reads the same at 540x960 as at 1080x1920 (15 portraits)", async () => {
  // The lengths grow where they carry more strand texture than the neck's skin (see reachLengths). Measured
  // in pixels, skin at 540x960 read 1.2-3x its texture at 1080x1920 (sample1@334's face 18.8 against 6.2),
  // strands 1.4x: the preview dyed fewer lengths than the result. Measured over the same stretch of the face
  // at each size, the face's skin reads 0.74-1.13x.
  const off: string[] = [];
  for (const [i, face] of FRONTAL_FACES.entries()) {
    if (i === 8) continue; // (refused: no hair found on sample4@1216)
    const name = `sample${face[0]}@${face[1]}`;
    const small = await faceTexture(face, 540, 960), big = await faceTexture(face, 1080, 1920);
    console.log(`${name}: skin texture ${small.toFixed(1)} at 540x960, ${big.toFixed(1)} at 1080x1920`);
    assert.ok(big > 1, `${name}: the skin has some texture (${big.toFixed(2)})`);
    if (!(small / big >= 0.67 && small / big <= 1.5)) {
      off.push(`${name} ${small.toFixed(1)} / ${big.toFixed(1)}`);
    }
  }
  assert.deepEqual(off, []);
});

Deno.test("a portrait at 540x960 is dyed as at 1080x1920 (sample3@1372)", async () => {
  // Before strand texture was measured at the preview's own scale, her lengths and a dyed blotch on her
  // shoulder's skin differed between the two: a gap of 2.1 (1.2 after; the mean over 15 frontal faces 2.93 ->
  // 2.77, none wider).
  const gap = await previewGap(engine, FRONTAL_FACES[7], "hair", { hairColor: "auburn" });
  console.log(`sample3@1372: preview gap ${gap.toFixed(2)}`);
  assert.ok(gap <= 1.6, `gap ${gap.toFixed(2)}`);
});

Deno.test("a dark mark on the cheek beside the hair keeps its colour; the hair is dyed (sample1@334's painted dot)", async () => {
  // Her painted dot on the cheek lies past the mesh's face oval (narrower than her cheek there) and is as dark
  // as her hair: it was dyed Auburn, joined to her hair only through her cheek's doubtful nodes (see
  // dropFaceMarks). Dark pixels (L* < 35) of the dot changed by ΔE over 3: 78.4 % before, 0.5 % after; her
  // hair (L* < 50 over the top of her head) moved ΔE 8 toward Auburn: 80.4 %, as before.
  const { plain, g, res, out } = await recoloured(FRONTAL_FACES[0], "auburn");
  assert.deepEqual(res.notes, []);
  const dot = darkPixels(plain, 35, [396, 436], [810, 862]);
  const top = g.pts[10];
  const hair = darkPixels(plain, 50, [top[0] - 0.3 * g.fw, top[0] + 0.3 * g.fw], [
    top[1] - 0.25 * g.fh,
    top[1],
  ]);
  const onDot = changedAndToward(plain, out, dot, AUBURN).changed;
  const onHair = changedAndToward(plain, out, hair, AUBURN).toward;
  console.log(
    `sample1@334: dot ${dot.length} px, ${(100 * onDot).toFixed(1)} % changed; hair ${hair.length} px, ${
      (100 * onHair).toFixed(1)
    } % dyed`,
  );
  assert.ok(dot.length >= 800, `${dot.length} px of the dot`);
  assert.ok(onDot <= 0.02, `${(100 * onDot).toFixed(1)} % of the dot changed`);
  assert.ok(
    hair.length >= 5000 && onHair >= 0.6,
    `${(100 * onHair).toFixed(1)} % of ${hair.length} px of her hair dyed`,
  );
});

Deno.test("hair reaching the canvas's right edge is dyed to the edge, at 1080x1920 and at 540x960 (sample3@515)", async () => {
  // The hair's grid ends at its last node, up to 3 px short of the canvas's right edge: hair touching the edge
  // kept a 4 px strip of its own colour along it (a blonde line beside auburn curls; 9 of the 16 frontal
  // faces). Rows where the pixel 6 px from the edge is dyed (ΔE > 5): before, 0 % of the last 4 px dyed.
  for (const size of [{}, { width: 540, height: 960 }]) {
    const { plain, out } = await recoloured(FRONTAL_FACES[5], "auburn", size);
    const W = plain.width, dyed = (p: number) => deltaE(labOf(plain, p), labOf(out, p)) > 5;
    let rows = 0, edge = 0;
    for (let y = 0; y < plain.height; y++) {
      if (!dyed(y * W + W - 7)) continue;
      rows++;
      for (let x = W - 4; x < W; x++) if (dyed(y * W + x)) edge++;
    }
    console.log(
      `sample3@515 at ${W}: ${rows} rows dyed near the edge, ${
        (100 * edge / (4 * rows)).toFixed(1)
      } % of the edge`,
    );
    assert.ok(rows >= 100, `${rows} rows`);
    assert.ok(edge >= 0.9 * 4 * rows, `${edge} of ${4 * rows} edge pixels dyed`);
  }
});

Deno.test("lengths that leave the frame are dyed down to its bottom edge, at 1080x1920 and at 540x960 (sample1@1438)", async () => {
  // Her long lengths at the image right run out of the frame at its bottom. The head prior's band for long
  // hair fades out from 1.0 to 1.5 face heights below the chin, and her frame ends inside that fade: her lengths
  // paled out of the dye over the frame's last 40-60 px. Then, dyed down to it, a strip of the old colour
  // stayed along the bottom edge (the lengths' opening dropped the grid's last row). The bottom 60 rows of her
  // lengths (x 820-1070, y 1860-1920 at 1080x1920) changed by more than ΔE 5: 48.9 % before, 99.1 % after;
  // in the preview 48.2 % before.
  for (const scale of [1, 0.5]) {
    const shot = scale === 1 ? {} : { width: 540, height: 960 };
    const { plain, out } = await recoloured(FRONTAL_FACES[1], "auburn", shot);
    const bottom = rect(plain, 820 * scale, 1070 * scale, 1860 * scale, 1920 * scale);
    const share = movedShare(plain, out, bottom, 5);
    console.log(
      `sample1@1438 at ${plain.width}x${plain.height}: ${(100 * share).toFixed(1)} % of the bottom rows dyed`,
    );
    assert.ok(share >= 0.9, `the lengths' bottom rows dyed at ${plain.width}: ${(100 * share).toFixed(1)} %`);
  }
});

Deno.test("straps over bare skin keep their black and the skin between them is not dyed, at 1080x1920 and at 540x960 (sample2@1370)", async () => {
  // Her two black bra straps run from her shoulder down over her bare chest (x 930-1080, y 1050-1420 of the
  // 1080x1920 render). Black reads as her dark hair's shadows to the colour model, and the lengths' growth crept
  // down the straps from the hair at her shoulder: in Honey Blonde the straps turned gold and the skin between
  // them, held by the grid's cells over both, cream. Changed by more than ΔE 5, before: 89.8 % of the straps'
  // pixels (L* under 25) and 17.7 % of the skin about them (L* 55 or more); at 540x960 93.6 % and 17.4 %. With
  // the lines cleared: 17.5 % and 0.1 % (20.9 % and 0.3 % at 540x960), where the outer strap leaves the frame
  // beside no skin; with the pieces the cut leaves apart from the hair cleared too (see severedPieces), 0.0 % and
  // 0.0 % at both sizes. The hair on her shoulder above (x 940-1080, y 700-900, L* under 45) is dyed as before
  // (89.6 %, 90.3 % at 540x960).
  for (const scale of [1, 0.5]) {
    const shot = scale === 1 ? {} : { width: 540, height: 960 };
    const { plain, out } = await recoloured(FRONTAL_FACES[3], "honey-blonde", shot);
    const around = rect(plain, 930 * scale, 1080 * scale, 1050 * scale, 1420 * scale);
    const straps = around.filter((p) => labOf(plain, p)[0] < 25);
    const skin = around.filter((p) => labOf(plain, p)[0] >= 55);
    const hair = rect(plain, 940 * scale, 1080 * scale, 700 * scale, 900 * scale).filter((p) =>
      labOf(plain, p)[0] < 45
    );
    const [strapShare, skinShare, hairShare] = [straps, skin, hair].map((px) =>
      movedShare(plain, out, px, 5)
    );
    console.log(
      `sample2@1370 at ${plain.width}x${plain.height}: straps ${
        (100 * strapShare).toFixed(1)
      } % dyed, the skin ` +
        `about them ${(100 * skinShare).toFixed(1)} %, the hair on her shoulder ${
          (100 * hairShare).toFixed(1)
        } %`,
    );
    assert.ok(
      straps.length > 2500 * scale * scale && skin.length > 6000 * scale * scale,
      "straps and skin found",
    );
    assert.ok(strapShare <= 0.05, `straps dyed at ${plain.width}: ${(100 * strapShare).toFixed(1)} %`);
    assert.ok(
      skinShare <= 0.02,
      `skin about the straps dyed at ${plain.width}: ${(100 * skinShare).toFixed(1)} %`,
    );
    assert.ok(
      hairShare >= 0.85,
      `the hair on her shoulder dyed at ${plain.width}: ${(100 * hairShare).toFixed(1)} %`,
    );
  }
});

Deno.test("a top's hem that the dye reached only along a strap is not dyed once the strap is cleared, at 1080x1920 and at 540x960 (sample2@1370)", async () => {
  // Her black top's hem over her left breast (x 600-850, y 1450-1600 of the 1080x1920 render) is a little
  // lighter than the top and as blue as her dark hair in the lilac light (L* 17-22, b* -8 to -9): the colour
  // model took it, joined to the hair at her shoulder by the strap. Clearing the strap (see clearThinLines) left it dyed on its own: a gold smear
  // along the hem in Honey Blonde. Dark pixels there (L* under 50) changed by more than ΔE 5, before: 40.0 % at
  // 1080x1920, 40.5 % at 540x960; after: 0.0 % at both (see severedPieces). Her lengths over the top at the left
  // (x 300-420, y 1300-1450, L* 25 or more), which reach the chin's row, stay dyed: 100 % before and after.
  for (const scale of [1, 0.5]) {
    const shot = scale === 1 ? {} : { width: 540, height: 960 };
    const { plain, out } = await recoloured(FRONTAL_FACES[3], "honey-blonde", shot);
    const hem = rect(plain, 600 * scale, 850 * scale, 1450 * scale, 1600 * scale).filter((p) =>
      labOf(plain, p)[0] < 50
    );
    const lengths = rect(plain, 300 * scale, 420 * scale, 1300 * scale, 1450 * scale).filter((p) =>
      labOf(plain, p)[0] >= 25
    );
    const [hemShare, lengthsShare] = [hem, lengths].map((px) => movedShare(plain, out, px, 5));
    console.log(
      `sample2@1370 at ${plain.width}x${plain.height}: the hem ${
        (100 * hemShare).toFixed(1)
      } % dyed (of ${hem.length} px), ` +
        `her lengths ${(100 * lengthsShare).toFixed(1)} % (of ${lengths.length})`,
    );
    assert.ok(hem.length > 8000 * scale * scale, "hem found");
    assert.ok(hemShare <= 0.03, `the hem dyed at ${plain.width}: ${(100 * hemShare).toFixed(1)} %`);
    assert.ok(
      lengthsShare >= 0.85,
      `her lengths dyed at ${plain.width}: ${(100 * lengthsShare).toFixed(1)} %`,
    );
  }
});

Deno.test("dark hair lit grey at the temple takes the shade; the forehead's blown-out highlight beside it does not (sample5@727)", async () => {
  // Her tuft at the left temple, lit by the lamp that blows out her forehead, is grey (L* 65-80 at chroma 4-8,
  // against her skin's 67 at 37): lighter than a pale strand may be (lightest hair + 35) and as far from the hair
  // as from the skin, it was left grey in the dyed hair. Grey pixels there (chroma under 10, L* 60-85, in a box
  // 0.12-0.45 face widths left of the face's centre, 0.16 face heights above the mesh's top to 0.06 below)
  // changed by more than ΔE 6, before: 47.1 % (Copper Red), 50.2 % (Jet Black); after: 79.5 and 85.7 %. The
  // blown-out highlight (L* 88 and over) in the same box changed by more than ΔE 2: 0 of 1,310 px before and after.
  const { framed, g, person } = await renderedPortrait(engine, FRONTAL_FACES[10]);
  const box = rect(
    framed,
    g.center[0] - 0.45 * g.fw,
    g.center[0] - 0.12 * g.fw,
    g.pts[10][1] - 0.16 * g.fh,
    g.pts[10][1] + 0.06 * g.fh,
  );
  const grey = box.filter((p) => {
    const [L, a, b] = labOf(framed, p);
    return Math.hypot(a, b) < 10 && L > 60 && L < 85;
  });
  const highlight = box.filter((p) => labOf(framed, p)[0] >= 88);
  for (const [name, hex] of [["Copper Red", "#B4532A"], ["Jet Black", "#1B1B1D"]]) {
    const out = { ...framed, data: framed.data.slice() };
    assert.equal(recolorHair(out, g, person, hex).applied, true, `${name} applied`);
    const tuft = movedShare(framed, out, grey), lit = movedShare(framed, out, highlight, 2);
    console.log(
      `sample5@727, ${name}: the grey tuft ${(100 * tuft).toFixed(1)} % dyed (of ${grey.length} px), the ` +
        `highlight ${(100 * lit).toFixed(1)} % (of ${highlight.length})`,
    );
    assert.ok(
      grey.length > 5000 && highlight.length > 500,
      `${grey.length} grey, ${highlight.length} lit px`,
    );
    assert.ok(tuft >= 0.7, `${name}: the grey tuft ${(100 * tuft).toFixed(1)} % dyed`);
    assert.ok(lit <= 0.01, `${name}: the highlight ${(100 * lit).toFixed(1)} % changed`);
  }
});
