/**
 * The Scene Composer's painted backdrops as a portrait's background looks: out of focus, and more so under the
 * shallow-depth camera. Measured on the 1080x1920 frame a result has.
 */
import assert from "node:assert/strict";
import { LENS_BLUR_SIGMA, renderBackdrop } from "../../server/imaging/local/scene.ts";
import { BACKDROPS, CAMERA_RECIPES } from "../../server/imaging/local/recipes.ts";

const W = 1080, H = 1920;

/** Luminance (sRGB levels) of pixel (x, y) of a W-wide RGB backdrop. */
const lum = (d: Uint8Array, x: number, y: number) => {
  const i = (y * W + x) * 3;
  return 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];
};

/**
 * The backdrop's steepest steps: the 99.9th percentile of the luminance difference (sRGB levels, to a tenth) between
 * horizontal neighbours, on every second row. A lens blur of sigma s on an edge of contrast A leaves steps of at
 * most A / (2.5 s): the sharper the backdrop, the larger.
 */
async function steepestStep(id: string, lensBlur: number): Promise<number> {
  const d = await renderBackdrop({ id }, W, H, [W / 2, H * 0.3], lensBlur);
  const steps = new Uint32Array(2561);
  let n = 0;
  for (let y = 0; y < H; y += 2) {
    for (let x = 0; x < W - 1; x++) {
      steps[Math.round(10 * Math.abs(lum(d, x + 1, y) - lum(d, x, y)))]++;
      n++;
    }
  }
  let above = n * 0.001, bin = 2560;
  while (bin > 0 && above > steps[bin]) above -= steps[bin--];
  return bin / 10;
}

Deno.test("every setting's backdrop is out of focus, as behind a portrait: no crisp dots or discs", async () => {
  // Before the backdrop's blur ran ahead of its enlargement, City Night's lit windows were crisp 8-px dots
  // (steps of 15 levels a pixel), Luxury Lounge's and Soft Bokeh's lights 9-10; now 6 at most.
  for (const id of Object.keys(BACKDROPS)) {
    const step = await steepestStep(id, 0);
    assert.ok(step <= 8, `${id}: steepest steps ${step} levels a pixel (at most 8)`);
  }
});

Deno.test("the shallow-depth camera blurs a backdrop's lights further", async () => {
  const lens = CAMERA_RECIPES["shallow-depth"].backgroundBlur;
  assert.ok(lens > 0 && LENS_BLUR_SIGMA > 0);
  // The settings drawn with small, sharp light shapes. The studio papers and Beach Sunset are smooth gradients,
  // and Golden Garden's foliage is soft already: their steepest steps lie near the level of the noise laid over
  // every backdrop against banding (1.6). Before, the lens's blur was a quarter of its sigma: Soft Bokeh and
  // Luxury Lounge kept 0.8 of their steps.
  for (const id of ["soft-bokeh", "city-night", "luxury-lounge"]) {
    const sharp = await steepestStep(id, 0), soft = await steepestStep(id, lens);
    assert.ok(soft <= 0.65 * sharp, `${id}: steepest steps ${soft} under shallow depth, ${sharp} without`);
  }
});

/** The share of the backdrop's pixels within `levels` of their row's median: a gradient row is flat but for its lights. */
async function flatShare(id: string, levels: number): Promise<number> {
  const d = await renderBackdrop({ id }, W, H, [W / 2, H * 0.3]);
  let flat = 0, n = 0;
  for (let y = 0; y < H; y += 4) {
    const row = Array.from({ length: W }, (_, x) => lum(d, x, y));
    const median = [...row].sort((a, b) => a - b)[W >> 1];
    for (const v of row) flat += Math.abs(v - median) < levels ? 1 : 0;
    n += W;
  }
  return flat / n;
}

Deno.test("Golden Garden is foliage with the sky and sun through it, not a gradient with discs", async () => {
  // Painted as a gradient with discs of light before: 0.77; now 0.09.
  const flat = await flatShare("golden-garden", 3);
  assert.ok(flat <= 0.25, `${(100 * flat).toFixed(1)} % of the garden is as flat as a gradient`);
});

Deno.test("Luxury Lounge is a room (panelled wall, back bar, lamps, banquette), not a gradient with discs", async () => {
  // The lounge is dark, so its rows are measured to 2 levels. Painted as Soft Bokeh's discs on a brown gradient
  // before: 0.61 (Soft Bokeh itself 0.67); now 0.31.
  const flat = await flatShare("luxury-lounge", 2);
  assert.ok(flat <= 0.45, `${(100 * flat).toFixed(1)} % of the lounge is as flat as a gradient`);
});

Deno.test("Soft Bokeh's lights hang in a dimly lit place, at several distances, not on a plain gradient", async () => {
  // Discs of one depth on the bare gradient before: 0.67 of the frame within 2 levels of its row's median; now
  // 0.45 (the place's broad patches of light, the large faint discs nearest the lens).
  const flat = await flatShare("soft-bokeh", 2);
  assert.ok(flat <= 0.55, `${(100 * flat).toFixed(1)} % of Soft Bokeh is as flat as a gradient`);
});

Deno.test("Beach Sunset's sea rolls in waves beside the sun's path", async () => {
  const d = await renderBackdrop({ id: "beach-sunset" }, W, H, [W / 2, H * 0.3]);
  // Down columns of the sea left of the sun's path (the sea spans 0.6-0.84 of the height, the sun is at 0.62
  // of the width): each pixel's luminance against the mean of the 41 rows around it.
  let sq = 0, n = 0;
  for (let x = 10; x < 0.3 * W; x += 7) {
    for (let y = Math.round(0.62 * H); y < 0.82 * H; y++) {
      let mean = 0;
      for (let k = -20; k <= 20; k++) mean += lum(d, x, y + k) / 41;
      sq += (lum(d, x, y) - mean) ** 2;
      n++;
    }
  }
  // A smooth gradient before: 0.54 (the noise against banding); now 1.4.
  const sd = Math.sqrt(sq / n);
  assert.ok(
    sd >= 1,
    `the sea's rows vary by ${sd.toFixed(2)} levels down a column (a wave's crest and trough)`,
  );
});
