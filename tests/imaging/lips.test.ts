/**
 * Lipstick on the test portraits (closed mouths and smiles with teeth):
 * nearly every real lip pixel painted, teeth and the mouth opening left
 * alone, the shade recognisable at the default intensity (60) and at 100
 * (ΔE to the swatch as lit in the photo), and the lip's texture kept.
 *
 * "Real lip" is judged on the unstyled render, independently of the
 * renderer's own mask: pixels inside the mesh's outer lip outline whose Lab
 * is close to the lip's typical colour; teeth are the pixels there that are
 * lighter and much less red than the lip; the cavity, much darker.
 * "As lit": the swatch scaled by the skin's luminance against a well-lit
 * reference skin (Y 0.36), softened (^0.6) and bounded to 0.6..1.15; on an
 * underexposed photo (its brightest 0.1 % under Y 0.8) the skin is judged as if
 * the photo were exposed well, and the result scaled back by that exposure.
 */
import assert from "node:assert/strict";
import { deltaE, hexToRgb, type Lab, linearToLab, rgbToLinear } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { LIPS_OUTER, SKIN_SAMPLES } from "../../server/imaging/local/landmarks.ts";
import type { Point } from "../../server/imaging/local/masks.ts";
import { PhotoCache, render } from "../../server/imaging/local/render.ts";
import { DEFAULT_INTENSITY, type Intensity } from "../../server/styling/option-keys.ts";
import {
  cropFace,
  decode,
  type Decoded,
  dimWarmCopy,
  FRONTAL_FACES,
  FULL_INTENSITY,
  job,
  labOf,
  meanLab,
  plainAndStyled,
  polygonPixels,
  renderKept,
} from "./fixtures.ts";
import {
  changed,
  copyOf,
  framedFace,
  meanDeltaE,
  skinAroundMouth,
  TRACED_LIPS,
  TRACED_TEETH,
  tracedPixels,
} from "./makeup-metrics.ts";
import { lipsLayer } from "../../server/imaging/local/lips.ts";
import { CATALOG } from "../../server/styling/catalog.ts";

const engine = await FaceEngine.load();
const SHADES: [string, string][] = [["classic-red-matte", "#B22234"], ["plum-matte", "#5C2340"]];
// Every other frontal face: smiles with teeth and closed mouths, several skin tones.
const FACES = FRONTAL_FACES.filter((_, i) => i % 2 === 0);
const at = (lips: number): Intensity => ({ ...FULL_INTENSITY, lips });

function variance(img: Decoded, px: number[]): number {
  const ls = px.map((p) => labOf(img, p)[0]);
  const m = ls.reduce((a, b) => a + b, 0) / ls.length;
  return ls.reduce((a, b) => a + (b - m) ** 2, 0) / ls.length;
}

/**
 * The luminance (Y) of `img`'s brightest 0.1 %, kept per image: every shade at every intensity is judged
 * against the same unstyled render, and sorting its two million pixels was most of this file's time.
 */
const brightestOf = new WeakMap<Decoded, number>();
function brightest(img: Decoded): number {
  const kept = brightestOf.get(img);
  if (kept !== undefined) return kept;
  const ys = new Float64Array(img.width * img.height);
  for (let i = 0, k = 0; i < img.data.length; i += 3, k++) {
    const lin = rgbToLinear([img.data[i], img.data[i + 1], img.data[i + 2]]);
    ys[k] = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  }
  ys.sort(); // a typed array sorts by value, without a comparator
  const y = ys[Math.floor(0.999 * (ys.length - 1))];
  brightestOf.set(img, y);
  return y;
}

function swatchAsLit(hex: string, plain: Decoded, pts: Point[]): Lab {
  let s = 0, n = 0;
  for (const idx of SKIN_SAMPLES) {
    const [x, y] = pts[idx].map(Math.round);
    const i = (y * plain.width + x) * 3;
    const lin = rgbToLinear([plain.data[i], plain.data[i + 1], plain.data[i + 2]]);
    s += 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    n++;
  }
  // An underexposed photo (its brightest 0.1 % under Y 0.8): the skin judged as if exposed well, then scaled back.
  const bySkin = (s / n / 0.36) ** 0.6;
  const under = bySkin < 0.6 ? Math.min(1, Math.max(0.2, brightest(plain) / 0.8)) : 1;
  const e = under * Math.min(1.15, Math.max(0.6, bySkin / under ** 0.6));
  const c = rgbToLinear(hexToRgb(hex));
  return linearToLab(c[0] * e, c[1] * e, c[2] * e);
}

interface Regions {
  plain: Decoded;
  lips: number[];
  teeth: number[];
  pts: Point[];
  /** False when the landmarks found on the render miss the lips (this face is then not measured). */
  found: boolean;
}

/**
 * The pixels inside the mesh's outer lip outline (by ~1.5 px: the outline itself is the mesh's guess, not a
 * lip pixel), their Lab, and the lip's typical colour: the mean of the 25th-60th percentile by L*, the most
 * typical lip pixels.
 */
function insideLips(plain: Decoded, pts: Point[]): { inside: number[]; labs: Lab[]; lip: number[] } {
  const inside = polygonPixels(plain, LIPS_OUTER.map((i) => pts[i]), 1.2, 0.9);
  const labs = inside.map((p) => labOf(plain, p));
  const sorted = [...labs].sort((a, b) => a[0] - b[0]);
  const mid = sorted.slice(Math.floor(sorted.length * 0.25), Math.floor(sorted.length * 0.6));
  const lip = mid.reduce((a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]], [0, 0, 0]).map((v) =>
    v / mid.length
  );
  return { inside, labs, lip };
}

async function regions(face: [number, number, number, number]): Promise<Regions> {
  // The renderer's own landmarks (found on the photo, mapped through the framing), so that the
  // lip outline measured here is the one the renderer worked from.
  const { plain, g } = await framedFace(engine, face);
  const { inside, labs, lip } = insideLips(plain, g.pts);
  const lips: number[] = [], teeth: number[] = [];
  inside.forEach((p, k) => {
    const [L, a, b] = labs[k];
    if (L > lip[0] + 12 && a < 0.5 * lip[1]) teeth.push(p);
    else if (L < 0.6 * lip[0]) return; // the cavity
    else if (Math.hypot(L - lip[0], a - lip[1], b - lip[2]) < 14) lips.push(p);
  });
  // Sanity of the test's own landmarks: lips are redder than the cheeks' skin.
  const skinA = SKIN_SAMPLES.map((i) => {
    const [x, y] = g.pts[i].map(Math.round);
    return labOf(plain, y * plain.width + x)[1];
  }).sort((a, b) => a - b)[Math.floor(SKIN_SAMPLES.length / 2)];
  return { plain, lips, teeth, pts: g.pts, found: lip[1] > skinA + 3 };
}

const touched = (a: Decoded, b: Decoded, px: number[]) =>
  px.filter((p) => deltaE(labOf(a, p), labOf(b, p)) > 2).length;

let skipped = 0;

Deno.test("lipstick on the test portraits: coverage, teeth, shade at 60 and 100, texture", async (t) => {
  for (const face of FACES) {
    await t.step(`sample${face[0]} face at ${face[1]},${face[2]}`, async () => {
      const r = await regions(face);
      if (!r.found) {
        console.log(`sample${face[0]}@${face[1]}: landmarks on the render miss the lips; not measured`);
        skipped++;
        return;
      }
      assert.ok(r.lips.length > 300, `lip pixels ${r.lips.length}`);
      // The photo is styled four times, as in the studio: its decode, face and matte are kept between
      // renders, as a worker keeps them (a kept photo renders byte for byte as a fresh one).
      const photo = await cropFace(face), photos = new PhotoCache(1);
      for (const [id, hex] of SHADES) {
        for (const intensity of [DEFAULT_INTENSITY, 100]) {
          const styled = { ...job(photo, { lips: id }, at(intensity)), cacheKey: "photo" };
          const out = await decode((await render(engine, styled, photos)).image);
          const coverage = touched(r.plain, out, r.lips) / r.lips.length;
          const teeth = r.teeth.length ? touched(r.plain, out, r.teeth) / r.teeth.length : 0;
          const shade = deltaE(meanLab(out, r.lips), swatchAsLit(hex, r.plain, r.pts));
          const texture = Math.sqrt(variance(out, r.lips) / variance(r.plain, r.lips));
          console.log(
            `sample${face[0]}@${face[1]} ${id} ${intensity}: coverage ${(100 * coverage).toFixed(1)}%, ` +
              `teeth touched ${(100 * teeth).toFixed(1)}% of ${r.teeth.length}, ΔE as lit ${
                shade.toFixed(1)
              }, ` +
              `texture ${texture.toFixed(2)}`,
          );
          assert.ok(coverage >= 0.95, `${id}@${intensity}: ${(100 * coverage).toFixed(1)}% of lip painted`);
          assert.ok(
            teeth <= 0.02 || r.teeth.length < 50,
            `${id}@${intensity}: ${(100 * teeth).toFixed(1)}% of teeth`,
          );
          assert.ok(shade <= (intensity === 100 ? 12 : 15), `${id}@${intensity}: ΔE ${shade.toFixed(1)}`);
          assert.ok(texture >= 0.8, `${id}@${intensity}: texture ${texture.toFixed(2)}`);
        }
      }
    });
  }
  assert.ok(skipped <= 2, `${skipped} faces not measured`);
});

Deno.test("on a dim, warm photo the lipstick does not glow: as much lighter than the skin as when well lit", async () => {
  // Lipstick's light was bounded to 0.6 of a well-lit photo's, however dim the photo: on dim, warm copies of
  // the test portraits (sRGB x 0.62 / 0.5 / 0.36, gamma 2.2 -> 2.0) Petal Pink Gloss at 60 came out 12-27 L*
  // lighter than the skin (the glow the issue measured). Now the skin is judged as if the photo were exposed
  // well and the light scaled by the highlights' exposure. Lips' L* over the skin's, the dim copy against the
  // original: sample6@1081 -5.1 -> +12.0 before, -> -0.8 now; sample4@908 +1.7 -> +17.8 before, -> +4.1 now.
  for (const i of [13, 9]) {
    const name = `sample${FRONTAL_FACES[i][0]}@${FRONTAL_FACES[i][1]}`;
    const photo = await cropFace(FRONTAL_FACES[i]);
    const above: number[] = [];
    for (const bytes of [photo, await dimWarmCopy(photo)]) {
      const { plain, out } = await plainAndStyled(engine, bytes, { lips: "petal-pink-gloss" }, at(60));
      const pts = (await engine.detect(plain))[0].mesh;
      const skin = SKIN_SAMPLES.map((k) =>
        labOf(plain, Math.round(pts[k][1]) * plain.width + Math.round(pts[k][0]))
      );
      const painted: number[] = [];
      for (let p = 0; p < plain.width * plain.height; p++) {
        if (deltaE(labOf(plain, p), labOf(out, p)) > 6) painted.push(p);
      }
      assert.ok(painted.length > 1000, `${name}: the lips are painted (${painted.length} px)`);
      above.push(meanLab(out, painted)[0] - skin.reduce((sum, c) => sum + c[0], 0) / skin.length);
    }
    console.log(`${name}: lips' L* over the skin's ${above.map((v) => v.toFixed(1)).join(" -> ")}`);
    assert.ok(
      above[1] - above[0] <= 8,
      `${name}: on the dim copy the lips are ${above[1].toFixed(1)} L* over the skin`,
    );
  }
});

Deno.test("warm-lit teeth of a wide smile are left bare (traced by hand)", async () => {
  // sample4@1216 is among the faces above, but in its warm light the teeth are as red as the skin
  // (a* 14-24 against the lip's 30), so the colour classes above find 43 teeth pixels (not measured
  // under 50). Traced by hand instead: the lipstick tinted 853 of their 1,399 pixels pink.
  const f = await framedFace(engine, FRONTAL_FACES[8]);
  const teeth = tracedPixels(f, TRACED_TEETH["sample4@1216"]);
  assert.ok(teeth.length > 1000, `traced teeth ${teeth.length} px`);
  for (const id of [...SHADES.map(([id]) => id), "berry-gloss"]) {
    const entry = CATALOG.makeup.lips.find((e) => e.id === id)!;
    for (const intensity of [DEFAULT_INTENSITY, 100]) {
      const out = copyOf(f.plain);
      lipsLayer(out, f.g, entry, intensity / 100);
      const touchedTeeth = changed(f.plain, out, teeth, 2).length;
      console.log(`sample4@1216 ${id} ${intensity}: teeth touched ${touchedTeeth} of ${teeth.length}`);
      assert.ok(
        touchedTeeth <= 0.02 * teeth.length,
        `${id}@${intensity}: ${touchedTeeth} of ${teeth.length} teeth px`,
      );
    }
  }
});

Deno.test("lipstick follows the real lips where the mesh's outline is off them (tilted, laughing; traced by hand)", async () => {
  // sample1@1438: the mesh's lip outline covers the right half of the mouth and runs ~15 photo px
  // past its right corner. Before the lips were found by colour, each shade painted 31% of the
  // traced lips, 5% of the traced teeth and 2,900-4,300 skin pixels around the mouth (a smear past
  // the corner).
  const f = await framedFace(engine, FRONTAL_FACES[1]);
  const traced = TRACED_LIPS["sample1@1438"];
  const lips = [...tracedPixels(f, traced.upper), ...tracedPixels(f, traced.lower)];
  const teeth = tracedPixels(f, TRACED_TEETH["sample1@1438"]);
  const skin = skinAroundMouth(f, traced.mouth, [1476, 330, 1590, 420]);
  assert.ok(lips.length > 10000 && teeth.length > 2000 && skin.length > 50000, "traced regions");
  for (const id of [...SHADES.map(([id]) => id), "berry-gloss", "nude-satin"]) {
    const entry = CATALOG.makeup.lips.find((e) => e.id === id)!;
    for (const intensity of [DEFAULT_INTENSITY, 100]) {
      const out = copyOf(f.plain);
      lipsLayer(out, f.g, entry, intensity / 100);
      const painted = changed(f.plain, out, lips, 2).length / lips.length;
      const teethTouched = changed(f.plain, out, teeth, 2).length / teeth.length;
      const skinChanged = changed(f.plain, out, skin, 6).length;
      console.log(
        `sample1@1438 ${id} ${intensity}: traced lips painted ${(100 * painted).toFixed(1)}%, ` +
          `teeth touched ${(100 * teethTouched).toFixed(1)}% of ${teeth.length}, ` +
          `skin around the mouth changed (ΔE > 6) ${skinChanged} of ${skin.length} px`,
      );
      assert.ok(painted >= 0.95, `${id}@${intensity}: ${(100 * painted).toFixed(1)}% of the lips painted`);
      assert.ok(teethTouched <= 0.02, `${id}@${intensity}: ${(100 * teethTouched).toFixed(1)}% of the teeth`);
      assert.ok(skinChanged <= 100, `${id}@${intensity}: ${skinChanged} skin px changed`);
    }
  }
});

/**
 * A patch of sample3@1005's lips traced by hand on the photo (`outline`), painted by each shade at 60 and 100:
 * how far it moves against her lower lip (mean ΔE over mean ΔE), at least `least` each time.
 */
async function movesWithLowerLip(what: string, outline: Point[], least: number): Promise<void> {
  const f = await framedFace(engine, FRONTAL_FACES[6]);
  const patch = tracedPixels(f, outline);
  const lower = tracedPixels(f, [[1135, 449], [1165, 449], [1165, 455], [1135, 455]]);
  assert.ok(patch.length > 50 && lower.length > 300, `traced ${patch.length} and ${lower.length} lip px`);
  for (const [id] of SHADES) {
    const entry = CATALOG.makeup.lips.find((e) => e.id === id)!;
    for (const intensity of [DEFAULT_INTENSITY, 100]) {
      const out = copyOf(f.plain);
      lipsLayer(out, f.g, entry, intensity / 100);
      const moved = (px: number[]) => meanDeltaE(f.plain, out, px);
      const ratio = moved(patch) / moved(lower);
      console.log(
        `sample3@1005 ${id} ${intensity}: ${what} moved ${ratio.toFixed(2)}x as much as the lower lip ` +
          `(ΔE ${moved(patch).toFixed(1)} against ${moved(lower).toFixed(1)})`,
      );
      // (Her teeth are checked with the other portraits' above.)
      assert.ok(
        ratio >= least,
        `${id}@${intensity}: ${what} moved ${ratio.toFixed(2)}x as much as the lower lip`,
      );
    }
  }
}

Deno.test("an upper lip in another light than the lower is painted inside the mesh's opening (sample3@1005)", async () => {
  // Her upper lip is lit blue (lavender, L* 52, a* 31, b* -10), her lower lip red (L* 54, a* 38, b* 9); the
  // mesh's opening runs up into the upper lip above her first teeth. Compared with the two lips' mean colour,
  // that band of lip counted as the opening and took 40 % of the shade: it changed 0.64-0.79 as much as the
  // lower lip did (a paler strip between the lipstick and the teeth).
  await movesWithLowerLip("the upper lip's band above the teeth", [[1127, 432], [1152, 434], [1152, 439], [
    1127,
    437,
  ]], 0.85);
});

Deno.test("a mouth corner lit warm is painted as lip inside the mesh's opening (sample3@1005)", async () => {
  // Her mouth's left corner (the photo's) is lit warm (L* 44, a* 29, b* 22), over 16 ΔE from both her lips'
  // colours (the upper lit blue, the lower red): inside the mesh's opening it counted as the mouth's opening and
  // took 40 % of the shade, a paler streak inside the painted upper lip. As red as the lips and about as light,
  // it is lip (see LIT_LIP_RED in lips.ts). How far it moved against her lower lip: before 0.29-0.48, now
  // 0.59-1.12 (classic red moves a warm pixel less far than plum).
  await movesWithLowerLip("the warm-lit corner", [[1113, 421], [1118, 421], [1127, 433], [1122, 436]], 0.5);
});

Deno.test("the crease between closed lips takes the lipstick with them, not left as holes (sample2@805)", async () => {
  // Her lips meet along a crease darker and redder than the lip's typical colour (L* 30-35 at a* 29-31
  // against 47 at 20). Inside the mesh's opening such a pixel, more than 16 ΔE from the lip's colour,
  // counted as the mouth's opening and took 40 % of the shade: two bare patches in the middle of the
  // painted lips. Crease pixels here: inside the outer outline, 0.55-0.85 of the lip's L* at its hue
  // (within 12 degrees) and chroma. How far each moved in a*b*, against the lip's own pixels' median.
  const face = FRONTAL_FACES[4];
  const { plain, g } = await framedFace(engine, face);
  const { inside, labs, lip } = insideLips(plain, g.pts);
  const hue = (l: number[]) => Math.atan2(l[2], l[1]) * 180 / Math.PI;
  const lips: number[] = [], crease: number[] = [];
  inside.forEach((p, k) => {
    const l = labs[k];
    if (Math.hypot(l[0] - lip[0], l[1] - lip[1], l[2] - lip[2]) < 14) lips.push(p);
    else if (
      l[0] >= 0.55 * lip[0] && l[0] <= 0.85 * lip[0] && Math.abs(hue(l) - hue(lip)) < 12 &&
      Math.hypot(l[1], l[2]) >= Math.hypot(lip[1], lip[2])
    ) crease.push(p);
  });
  assert.ok(crease.length >= 40, `crease ${crease.length} px`);
  const out = await decode(
    (await renderKept(engine, job(await cropFace(face), { lips: "plum-matte" }, at(60)))).image,
  );
  const moved = (p: number) => {
    const a = labOf(plain, p), b = labOf(out, p);
    return Math.hypot(a[1] - b[1], a[2] - b[2]);
  };
  const typical = lips.map(moved).sort((a, b) => a - b)[lips.length >> 1];
  const bare = crease.filter((p) => moved(p) < 0.5 * typical).length / crease.length;
  console.log(
    `sample2@805: ${crease.length} crease px, ${(100 * bare).toFixed(1)} % moved under half the lips' ` +
      `${typical.toFixed(1)} a*b*`,
  );
  assert.ok(bare <= 0.1, `${(100 * bare).toFixed(1)} % of the crease left bare`);
});

Deno.test("no lipstick runs down between the teeth of a smile", async () => {
  // Between two teeth, and on a tooth's shaded side, the photo is about as dark as the lip, and in a
  // coloured light as red (sample3@1005, lit blue: L* 49-55, a* 30-35 against the lip's 45-49 and 30), so
  // the lipstick ran down between her teeth in red wedges and hooked round her first tooth. Measured on
  // each row inside the lips: a run of painted pixels (moved by more than ΔE 6) at most 0.03 face widths
  // long (half a tooth's width) with bare teeth within 4 px either side of it is lipstick between teeth.
  // Bare teeth: unmoved (ΔE 2 at most) and 8 L* or more lighter than the lip's typical colour.
  const results: [string, number, number][] = [];
  for (const face of [FRONTAL_FACES[6], FRONTAL_FACES[7], FRONTAL_FACES[11], FRONTAL_FACES[15]]) {
    const { plain, g } = await framedFace(engine, face);
    const { inside, lip } = insideLips(plain, g.pts);
    const out = await decode(
      (await renderKept(engine, job(await cropFace(face), { lips: "classic-red-matte" }, at(60)))).image,
    );
    const within = new Set(inside);
    const moved = (p: number) => deltaE(labOf(plain, p), labOf(out, p));
    const bareTooth = (p: number) => within.has(p) && moved(p) <= 2 && labOf(plain, p)[0] >= lip[0] + 8;
    const toothNear = (p: number, step: number) => [1, 2, 3, 4].some((d) => bareTooth(p + step * d));
    let teeth = 0, between = 0;
    const longest = 0.03 * g.fw;
    for (const p of inside) {
      if (bareTooth(p)) teeth++;
      // A painted run starting here: its length, and bare teeth within 4 px either side of it.
      if (moved(p) <= 6 || (within.has(p - 1) && moved(p - 1) > 6)) continue;
      let q = p;
      while (within.has(q + 1) && moved(q + 1) > 6 && q - p < longest) q++;
      if (q - p + 1 <= longest && toothNear(p, -1) && toothNear(q, 1)) between += q - p + 1;
    }
    console.log(`sample${face[0]}@${face[1]}: ${teeth} bare teeth px, ${between} painted px between them`);
    results.push([`sample${face[0]}@${face[1]}`, teeth, between]);
  }
  for (const [name, teeth, between] of results) {
    assert.ok(teeth >= 300, `${name}: ${teeth} teeth px`);
    // Before the gaps were closed: 187 px on sample3@1005 (14 % of her teeth), 79 on sample6@587.
    assert.ok(between <= 0.005 * teeth, `${name}: ${between} px painted between teeth`);
  }
});
