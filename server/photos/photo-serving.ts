/**
 * Serving stored images: uploads and generated results share one storage and
 * are served by key under /api/uploads/<key>; the job runner reads a photo's
 * bytes through here too.
 */
import type { DbOrTx } from "../../db/client.ts";
import { AppError } from "../http/errors.ts";
import { type BlobStorage, isValidKey, mimeForKey } from "../storage/storage.ts";
import { convertedImage, type DownloadFormat } from "../imaging/converted-image.ts";
import { findPhotoById } from "./photos.repository.ts";

export const uploadUrl = (key: string) => `/api/uploads/${key}`;

/** The stored bytes of a photo, or null when the photo or its blob is gone. */
export async function readPhotoBytes(
  db: DbOrTx,
  storage: BlobStorage,
  photoId: string,
): Promise<Uint8Array | null> {
  const photo = await findPhotoById(db, photoId);
  return photo ? await storage.get(photo.storageKey) : null;
}

export interface StoredImage {
  key: string;
  mime: string;
  ext: string;
  /** The whole blob's size in bytes. */
  size: number;
  /** The bytes to send: the whole blob, or the requested range; null when no body was asked for. */
  body: ReadableStream<Uint8Array> | null;
  /** Set when a single satisfiable byte range was asked for (answered 206). */
  range?: { start: number; end: number };
}

/** `Range: bytes=a-b`, `bytes=a-` or `bytes=-n`; several ranges or other units are ignored (200, whole). */
const RANGE = /^bytes=(\d{0,15})-(\d{0,15})$/;

/** The inclusive range to send, null for the whole blob, or "unsatisfiable" (416). */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | "unsatisfiable" {
  if (!header || header.length > 40) return null;
  const m = RANGE.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}

/**
 * Any image this server stored (uploads and generated results share the
 * storage), by key, streamed (whole or one byte range). Keys that newKey()
 * could not have made are refused before storage is touched, so no request
 * text ever becomes a path.
 */
export async function openStoredImage(
  storage: BlobStorage,
  key: string,
  rangeHeader?: string,
  /**
   * false (a HEAD, a 304): the size only, nothing opened. A stream opened and never read holds its S3
   * connection (or file handle) for good: fifty HEADs of one image used up the S3 client's pool.
   */
  withBody = true,
): Promise<StoredImage | { key: string; size: number; unsatisfiable: true }> {
  const notFound = new AppError(404, "Image not found");
  if (!isValidKey(key)) throw notFound;
  const size = await storage.size(key);
  if (size === null) throw notFound;
  const range = parseRange(rangeHeader, size);
  if (range === "unsatisfiable") return { key, size, unsatisfiable: true };
  const body = withBody
    ? await storage.stream(key, range?.start ?? 0, range?.end ?? Math.max(0, size - 1))
    : null;
  if (withBody && !body) throw notFound; // deleted between the two calls
  return {
    key,
    mime: mimeForKey(key),
    ext: key.slice(key.lastIndexOf(".") + 1),
    size,
    body,
    range: range ?? undefined,
  };
}

const KNOWN_EXT = /\.(png|jpe?g|webp|avif|heic|heif|gif)$/;

const FORMAT_OF_EXT: Record<string, DownloadFormat> = { png: "png", jpg: "jpeg", jpeg: "jpeg", webp: "webp" };
const EXT_OF_FORMAT: Record<DownloadFormat, string> = { png: "png", jpeg: "jpg", webp: "webp" };

/**
 * The format a download's requested name asks for (`.png`, `.jpg`, `.webp`) when the stored image is in
 * another, or null: the file is then re-encoded (see convertedImage), so its name never lies about it.
 */
export function requestedFormat(key: string, requested?: string): DownloadFormat | null {
  const asked = /\.(png|jpe?g|webp)$/.exec((requested ?? "").trim().toLowerCase())?.[1];
  const stored = FORMAT_OF_EXT[key.slice(key.lastIndexOf(".") + 1)];
  if (!asked || !stored) return null;
  return FORMAT_OF_EXT[asked] === stored ? null : FORMAT_OF_EXT[asked];
}

/** A stored image re-encoded as `format` (see requestedFormat). */
export async function openConvertedImage(
  storage: BlobStorage,
  key: string,
  format: DownloadFormat,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; mime: string; ext: string }> {
  const notFound = new AppError(404, "Image not found");
  if (!isValidKey(key)) throw notFound;
  const stored = await storage.get(key);
  if (!stored) throw notFound;
  const ext = EXT_OF_FORMAT[format];
  return { bytes: await convertedImage(stored, format), mime: mimeForKey(`.${ext}`), ext };
}

/**
 * `styletwin-<name>.<ext>` (the stored image's extension, or a re-encoded download's: see requestedFormat):
 * the requested name lower-cased and reduced
 * to [a-z0-9-] (its own extension and styletwin- prefix dropped), or the
 * key's first 8 characters when nothing usable is left.
 */
export function downloadFilename(
  key: string,
  requested?: string,
  ext = key.slice(key.lastIndexOf(".") + 1),
): string {
  const base = (requested ?? "")
    .toLowerCase()
    .trim()
    .replace(KNOWN_EXT, "")
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^styletwin(-|$)/, "")
    .slice(0, 80)
    .replace(/-+$/, "");
  return `styletwin-${base || key.slice(0, 8)}.${ext}`;
}
