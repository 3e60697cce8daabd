/**
 * Black-and-white photos. The looks paint colours (a hair dye, a lipstick, a backdrop) onto the photo's own
 * pixels; on a black-and-white portrait they came out as colour on grey, auburn hair and pink lips on a grey
 * face, an edit no camera makes. Such a photo is styled as any other and its result kept black and white.
 */
import type { Canvas } from "./blend.ts";

/** Every this-many-th pixel is read to judge a photo's colour. */
const SAMPLE_STEP = 7;
/**
 * A photo is black and white when at most this share of its pixels hold more colour than MAX_CHROMA: a face
 * in colour covers far more of a portrait (its skin's channels differ by 30-60 levels).
 */
const COLOUR_SHARE = 0.005;
/** The largest difference between a pixel's channels (0-255) that is still grey (JPEG's noise, a faint tone). */
const MAX_CHROMA = 12;

/** Whether `img` is a black-and-white photo (see COLOUR_SHARE, MAX_CHROMA). */
export function isMonochrome(img: Canvas): boolean {
  const d = img.data, n = img.width * img.height;
  let coloured = 0, count = 0;
  for (let k = 0; k < n; k += SAMPLE_STEP, count++) {
    const o = k * 3, r = d[o], g = d[o + 1], b = d[o + 2];
    if (Math.max(r, g, b) - Math.min(r, g, b) > MAX_CHROMA) coloured++;
  }
  return count > 0 && coloured <= COLOUR_SHARE * count;
}

/** `img` turned to grey in place: each pixel's luma (Rec. 601 weights, as the Black & White light grades). */
export function toGrey(img: Canvas): void {
  const d = img.data;
  for (let o = 0; o < d.length; o += 3) {
    const y = Math.round(0.299 * d[o] + 0.587 * d[o + 1] + 0.114 * d[o + 2]);
    d[o] = d[o + 1] = d[o + 2] = y;
  }
}
