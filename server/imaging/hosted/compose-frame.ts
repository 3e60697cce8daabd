/**
 * Fits a hosted model's output into the product's 9:16 frame (1080x1920)
 * without distortion. Outputs within 3% of 9:16 (Gemini's 768x1344) are
 * scaled to cover and lose a few pixels at the edges; others (OpenAI's
 * 1024x1536, 2:3) are scaled to fit whole, over a blurred, darkened copy of
 * themselves that fills the bands, as the local model frames its photos.
 */
import sharp from "sharp";

export const MAX_CROP_RATIO = 0.03;

export async function composeToFrame(
  image: Uint8Array,
  width: number,
  height: number,
): Promise<{ image: Uint8Array; mime: string }> {
  const meta = await sharp(image).metadata();
  const w = meta.width ?? 0, h = meta.height ?? 0;
  const ratio = (w / h) / (width / height);
  let out: Buffer;
  if (Math.abs(ratio - 1) <= MAX_CROP_RATIO) {
    out = await sharp(image).rotate().removeAlpha().resize(width, height, {
      fit: "cover",
      kernel: "lanczos3",
    })
      .jpeg({ quality: 92, chromaSubsampling: "4:4:4" }).toBuffer();
  } else {
    const fg = await sharp(image).rotate().removeAlpha().resize(width, height, {
      fit: "inside",
      kernel: "lanczos3",
    })
      .toBuffer({ resolveWithObject: true });
    const bg = await sharp(image).rotate().removeAlpha().resize(width, height, { fit: "cover" }).blur(40)
      .modulate({ brightness: 0.55 }).toBuffer();
    out = await sharp(bg).composite([{
      input: fg.data,
      left: Math.round((width - fg.info.width) / 2),
      top: Math.round((height - fg.info.height) / 2),
    }]).jpeg({ quality: 92, chromaSubsampling: "4:4:4" }).toBuffer();
  }
  return { image: new Uint8Array(out.buffer, out.byteOffset, out.length), mime: "image/jpeg" };
}
