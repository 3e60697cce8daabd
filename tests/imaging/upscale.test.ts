/**
 * Detail restoration after an enlargement (server/imaging/local/upscale.ts):
 * measured on synthetic edges against the plain resize. It must sharpen (a
 * steeper edge), not ring (no overshoot beyond the plain resize's), leave
 * flat noise alone and leave colour alone (lightness only).
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { srgbToLab } from "../../server/imaging/local/color.ts";
import { detailSharpen, restoreDetail } from "../../server/imaging/local/upscale.ts";

const N = 160;

/** An N x N image: left half `a`, right half `b`, softened like a photo's edge. */
async function stepImage(a: number[], b: number[]): Promise<Uint8Array> {
  const img = new Uint8Array(N * N * 3);
  for (let y = 0; y < N; y++) {
    for (let x = 0; x < N; x++) img.set(x < N / 2 ? a : b, (y * N + x) * 3);
  }
  return new Uint8Array(
    await sharp(img, { raw: { width: N, height: N, channels: 3 } }).blur(0.8).raw().toBuffer(),
  );
}

async function enlarged(
  img: Uint8Array,
  scale: number,
  restore: boolean,
): Promise<{ data: Uint8Array; w: number }> {
  const w = Math.round(N * scale);
  const p = sharp(img, { raw: { width: N, height: N, channels: 3 } }).resize(w, w, { kernel: "lanczos3" });
  const data = new Uint8Array(await p.raw().toBuffer());
  if (restore) await restoreDetail({ data, width: w, height: w }, scale);
  return { data, w };
}

/** Green channel along the middle row: overshoot beyond [lo, hi] and the steepest step. */
function edgeProfile(e: { data: Uint8Array; w: number }, lo: number, hi: number) {
  const row = e.w >> 1;
  let over = 0, steepest = 0;
  for (let x = 0; x < e.w; x++) {
    const v = e.data[(row * e.w + x) * 3 + 1];
    over = Math.max(over, v - hi, lo - v);
    if (x > 0) steepest = Math.max(steepest, v - e.data[(row * e.w + x - 1) * 3 + 1]);
  }
  return { over, steepest };
}

Deno.test(
  "sharpening after an enlargement: steeper edges, no ringing",
  { sanitizeResources: false },
  async () => {
    // [dark, light, overshoot allowed beyond the plain resize's, gain of the steepest step]:
    // an edge (skin against hair, an eyelid, a dark-to-light step) gets 15% steeper or more
    // and stays within a level of its two sides (the earlier capped mask: 4-6% steeper,
    // 3 levels of halo); a low-contrast edge is not made shallower.
    const steps = [[60, 190, 1, 1.15], [20, 235, 1, 1.15], [110, 140, 1, 1]];
    for (const [lo, hi, extraOver, gain] of steps) {
      const img = await stepImage([lo, lo, lo], [hi, hi, hi]);
      for (const scale of [1.6, 2.4, 3.2]) {
        const plain = edgeProfile(await enlarged(img, scale, false), lo, hi);
        const sharp = edgeProfile(await enlarged(img, scale, true), lo, hi);
        const what = `step ${lo}->${hi} at ${scale}x`;
        assert.ok(
          sharp.over <= plain.over + extraOver,
          `${what}: overshoot ${sharp.over} levels (plain ${plain.over})`,
        );
        assert.ok(
          sharp.steepest >= plain.steepest * gain,
          `${what}: steepest step ${sharp.steepest} vs ${plain.steepest}`,
        );
      }
    }
  },
);

Deno.test("sharpening leaves flat noise and colour alone", { sanitizeResources: false }, async () => {
  // Flat mid-grey with +-1 level of noise: below the threshold, not amplified.
  const flat = new Uint8Array(N * N * 3);
  let seed = 3;
  for (let i = 0; i < flat.length; i += 3) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    flat.fill(128 + (seed % 3) - 1, i, i + 3);
  }
  const [a, b] = await Promise.all([enlarged(flat, 2, false), enlarged(flat, 2, true)]);
  let maxDiff = 0;
  for (let i = 0; i < a.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a.data[i] - b.data[i]));
  assert.ok(maxDiff <= 1, `flat noise changed by ${maxDiff} levels`);
  // A skin-to-dark-brown edge: lightness sharpened, hue and chroma kept (no colour fringes).
  const img = await stepImage([200, 150, 130], [80, 50, 40]);
  const [p, s] = await Promise.all([enlarged(img, 2.4, false), enlarged(img, 2.4, true)]);
  let maxL = 0, maxAB = 0;
  const row = p.w >> 1;
  for (let x = 0; x < p.w; x++) {
    const i = (row * p.w + x) * 3;
    const lp = srgbToLab(p.data[i], p.data[i + 1], p.data[i + 2]);
    const ls = srgbToLab(s.data[i], s.data[i + 1], s.data[i + 2]);
    maxL = Math.max(maxL, Math.abs(ls[0] - lp[0]));
    maxAB = Math.max(maxAB, Math.hypot(ls[1] - lp[1], ls[2] - lp[2]));
  }
  assert.ok(maxL > 1, `lightness changed by ${maxL.toFixed(2)} L* only`);
  assert.ok(maxAB < 3, `colour changed by ${maxAB.toFixed(2)} (a*, b*)`);
});

Deno.test("no sharpening for a resize that is not an enlargement", () => {
  assert.equal(detailSharpen(1), undefined);
  assert.equal(detailSharpen(0.5), undefined);
  assert.ok(detailSharpen(2));
});

sharp.cache(false);
