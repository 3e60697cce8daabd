/**
 * Test helper: how far a look rendered at 540x960 is from the same look at 1080x1920. Both are rendered plain
 * and with `changes`; the larger is brought down to 540x960. The figure is the mean, over the pixels either
 * render changed by more than ΔE 3, of the difference between the two changes (Lab, styled less plain): 0 when
 * the small render shows exactly what the large one does. (The studio's live preview paints the hair and beard
 * colours at the result's size, see RenderJob.coloursAt; the renderer still paints them at any size, and this
 * measures it at half.)
 */
import sharp from "sharp";
import { deltaE } from "../../server/imaging/local/color.ts";
import type { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { render } from "../../server/imaging/local/render.ts";
import type { SelectedOptions, StudioType } from "../../server/styling/option-keys.ts";
import { cropFace, decode, job, labOf } from "./fixtures.ts";

export async function previewGap(
  engine: FaceEngine,
  face: [number, number, number, number],
  studio: StudioType,
  changes: Partial<SelectedOptions>,
): Promise<number> {
  const photo = await cropFace(face);
  const at = async (width: number, height: number, ch: Partial<SelectedOptions>) => {
    const png = (await render(engine, { ...job(photo, ch, undefined, studio), width, height })).image;
    return decode(new Uint8Array(await sharp(png).resize(540, 960).png().toBuffer()));
  };
  const plain = await at(540, 960, {}), out = await at(540, 960, changes);
  const bigPlain = await at(1080, 1920, {}), bigOut = await at(1080, 1920, changes);
  let sum = 0, n = 0;
  for (let p = 0; p < 540 * 960; p++) {
    const a = labOf(plain, p), b = labOf(out, p), c = labOf(bigPlain, p), d = labOf(bigOut, p);
    if (!(deltaE(a, b) > 3 || deltaE(c, d) > 3)) continue;
    sum += Math.hypot(b[0] - a[0] - (d[0] - c[0]), b[1] - a[1] - (d[1] - c[1]), b[2] - a[2] - (d[2] - c[2]));
    n++;
  }
  return sum / Math.max(1, n);
}
