/**
 * One rule for measures made in pixels that must mean the same stretch of the face at the result's size and at
 * the studio's preview's (540x960, half the result's 1080x1920, framed alike): a canvas under three quarters of
 * the output width is measured at half the pixels. The person mask's grid (person-mask.ts) and strand texture
 * (hair-lengths.ts) use it; decisions 018 and 019 hold what each read before. Since 2026-11-29 the preview
 * paints the hair and beard colours at the result's size (RenderJob.coloursAt in render.ts): the hair's uses
 * serve renders made at a smaller size (the tests' and the hair bench's 540x960 rows); the person mask's still
 * serve every preview.
 */
import { OUTPUT_WIDTH } from "../../styling/option-keys.ts";

/** `px`, a length in pixels at the output's size, on a canvas `canvasWidth` wide (halved on a preview). */
export function atCanvasScale(px: number, canvasWidth: number): number {
  return canvasWidth < OUTPUT_WIDTH * 0.75 ? px / 2 : px;
}
