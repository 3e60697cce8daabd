/**
 * An S3-compatible server (the `s3rver` npm package) on 127.0.0.1, a free
 * port and a temporary folder, with one bucket: S3 storage is tested with the
 * real AWS SDK against it. Its default credentials are S3RVER / S3RVER.
 */
import S3rver from "s3rver";

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** STORAGE=s3 environment for a StyleTwin process using this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3rver(bucket = "styletwin-test"): Promise<LocalS3> {
  const directory = await Deno.makeTempDir({ prefix: "styletwin-s3-" });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run() as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  let closed = false;
  return {
    endpoint,
    bucket,
    env: {
      STORAGE: "s3",
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
    },
    // Idempotent: a test may stop the server early (to see the store down) and again in its cleanup.
    close: async () => {
      if (closed) return;
      closed = true;
      await server.close();
      await Deno.remove(directory, { recursive: true }).catch(() => {});
    },
  };
}
