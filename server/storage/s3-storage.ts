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
import {
  type BlobStorage,
  isValidKey,
  mimeForKey,
  StorageUnavailableError,
  type StoredBlob,
} from "./storage.ts";

export interface S3StorageOptions {
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (http://host/bucket/key), which MinIO and s3rver need. */
  forcePathStyle?: boolean;
  /** Tests shorten these (defaults CONNECT_TIMEOUT_MS, ANSWER_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  answerTimeoutMs?: number;
}

/**
 * A missing object: NoSuchKey (GET) or NotFound (HEAD, which has no body to say more), or another 404 a
 * compatible server sends for a key. Not NoSuchBucket: a missing bucket is the store failing, not every image
 * gone (it made images read as deleted and failed queued jobs for good).
 */
function isNotFound(e: unknown): boolean {
  const err = e as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  if (err?.name === "NoSuchBucket" || err?.Code === "NoSuchBucket") return false;
  return err?.name === "NotFound" || err?.name === "NoSuchKey" || err?.$metadata?.httpStatusCode === 404;
}

/** What the store answered, as StorageUnavailableError (see there); an error of ours passes through. */
function unavailable(e: unknown, what: string): unknown {
  if (e instanceof StorageUnavailableError || !(e instanceof Error)) return e;
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = err.$metadata?.httpStatusCode;
  return new StorageUnavailableError(
    `S3 ${what}: ${err.name ?? "Error"}${status ? ` (HTTP ${status})` : ""}: ${e.message}`,
    e,
  );
}

/**
 * Bounds on every call (the SDK sets none): a server that accepts the connection and never answers hung
 * requests, jobs and the health probe for good, and the probes it left running filled the client's pool of 50
 * sockets, so the process stayed stuck after the store came back. The answer timeout runs until the answer's
 * headers arrive (a 10 MB upload included), so a streamed download that keeps receiving is not cut.
 */
const CONNECT_TIMEOUT_MS = 5_000, ANSWER_TIMEOUT_MS = 20_000, PING_TIMEOUT_MS = 3_000;
/** Tries per call (the SDK's default is 3): with ANSWER_TIMEOUT_MS each, a dead store is given up in ~40 s. */
const MAX_ATTEMPTS = 2;

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
      maxAttempts: MAX_ATTEMPTS,
      requestHandler: {
        connectionTimeout: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        requestTimeout: opts.answerTimeoutMs ?? ANSWER_TIMEOUT_MS,
        // Without it the handler only logs a warning when the request timeout passes.
        throwOnRequestTimeout: true,
      },
      // Checksums on every request are newer than many S3-compatible servers; send them only when required.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    if (!isValidKey(key)) throw new Error("invalid storage key");
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: mimeForKey(key) }),
      );
    } catch (e) {
      throw unavailable(e, "PutObject");
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    if (!isValidKey(key)) return null;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
    } catch (e) {
      if (isNotFound(e)) return null;
      throw unavailable(e, "GetObject");
    }
  }

  async size(key: string): Promise<number | null> {
    if (!isValidKey(key)) return null;
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.ContentLength ?? 0;
    } catch (e) {
      if (!isNotFound(e)) throw unavailable(e, "HeadObject");
    }
    // A HEAD's 404 has no body to say whether the key or the bucket is missing: ask the bucket (only for a
    // missing image, which is rare), so a missing bucket is the store failing, not every image deleted.
    await this.ping();
    return null;
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
      throw unavailable(e, "GetObject");
    }
  }

  async delete(key: string): Promise<void> {
    if (!isValidKey(key)) return;
    // S3 answers 204 for a key that does not exist: not an error, as the interface wants.
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (e) {
      throw unavailable(e, "DeleteObject");
    }
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
    try {
      // Its own bound: a probe the health check gave up on must not stay open (see CONNECT_TIMEOUT_MS).
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), {
        abortSignal: AbortSignal.timeout(PING_TIMEOUT_MS),
      });
    } catch (e) {
      throw unavailable(e, "HeadBucket");
    }
  }
}
