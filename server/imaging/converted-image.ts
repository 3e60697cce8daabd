/**
 * A stored image re-encoded in another format, for a download whose file name asks for it (the dashboard's
 * history saves `styletwin-{studio}-{id}.png`; results are stored as JPEG). Lossless PNG keeps every pixel of
 * the JPEG; WebP and JPEG at the quality results are stored with.
 */
import sharp from "sharp";

export type DownloadFormat = "png" | "jpeg" | "webp";

/** Stored images are at most 1080x1920 results or normalised photos; this bounds a hostile blob. */
const MAX_PIXELS = 40_000_000;

export async function convertedImage(
  bytes: Uint8Array,
  format: DownloadFormat,
): Promise<Uint8Array<ArrayBuffer>> {
  const image = sharp(bytes, { limitInputPixels: MAX_PIXELS });
  const out = format === "png"
    ? image.png({ compressionLevel: 6 })
    : format === "webp"
    ? image.webp({ quality: 92 })
    : image.jpeg({ quality: 92 });
  return new Uint8Array(await out.toBuffer());
}
