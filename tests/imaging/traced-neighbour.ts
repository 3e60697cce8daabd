/**
 * Test and bench helper: a neighbour's boundary traced by eye on a demo photo (read from
 * node_modules at test time). sample4@1216: a dark-haired neighbour in a red, white and black
 * patterned top at the frame's left touches the blonde chosen person from the temple down the
 * shoulder; her face is cut by the default crop's frame and not detected. The line follows the
 * blonde hair's outer edge, then the sleeve's, in the photo's pixels; 6 px either side are left
 * unjudged, the neighbour's side is taken within 60 px of it and the chosen person's (her hair)
 * within 40 px.
 */
import type { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { refineMatte } from "../../server/imaging/local/matte-refine.ts";
import { cropFace, cropRect, FRONTAL_FACES } from "./fixtures.ts";
import { framedCrop } from "./framed-crop.ts";

export const SAMPLE4_FACE = FRONTAL_FACES.find((x) => x[0] === 4 && x[1] === 1216)!;

/** The boundary in sample4.jpg's pixels, top to bottom. */
export const SAMPLE4_BOUNDARY: [number, number][] = [
  [1289, 205],
  [1282, 255],
  [1277, 305],
  [1267, 355],
  [1257, 405],
  [1257, 445],
  [1265, 475],
  [1270, 525],
  [1269, 585],
  [1264, 635],
  [1262, 676],
];

/**
 * Shares of the neighbour's side kept (refined alpha > 0.5) and of the chosen person's side lost
 * (alpha < 0.5), on sample4@1216 cropped with `aspect` / `span` (cropFace) and framed at 1080x1920
 * as a render frames it (framedCrop); every half photo pixel along the traced rows.
 */
export async function tracedNeighbour(
  engine: FaceEngine,
  aspect = 0.75,
  span = 2.2,
): Promise<{ kept: number; lost: number; theirs: number; hers: number }> {
  const line = SAMPLE4_BOUNDARY;
  const lineX = (y: number) => {
    for (let i = 1; i < line.length; i++) {
      const [x0, y0] = line[i - 1], [x1, y1] = line[i];
      if (y <= y1) return x0 + (x1 - x0) * (y - y0) / (y1 - y0);
    }
    return line[line.length - 1][0];
  };
  const rect = await cropRect(SAMPLE4_FACE, aspect, span);
  const c = (await framedCrop(engine, await cropFace(SAMPLE4_FACE, aspect, span)))!;
  const matte = refineMatte(c.framed, c.person, c.g.center);
  const { scale, offsetX, offsetY } = c.framing;
  let theirs = 0, kept = 0, hers = 0, lost = 0;
  for (let py = line[0][1]; py < line[line.length - 1][1]; py += 0.5) {
    const lx = lineX(py);
    for (let px = lx - 60; px < lx + 40; px += 0.5) {
      const d = px - lx, x = px - rect.left, y = py - rect.top;
      if (Math.abs(d) < 6 || x < 0 || y < 0 || x >= rect.width || y >= rect.height) continue;
      const cx = Math.round(x * scale + offsetX), cy = Math.round(y * scale + offsetY);
      if (cx < 0 || cy < 0 || cx >= 1080 || cy >= 1920) continue;
      const a = matte.alpha[Math.floor(cy / matte.scale) * matte.width + Math.floor(cx / matte.scale)];
      if (d < 0) {
        theirs++;
        if (a > 0.5) kept++;
      } else {
        hers++;
        if (a < 0.5) lost++;
      }
    }
  }
  return { kept: kept / theirs, lost: lost / hers, theirs, hers };
}
