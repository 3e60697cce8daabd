/** The mean skin colour of a face, sampled at mesh points on plain skin. */
import type { Canvas } from "./blend.ts";
import { SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { SKIN_SAMPLES } from "./landmarks.ts";

/** Mean skin colour (linear) sampled at mesh points on plain skin. */
export function skinMeanLinear(img: Canvas, g: FaceGeometry): [number, number, number] {
  const s = [0, 0, 0];
  let n = 0;
  const d = img.data;
  for (const idx of SKIN_SAMPLES) {
    const [px, py] = g.pts[idx];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const x = Math.round(px) + dx, y = Math.round(py) + dy;
        if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
        const i = (y * img.width + x) * 3;
        s[0] += SRGB_TO_LINEAR[d[i]];
        s[1] += SRGB_TO_LINEAR[d[i + 1]];
        s[2] += SRGB_TO_LINEAR[d[i + 2]];
        n++;
      }
    }
  }
  return n ? [s[0] / n, s[1] / n, s[2] / n] : [0.4, 0.3, 0.25];
}
