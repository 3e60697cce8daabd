/**
 * Blob storage behind a small interface: local disk (STORAGE=local, the
 * default) or an S3-compatible object store (STORAGE=s3, shared by several
 * processes). Keys are generated here, never taken from user input, so a key
 * can be trusted to name one file.
 */
import { encodeHex } from "../hex-digest.ts";

/** One stored blob as list() reports it. */
export interface StoredBlob {
  key: string;
  /** When the blob was written (blobs are never rewritten: a new image gets a new key). */
  modifiedAt: Date;
}

export interface BlobStorage {
  /** Writes atomically: a reader sees the whole blob under `key` or nothing. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Null when the key does not exist. */
  get(key: string): Promise<Uint8Array | null>;
  /** The blob's size in bytes, or null when the key does not exist. */
  size(key: string): Promise<number | null>;
  /**
   * Streams bytes `start`..`end` (inclusive, within the size) without reading
   * the whole blob into memory; null when the key does not exist.
   */
  stream(key: string, start: number, end: number): Promise<ReadableStream<Uint8Array> | null>;
  /** Throws when the store cannot be reached or written (GET /api/health reports it). */
  ping(): Promise<void>;
  /** Removing a key that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Every stored blob, in no particular order. Only the orphan sweep calls it
   * (rarely): it walks the whole store. Deleting keys already yielded while
   * iterating is allowed. Maps to a directory walk on disk, ListObjectsV2 on S3.
   */
  list(): AsyncIterable<StoredBlob>;
}

/**
 * The store could not be reached or refused the request (a server down, a missing bucket, refused
 * credentials, a timeout): the request failed for now, nothing about the image itself. Its message is for the
 * log; users get 503 storage_unavailable.
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "StorageUnavailableError";
  }
}

/**
 * A key as logs may show it: its first 8 hex digits, enough to find the file, not enough to fetch it (a key
 * is the capability in an image's URL).
 */
export function keyForLog(key: string): string {
  return `${key.slice(0, 8)}…`;
}

/** 128-bit random keys: `<32 hex>.<ext>`. */
const KEY_PATTERN = /^[0-9a-f]{32}\.(png|jpg|webp)$/;

export function newKey(ext: "png" | "jpg" | "webp"): string {
  return `${encodeHex(crypto.getRandomValues(new Uint8Array(16)))}.${ext}`;
}

/** True for keys this module could have made; everything else is refused before touching disk. */
export function isValidKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function mimeForKey(key: string): string {
  if (key.endsWith(".png")) return "image/png";
  if (key.endsWith(".webp")) return "image/webp";
  return "image/jpeg";
}
