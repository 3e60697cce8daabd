/**
 * S3 storage with the real AWS SDK against a local S3-compatible server
 * (s3rver): the BlobStorage contract, and images served through the API from
 * the bucket (streamed, with range requests, privately cached).
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../server/config.ts";
import { createApp } from "../../server/app.ts";
import { S3Storage } from "../../server/storage/s3-storage.ts";
import { createStorage } from "../../server/storage/create-storage.ts";
import { newKey, StorageUnavailableError } from "../../server/storage/storage.ts";
import { openDatabase } from "../../db/client.ts";
import { startS3rver } from "../helpers/s3rver.ts";
import { succeedingModel } from "../helpers/test-models.ts";

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  assert.ok(stream);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test({
  name: "s3 storage: put, get, size, ranged stream, list, delete and ping against s3rver",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const s3 = await startS3rver();
  try {
    const storage = await createStorage(loadConfig({ DATA_DIR: "/tmp/unused", ...s3.env }));
    assert.ok(storage instanceof S3Storage);
    await storage.ping();
    const key = newKey("png");
    const data = bytes(200_000);
    assert.equal(await storage.get(key), null);
    assert.equal(await storage.size(key), null);
    await storage.put(key, data);
    assert.deepEqual(await storage.get(key), data);
    assert.equal(await storage.size(key), data.length);
    assert.deepEqual(await readAll(await storage.stream(key, 0, data.length - 1)), data);
    assert.deepEqual(await readAll(await storage.stream(key, 1000, 1999)), data.slice(1000, 2000));
    const listed = [];
    for await (const blob of storage.list()) listed.push(blob);
    assert.deepEqual(listed.map((b) => b.key), [key]);
    assert.ok(Math.abs(listed[0].modifiedAt.getTime() - Date.now()) < 60_000);
    await storage.delete(key);
    await storage.delete(key); // a missing key is not an error
    assert.equal(await storage.get(key), null);
    assert.equal(await storage.stream(key, 0, 10), null);
    // Keys this server could not have made never reach the bucket.
    assert.equal(await storage.get("../etc/passwd"), null);
    await assert.rejects(storage.put("not-a-key", data), /invalid storage key/);
    // A bucket that does not exist fails the health probe.
    await assert.rejects(
      new S3Storage({ ...loadConfig({ ...s3.env }).s3!, bucket: "missing-bucket" }).ping(),
    );
  } finally {
    await s3.close();
  }
});

Deno.test({
  name: "s3 storage: an upload is served through the API from the bucket, with ranges and private caching",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const s3 = await startS3rver();
  const database = await openDatabase({});
  try {
    const config = loadConfig({
      DATA_DIR: "/tmp/unused",
      LOG_LEVEL: "error",
      TRUST_PROXY: "true",
      ...s3.env,
    });
    const storage = await createStorage(config);
    const app = createApp({
      db: database.db,
      config,
      jwtSecret: "test-secret-0123456789abcdef0123456789",
      storage,
      model: succeedingModel(),
    });
    const portrait = await Deno.readFile(
      new URL("../../node_modules/@vladmandic/face-api/demo/sample1.jpg", import.meta.url),
    );
    const form = new FormData();
    form.append("file", new File([portrait], "me.jpg", { type: "image/jpeg" }));
    const up = await app.request("/api/upload-photo", {
      method: "POST",
      body: form,
      headers: { "X-Forwarded-For": "10.9.9.9" },
    });
    assert.equal(up.status, 201);
    const { url } = await up.json();
    const key = url.slice(url.lastIndexOf("/") + 1);
    const stored = (await storage.get(key))!;
    assert.ok(stored.length > 1000, "the upload is in the bucket");

    const whole = await app.request(url);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get("Cache-Control"), "private, no-cache");
    assert.equal(whole.headers.get("Accept-Ranges"), "bytes");
    assert.equal(whole.headers.get("Content-Length"), String(stored.length));
    assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), stored);

    const part = await app.request(url, { headers: { Range: "bytes=100-199" } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get("Content-Range"), `bytes 100-199/${stored.length}`);
    assert.deepEqual(new Uint8Array(await part.arrayBuffer()), stored.slice(100, 200));
    const tail = await app.request(url, { headers: { Range: "bytes=-10" } });
    assert.deepEqual(new Uint8Array(await tail.arrayBuffer()), stored.slice(-10));
    const beyond = await app.request(url, { headers: { Range: `bytes=${stored.length}-` } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get("Content-Range"), `bytes */${stored.length}`);
    await beyond.body?.cancel();

    const health = await app.request("/api/health");
    const report = await health.json();
    assert.deepEqual(report.components.storage, { status: "ok", kind: "s3" });

    // A HEAD, or a GET answered 304, opens no stream: one left unread held its S3 socket, and fifty HEADs used
    // up the client's pool. Sixty in a row, then a GET still answers at once.
    const t0 = Date.now();
    for (let i = 0; i < 60; i++) {
      const head = await app.request(url, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("Content-Length"), String(stored.length));
      const same = await app.request(url, { headers: { "If-None-Match": `"${key}"` } });
      assert.equal(same.status, 304);
    }
    const after = await app.request(url);
    assert.deepEqual(new Uint8Array(await after.arrayBuffer()), stored);
    // With the streams left open it took 50 s (sockets freed only by the client's timeouts), here well under 1.
    assert.ok(Date.now() - t0 < 10_000, `60 HEADs and 304s took ${Date.now() - t0} ms`);

    // The store down: 503 storage_unavailable (not a 500, not "Image not found"), for reads and uploads alike.
    await s3.close();
    const down = await app.request(url);
    assert.equal(down.status, 503);
    assert.deepEqual(await down.json(), {
      detail: "Image storage is unavailable right now. Please try again in a minute.",
      code: "storage_unavailable",
    });
    const again = new FormData();
    again.append("file", new File([portrait], "me.jpg", { type: "image/jpeg" }));
    const refused = await app.request("/api/upload-photo", {
      method: "POST",
      body: again,
      headers: { "X-Forwarded-For": "10.9.9.10" },
    });
    assert.equal(refused.status, 503);
    assert.equal((await refused.json()).code, "storage_unavailable");
  } finally {
    await database.close();
    await s3.close();
  }
});

Deno.test({
  name:
    "s3 storage: a missing bucket is the store failing, not every image gone; a silent server is given up on",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const s3 = await startS3rver();
  // A server that accepts connections and never answers.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  (async () => {
    for await (const conn of silent) held.push(conn);
  })().catch(() => {});
  try {
    const missing = new S3Storage({ ...loadConfig({ ...s3.env }).s3!, bucket: "missing-bucket" });
    const key = newKey("png");
    // GET names the bucket (NoSuchBucket): the store is failing. A HEAD cannot tell (no body): the bucket is
    // asked, so it fails the same way instead of reading as a deleted image.
    await assert.rejects(missing.size(key), StorageUnavailableError);
    await assert.rejects(
      missing.get(key),
      (e: Error) => e instanceof StorageUnavailableError && /NoSuchBucket/.test(e.message),
    );
    await assert.rejects(missing.stream(key, 0, 10), StorageUnavailableError);
    await assert.rejects(missing.put(key, bytes(10)), StorageUnavailableError);

    const port = (silent.addr as Deno.NetAddr).port;
    const hung = new S3Storage({
      ...loadConfig({ ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${port}` }).s3!,
    });
    const t0 = Date.now();
    await assert.rejects(hung.ping(), StorageUnavailableError);
    const took = Date.now() - t0;
    assert.ok(took >= 2_500 && took < 10_000, `the probe gave up after ${took} ms`);
    // Every other call: bounded per try, two tries (the defaults are 20 s; shortened here).
    const quick = new S3Storage({
      ...loadConfig({ ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${port}` }).s3!,
      answerTimeoutMs: 500,
    });
    const t1 = Date.now();
    await assert.rejects(quick.get(key), StorageUnavailableError);
    const read = Date.now() - t1;
    assert.ok(read >= 1_000 && read < 5_000, `the read gave up after ${read} ms (two tries of 500 ms)`);
  } finally {
    silent.close();
    for (const conn of held) conn.close();
    await s3.close();
  }
});
