/**
 * S3-compatible object storage (AWS S3, MinIO, R2, ...) through the AWS SDK,
 * for several StyleTwin processes sharing one store. Objects live under the
 * key itself (`<32 hex>.<ext>`) in one bucket; a PUT is atomic on S3, so a
 * reader sees the whole object or nothing. Images are streamed through the
 * API (with range requests), never served from the bucket directly, so the
 * bucket stays private.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { type BlobStorage, isValidKey, mimeForKey, type StoredBlob } from "./storage.ts";

export interface S3StorageOptions {
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (http://host/bucket/key), which MinIO and s3rver need. */
  forcePathStyle?: boolean;
}

/** The SDK reports a missing object as NotFound (HEAD) or NoSuchKey (GET), with status 404. */
function isNotFound(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err?.name === "NotFound" || err?.name === "NoSuchKey" || err?.$metadata?.httpStatusCode === 404;
}

export class S3Storage implements BlobStorage {
  readonly bucket: string;
  readonly client: S3Client;

  constructor(opts: S3StorageOptions) {
    this.bucket = opts.bucket;
    this.client = new S3Client({
      endpoint: opts.endpoint,
      region: opts.region,
      forcePathStyle: opts.forcePathStyle ?? false,
      credentials: opts.accessKeyId && opts.secretAccessKey
        ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
        : undefined,
      // Checksums on every request are newer than many S3-compatible servers; send them only when required.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    if (!isValidKey(key)) throw new Error("invalid storage key");
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: mimeForKey(key) }),
    );
  }

  async get(key: string): Promise<Uint8Array | null> {
    if (!isValidKey(key)) return null;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async size(key: string): Promise<number | null> {
    if (!isValidKey(key)) return null;
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.ContentLength ?? 0;
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async stream(key: string, start: number, end: number): Promise<ReadableStream<Uint8Array> | null> {
    if (!isValidKey(key)) return null;
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end}` }),
      );
      if (!out.Body) return new ReadableStream({ start: (c) => c.close() });
      return out.Body.transformToWebStream() as ReadableStream<Uint8Array>;
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    if (!isValidKey(key)) return;
    // S3 answers 204 for a key that does not exist: not an error, as the interface wants.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(): AsyncIterable<StoredBlob> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token, MaxKeys: 1000 }),
      );
      for (const obj of page.Contents ?? []) {
        // Other objects in a shared bucket are never ours to sweep.
        if (!obj.Key || !isValidKey(obj.Key)) continue;
        yield { key: obj.Key, modifiedAt: obj.LastModified ?? new Date() };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }
}
