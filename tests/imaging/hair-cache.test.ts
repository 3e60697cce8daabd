/**
 * The hair recolour's per-canvas cache (HairCache): a photo restyled, or prepared at upload, paints its hair
 * from what an earlier call measured, byte for byte as a fresh measure would, on real test portraits (read
 * from @vladmandic/face-api's demo photos in node_modules at test time): dark hair, light brown hair, a curly
 * blonde dyed darker and lighter, and a blonde as light as her lit skin (her hair found by place, against the
 * shade's lightness).
 */
import assert from "node:assert/strict";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import {
  hairCacheBytes,
  newHairCache,
  prepareHair,
  recolorHair,
} from "../../server/imaging/local/hair-recolor.ts";
import { DARK_HAIR, FRONTAL_FACES } from "./fixtures.ts";
import { renderedPortrait } from "./framed-crop.ts";
import { assertSameBytes } from "../helpers/same-bytes.ts";

const engine = await FaceEngine.load();

/** Auburn, Jet Black, Dirty Blonde, Platinum, Ginger: darker and lighter than each portrait's hair. */
const SHADES = ["#7E2E1F", "#1B1B1D", "#A88A5E", "#E6DCC8", "#A4512A"];
/** The test face of demo photo `sample` whose face box starts at `x`. */
const testFace = (sample: number, x: number) => FRONTAL_FACES.find((f) => f[0] === sample && f[1] === x)!;
const CURLY_BLONDE = testFace(3, 515);
const BLONDE_LIKE_SKIN = testFace(4, 1216);

/** A portrait as the renderer frames it (a plain render), its face and its person mask. */
const portrait = (face: [number, number, number, number]) => renderedPortrait(engine, face);

/** The canvas after recolouring `hex`, with or without a cache, and the result. */
function paint(
  crop: Awaited<ReturnType<typeof portrait>>,
  hex: string,
  cache?: ReturnType<typeof newHairCache>,
) {
  const img = { ...crop.framed, data: crop.framed.data.slice() };
  const result = recolorHair(img, crop.g, crop.person, hex, cache);
  return { result, data: img.data };
}

for (
  // With the plans each needs: one for every shade; dyed darker or not; far darker or not; one per shade's
  // lightness (by place).
  const [name, face, plans] of [
    ["dark hair (bench portrait)", DARK_HAIR, 1],
    // Jet Black is far darker than her light brown hair: painted at full strength from a plan of its own, its
    // half-dyed hair closed up (see DEEPER_CLOSE_FROM).
    ["light brown hair (sample3@1005)", testFace(3, 1005), 2],
    ["curly blonde (sample3@515)", CURLY_BLONDE, 2],
    ["blonde as light as her skin (sample4@1216)", BLONDE_LIKE_SKIN, SHADES.length],
  ] as const
) {
  Deno.test(`hair cache, ${name}: every shade, restyled in any order, paints as a fresh measure does`, async () => {
    const crop = await portrait(face);
    const fresh = SHADES.map((hex) => paint(crop, hex));
    assert.ok(fresh.some((f) => f.result.applied), "at least one shade is applied");
    const cache = newHairCache();
    for (const order of [SHADES, SHADES.toReversed()]) {
      for (const hex of order) {
        const cached = paint(crop, hex, cache);
        const want = fresh[SHADES.indexOf(hex)];
        assert.deepEqual(cached.result, want.result, hex);
        assertSameBytes(cached.data, want.data, `${hex}: the canvas differs from a fresh measure`);
      }
    }
    assert.equal(cache.plans.size, plans, [...cache.plans.keys()].join(", "));
    assert.ok(hairCacheBytes(cache) > 0, "the plans' bytes are counted");
  });
}

Deno.test("hair cache: a prepared photo's plan serves every shade that darkens no light hair", async () => {
  const crop = await portrait(DARK_HAIR);
  const cache = newHairCache();
  prepareHair(crop.framed, crop.g, crop.person, cache);
  assert.equal(cache.plans.size, 1, "prepared: one plan");
  // Its strengths made, a plan keeps what painting reads (masks on a 4-pixel grid and a byte per pixel of the
  // hair's box), not what the strengths were made from: 2.8 MB at 1080x1920, 8.3 MB when the measure was kept.
  assert.ok(
    hairCacheBytes(cache) < crop.framed.data.byteLength / 2,
    `the prepared plan holds ${hairCacheBytes(cache)} bytes`,
  );
  for (const hex of ["#7E2E1F", "#1B1B1D", "#A4512A"]) {
    assert.equal(paint(crop, hex, cache).result.applied, true, hex);
  }
  assert.equal(cache.plans.size, 1, "dark hair: every shade used the prepared plan");
});

Deno.test("hair cache: light hair dyed darker and dyed lighter are measured apart, both at upload (curly blonde)", async () => {
  const crop = await portrait(CURLY_BLONDE);
  const cache = newHairCache();
  prepareHair(crop.framed, crop.g, crop.person, cache);
  assert.equal(cache.plans.size, 2, "prepared: a plan for shades darkening her hair and one for the others");
  // 5.4 MB at 1080x1920, 15.3 MB when each plan kept its measure (see above).
  assert.ok(
    hairCacheBytes(cache) < crop.framed.data.byteLength,
    `the prepared plans hold ${hairCacheBytes(cache)} bytes`,
  );
  for (
    const [hex, name] of [["#E6DCC8", "Platinum, as light as her hair"], ["#1B1B1D", "Jet Black, darker"]]
  ) {
    const cached = paint(crop, hex, cache), fresh = paint(crop, hex);
    assert.equal(cached.result.applied, true, name);
    assertSameBytes(cached.data, fresh.data, `${name}: the canvas differs from a fresh measure`);
  }
  assert.equal(cache.plans.size, 2, "both shades used a prepared plan");
});
