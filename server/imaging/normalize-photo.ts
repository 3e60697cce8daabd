/**
 * Turns an uploaded file into the one stored form every image model reads:
 * recognised by its content (never by the declared type), EXIF orientation
 * applied, every piece of metadata (GPS, camera serials, ICC) stripped,
 * at most 2048 px on the long side, sRGB JPEG.
 *
 * Why JPEG (quality 90) and not WebP: the stored photo is the input of the
 * image models (the local renderer, Gemini and OpenAI all take JPEG), and
 * users download/share it to phones, where JPEG saves everywhere. At q90 it
 * is visually lossless for portraits; WebP would save ~25 % of disk but
 * encodes slower at this size and buys nothing for a 24-hour anonymous file.
 */
import sharp, { type Metadata } from "sharp";

/** Decompression-bomb guard: refuse anything over 50 megapixels before decoding it. */
export const MAX_INPUT_PIXELS = 50_000_000;
/** Stored photos are capped at this many pixels on the long side. */
export const MAX_STORED_SIDE = 2048;
export const JPEG_QUALITY = 90;

export type PhotoInputFormat = "jpeg" | "png" | "webp" | "gif" | "heif" | "avif";

export type ImageInputProblem =
  /** Not one of the accepted formats (text, PDF, SVG, TIFF, BMP, ...). */
  | "unsupported-format"
  /** A HEIC photo whose codec (HEVC) this server's image library cannot decode. */
  | "unsupported-codec"
  /** More pixels than MAX_INPUT_PIXELS (decompression bomb or huge scan). */
  | "too-many-pixels"
  /** An accepted format whose data is damaged or truncated. */
  | "unreadable";

export class ImageInputError extends Error {
  readonly problem: ImageInputProblem;
  constructor(problem: ImageInputProblem, message: string) {
    super(message);
    this.name = "ImageInputError";
    this.problem = problem;
  }
}

export interface NormalizedPhoto {
  bytes: Uint8Array;
  mime: "image/jpeg";
  ext: "jpg";
  width: number;
  height: number;
}

const ascii = (bytes: Uint8Array, start: number, end: number) =>
  String.fromCharCode(...bytes.subarray(start, Math.min(end, bytes.length)));

const HEIF_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "miaf"]);
const AVIF_BRANDS = new Set(["avif", "avis"]);

/**
 * The format by magic bytes, or null. Only these formats are ever handed to
 * the decoder, so SVG, PDF, TIFF and friends never reach a parser.
 */
export function sniffImageFormat(bytes: Uint8Array): PhotoInputFormat | null {
  if (bytes.length < 12) return null;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (ascii(bytes, 0, 8) === "\x89PNG\r\n\x1a\n") return "png";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "webp";
  // (An animated GIF is read as its first frame.)
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") return "gif";
  if (ascii(bytes, 4, 8) === "ftyp") {
    // ISO-BMFF: major brand at 8, minor version at 12, compatible brands from 16 to the box end.
    const boxSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
    const brands = [ascii(bytes, 8, 12)];
    for (let i = 16; i + 4 <= Math.min(boxSize, bytes.length, 256); i += 4) {
      brands.push(ascii(bytes, i, i + 4));
    }
    if (brands.some((b) => AVIF_BRANDS.has(b))) return "avif";
    if (brands.some((b) => HEIF_BRANDS.has(b))) return "heif";
  }
  return null;
}

const NOT_AN_IMAGE = "not a JPEG, PNG, WebP, GIF, HEIF or AVIF image";

/** Throws ImageInputError for anything that is not an acceptable photo. */
export async function normalizePhoto(input: Uint8Array): Promise<NormalizedPhoto> {
  const format = sniffImageFormat(input);
  if (!format) throw new ImageInputError("unsupported-format", NOT_AN_IMAGE);

  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw decodeError(format, e);
  }
  // The header must agree with the magic bytes (a PNG signature on a GIF body is refused).
  const expected = format === "avif" ? "heif" : format;
  if (meta.format !== expected || !meta.width || !meta.height) {
    throw new ImageInputError("unsupported-format", NOT_AN_IMAGE);
  }
  if (meta.width * meta.height > MAX_INPUT_PIXELS) {
    throw new ImageInputError(
      "too-many-pixels",
      `the image is ${meta.width}x${meta.height} pixels; at most ${
        MAX_INPUT_PIXELS / 1_000_000
      } megapixels are accepted`,
    );
  }
  try {
    const { data, info } = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" })
      .rotate() // applies the EXIF orientation; the output carries no EXIF at all
      .resize({ width: MAX_STORED_SIDE, height: MAX_STORED_SIDE, fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#ffffff" }) // transparent PNG/WebP: white, not black, behind the subject
      .toColourspace("srgb")
      .jpeg({ quality: JPEG_QUALITY })
      .toBuffer({ resolveWithObject: true });
    return {
      bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      mime: "image/jpeg",
      ext: "jpg",
      width: info.width,
      height: info.height,
    };
  } catch (e) {
    throw decodeError(format, e, meta.compression);
  }
}

function decodeError(format: PhotoInputFormat, e: unknown, compression?: string): ImageInputError {
  const message = e instanceof Error ? e.message : String(e);
  if (/pixel limit/i.test(message)) {
    return new ImageInputError(
      "too-many-pixels",
      `at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels are accepted`,
    );
  }
  // sharp's prebuilt libvips ships no HEVC decoder (patents): an iPhone HEIC ends here. The
  // header's "compression" field is not checked up front (a build with a decoder would read
  // the file), but once decoding failed it tells why; the message alone is not reliable
  // (libvips' error buffer is shared by its threads, and other uploads decode at once).
  if (
    format === "heif" &&
    (compression === "hevc" || /plugin|codec|compression|unsupported/i.test(message))
  ) {
    return new ImageInputError("unsupported-codec", "HEIC photos cannot be read here");
  }
  return new ImageInputError("unreadable", "the image data could not be read (damaged or truncated file)");
}
