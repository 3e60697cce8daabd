/**
 * Photo upload, normalisation, claiming, expiry and serving through the
 * real app, on PGlite and Postgres. Real portraits come from face-api's demo
 * folder at test time; every other fixture is generated here.
 */
import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import type { Db } from "../../db/client.ts";
import { generations, photos, users } from "../../db/schema.ts";
import { MULTIPART_OVERHEAD_BYTES } from "../../server/photos/upload-body.ts";
import {
  FILE_TOO_LARGE,
  INVALID_FILE_TYPE,
  MAX_UPLOAD_BYTES,
  PHOTO_NOT_FOUND,
  UPLOADS_PER_MINUTE,
} from "../../server/photos/photos.schemas.ts";
import {
  ORPHAN_MIN_AGE_MS,
  startOrphanBlobSweeper,
  sweepOrphanBlobs,
} from "../../server/generation/orphan-blob-sweep.ts";
import { startPhotoSweeper, sweepExpiredPhotos } from "../../server/photos/photo-sweeps.ts";
import { uploadPhoto, usablePhotoFor } from "../../server/photos/photo-upload.ts";
import { LocalDiskStorage } from "../../server/storage/local-disk-storage.ts";
import { newKey } from "../../server/storage/storage.ts";
import { apiTest, waitFor } from "../helpers/api-test.ts";
import { readResponse, type TestContext } from "../helpers/test-app.ts";
import { succeedingModel } from "../helpers/test-models.ts";
import { assertSameBytes } from "../helpers/same-bytes.ts";

// ---------- fixtures (built once, shared by both backends) ----------

const portrait = await Deno.readFile(
  new URL("../../node_modules/@vladmandic/face-api/demo/sample1.jpg", import.meta.url),
);
const small = sharp(portrait).resize(480); // 480x320
const fixtures = {
  jpeg: new Uint8Array(await small.clone().jpeg().toBuffer()),
  png: new Uint8Array(await small.clone().png().toBuffer()),
  webp: new Uint8Array(await small.clone().webp().toBuffer()),
  avif: new Uint8Array(await small.clone().avif({ effort: 0 }).toBuffer()),
  // A HEIF container with the generic "mif1" brand (AV1-coded: this sharp build has no HEVC encoder).
  heif: asHeifBrand(new Uint8Array(await small.clone().heif({ compression: "av1", effort: 0 }).toBuffer())),
};
const transparentPng = new Uint8Array(
  await sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png().toBuffer(),
);
const gif = new Uint8Array(
  await sharp({ create: { width: 16, height: 16, channels: 3, background: "red" } }).gif().toBuffer(),
);
const svg = new TextEncoder().encode(
  `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`,
);

/**
 * A HEIC as an iPhone writes it, as far as the container goes: ftyp brand
 * `brand`, one `hvc1` (HEVC) image item with its hvcC decoder configuration
 * and ispe size, and a token HEVC payload. sharp cannot encode HEVC, so the
 * ISO-BMFF boxes are written by hand; sharp reads the header (640x480, hevc)
 * and then has no decoder for the pixels, which is the path a real one takes.
 */
function hevcHeic(brand: "heic" | "heix" | "hevc", width = 640, height = 480): Uint8Array {
  const enc = new TextEncoder();
  const cat = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) (out.set(p, o), o += p.length);
    return out;
  };
  const u8 = (...v: number[]) => new Uint8Array(v);
  const u16 = (v: number) => u8(v >> 8, v & 255);
  const u32 = (v: number) => u8(v >>> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255);
  const box = (type: string, ...body: Uint8Array[]) => {
    const b = cat(...body);
    return cat(u32(8 + b.length), enc.encode(type), b);
  };
  const fullBox = (type: string, version: number, ...body: Uint8Array[]) =>
    box(type, u8(version, 0, 0, 0), ...body);
  const ftyp = box("ftyp", enc.encode(brand), u32(0), enc.encode("mif1"), enc.encode(brand));
  // HEVCDecoderConfigurationRecord: version 1, Main profile, level 3, 4:2:0 8-bit, no parameter sets.
  const hvcC = box(
    "hvcC",
    u8(1, 0x01),
    u32(0x60000000),
    u8(0x90, 0, 0, 0, 0, 0),
    u8(90),
    u16(0xf000),
    u8(0xfc, 0xfd, 0xf8, 0xf8),
    u16(0),
    u8(0x0f, 0),
  );
  const payload = cat(u32(4), u8(0x26, 0x01, 0xaf, 0x00)); // one length-prefixed slice NAL unit
  const file = (dataOffset: number) =>
    cat(
      ftyp,
      fullBox(
        "meta",
        0,
        fullBox("hdlr", 0, u32(0), enc.encode("pict"), u32(0), u32(0), u32(0), u8(0)),
        fullBox("pitm", 0, u16(1)),
        fullBox(
          "iloc",
          0,
          u8(0x44, 0x00),
          u16(1),
          u16(1),
          u16(0),
          u16(1),
          u32(dataOffset),
          u32(payload.length),
        ),
        fullBox("iinf", 0, u16(1), fullBox("infe", 2, u16(1), u16(0), enc.encode("hvc1"), u8(0))),
        box(
          "iprp",
          box("ipco", hvcC, fullBox("ispe", 0, u32(width), u32(height))),
          fullBox("ipma", 0, u32(1), u16(1), u8(2, 0x81, 0x02)), // item 1: hvcC (essential), ispe
        ),
      ),
      box("mdat", payload),
    );
  // The payload sits at the very end; its offset does not change the file's length.
  const draft = file(0);
  return file(draft.length - payload.length);
}

/** Every key in storage. */
async function storedKeys(storage: LocalDiskStorage): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const blob of storage.list()) keys.add(blob.key);
  return keys;
}

/** Backdates a stored blob's modification time (the orphan sweep's notion of age). */
async function age(storage: LocalDiskStorage, key: string, ms: number) {
  const when = new Date(Date.now() - ms);
  await Deno.utime(`${storage.root}/${key.slice(0, 2)}/${key}`, when, when);
}

/** Rewrites an AVIF's ftyp brands to the generic HEIF brand (sharp then reports image/heic). */
function asHeifBrand(avif: Uint8Array): Uint8Array {
  const out = avif.slice();
  const size = new DataView(out.buffer).getUint32(0);
  const enc = new TextEncoder();
  out.set(enc.encode("mif1"), 8);
  for (let i = 16; i + 4 <= size; i += 4) out.set(enc.encode("mif1"), i);
  return out;
}

/** A valid PNG of 20000x20000 1-bit pixels (400 megapixels) that is ~50 KB on disk. */
function pngBomb(width = 20_000, height = 20_000): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (bytes: Uint8Array) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const body = new Uint8Array(4 + data.length);
    body.set(new TextEncoder().encode(type));
    body.set(data, 4);
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(body, 4);
    view.setUint32(8 + data.length, crc32(body));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter, no interlace
  const raw = new Uint8Array((1 + Math.ceil(width / 8)) * height); // all zero: filter 0, black pixels
  const idat = new Uint8Array(deflateSync(raw, { level: 9 }));
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", idat),
    chunk("IEND", new Uint8Array()),
  ];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) (png.set(p, o), o += p.length);
  return png;
}

// ---------- helpers ----------

let ipCounter = 0;
/** A fresh client address per call (TRUST_PROXY is on), so only the rate-limit step shares one. */
const freshIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

async function upload(
  ctx: TestContext,
  file: Uint8Array | null,
  opts: { name?: string; type?: string; token?: string; ip?: string; field?: string } = {},
) {
  const form = new FormData();
  if (file) {
    form.append(
      opts.field ?? "file",
      new File([file as Uint8Array<ArrayBuffer>], opts.name ?? "photo.jpg", {
        type: opts.type ?? "image/jpeg",
      }),
    );
  }
  const headers: Record<string, string> = { "X-Forwarded-For": opts.ip ?? freshIp() };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  return await readResponse(
    await ctx.app.request("/api/upload-photo", { method: "POST", body: form, headers }),
  );
}

async function uploadOk(ctx: TestContext, file: Uint8Array, opts: Parameters<typeof upload>[2] = {}) {
  const res = await upload(ctx, file, opts);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { photoId: string; url: string; message: string };
}

async function photoRow(db: Db, id: string) {
  const [row] = await db.select().from(photos).where(eq(photos.id, id));
  return row;
}

const keyOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);

async function get(ctx: TestContext, path: string, headers: Record<string, string> = {}) {
  const res = await ctx.app.request(path, { headers });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

// ---------- the suite ----------

apiTest(
  "photos: accepts JPEG, PNG, WebP, AVIF and HEIF by content; stores a JPEG row and blob",
  async (ctx) => {
    const db = ctx.database.db;
    for (const [format, bytes] of Object.entries(fixtures)) {
      const before = Date.now();
      // The declared type and name are ignored: only the bytes decide.
      const body = await uploadOk(ctx, bytes, {
        name: `x.${format}`,
        type: "application/octet-stream",
      });
      assert.match(body.photoId, /^[0-9a-f-]{36}$/, format);
      assert.match(body.url, /^\/api\/uploads\/[0-9a-f]{32}\.jpg$/, format);
      assert.equal(typeof body.message, "string");

      const row = await photoRow(db, body.photoId);
      assert.equal(row.storageKey, keyOf(body.url));
      assert.equal(row.ownerId, null);
      assert.equal(row.mime, "image/jpeg");
      assert.deepEqual([row.width, row.height], [480, 320], format);
      const ttl = row.expiresAt!.getTime() - before;
      assert.ok(
        ttl > 24 * 3600_000 - 60_000 && ttl <= 24 * 3600_000 + 60_000,
        `${format} expires in 24 h`,
      );

      const stored = (await ctx.storage.get(row.storageKey))!;
      assert.equal(row.bytes, stored.length);
      const digest = new Uint8Array(
        await crypto.subtle.digest("SHA-256", stored as Uint8Array<ArrayBuffer>),
      );
      assert.equal(row.sha256, Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""));
      const meta = await sharp(stored).metadata();
      assert.equal(meta.format, "jpeg", format);
    }
  },
);

// The model is handed each stored photo so it can find the face while its owner picks a look.
const preparedPhotos: { photoId: string; photo: Uint8Array }[] = [];
apiTest(
  "photos: the image model is given each stored upload to prepare, and nothing it was not given",
  async (ctx) => {
    const mine = () => preparedPhotos.splice(0);
    mine();
    const body = await uploadOk(ctx, fixtures.png, { name: "me.png", type: "image/png" });
    const prepared = mine();
    assert.equal(prepared.length, 1);
    assert.equal(prepared[0].photoId, body.photoId);
    assert.deepEqual(prepared[0].photo, new Uint8Array((await ctx.storage.get(keyOf(body.url)))!));
    // A refused upload stores nothing and prepares nothing.
    const refused = await upload(ctx, new TextEncoder().encode("not an image"), { name: "x.jpg" });
    assert.equal(refused.status, 415);
    assert.deepEqual(mine(), []);
  },
  {
    model: () => ({
      ...succeedingModel(),
      prepare(photo: { photoId: string; photo: Uint8Array }) {
        preparedPhotos.push(photo);
        return Promise.resolve(true);
      },
    }),
  },
);

// A deleted photo leaves no copy in the image model's memory (the local model caches its pixels, faces and masks
// for the previews): the model is told of every deletion, and of nothing else.
const forgotten: string[][] = [];
apiTest(
  "photos: the image model forgets a photo deleted by its owner, with the account, or expired; no other",
  async (ctx) => {
    const told = () => forgotten.splice(0);
    const owner = await ctx.register();
    const kept = await uploadOk(ctx, fixtures.jpeg, { token: owner.access_token });
    const deleted = await uploadOk(ctx, fixtures.jpeg, { token: owner.access_token });
    const other = await ctx.register();
    told();
    // Refused deletions tell the model nothing.
    assert.equal(
      (await ctx.call("DELETE", `/api/photos/${kept.photoId}`, { token: other.access_token })).status,
      404,
    );
    assert.deepEqual(told(), []);
    assert.equal(
      (await ctx.call("DELETE", `/api/photos/${deleted.photoId}`, { token: owner.access_token })).status,
      204,
    );
    assert.deepEqual(told(), [[deleted.photoId]]);

    const leaving = await ctx.register();
    const a = await uploadOk(ctx, fixtures.jpeg, { token: leaving.access_token });
    const b = await uploadOk(ctx, fixtures.png, {
      name: "b.png",
      type: "image/png",
      token: leaving.access_token,
    });
    told();
    assert.equal(
      (await ctx.call("DELETE", "/api/users/account", { token: leaving.access_token })).status,
      200,
    );
    assert.deepEqual(told().map((ids) => ids.toSorted()), [[a.photoId, b.photoId].toSorted()]);

    const anonymous = await uploadOk(ctx, fixtures.jpeg);
    const db = ctx.database.db;
    await db.update(photos).set({ expiresAt: new Date(Date.now() - 1000) }).where(
      eq(photos.id, anonymous.photoId),
    );
    told();
    const forgetPhotos = (ids: readonly string[]) => forgotten.push([...ids]);
    assert.ok(await sweepExpiredPhotos({ db, storage: ctx.storage, forgetPhotos }) >= 1);
    assert.ok(told().flat().includes(anonymous.photoId), "the expired photo");
    assert.ok(await photoRow(db, kept.photoId), "the photo nobody deleted is still there");
  },
  {
    model: () => ({
      ...succeedingModel(),
      forget(photoIds: readonly string[]) {
        forgotten.push([...photoIds]);
      },
    }),
  },
);

apiTest("photos: a transparent PNG is flattened to an opaque JPEG", async (ctx) => {
  const body = await uploadOk(ctx, transparentPng, { name: "t.png", type: "image/png" });
  const stored = (await ctx.storage.get(keyOf(body.url)))!;
  const { data } = await sharp(stored).raw().toBuffer({ resolveWithObject: true });
  assert.ok(data[0] > 240 && data[1] > 240 && data[2] > 240, "white behind transparency, not black");
});

apiTest("photos: a GIF is an image too: its first frame is stored as a JPEG", async (ctx) => {
  const body = await uploadOk(ctx, gif, { name: "me.gif", type: "image/gif" });
  const meta = await sharp((await ctx.storage.get(keyOf(body.url)))!).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 16, 16]);
});

apiTest("photos: anything that is not an accepted image is 415 with the product's message", async (ctx) => {
  const cases: [string, Uint8Array, string][] = [
    [
      "a text file renamed to .jpg",
      new TextEncoder().encode("just some notes, not a photo\n".repeat(20)),
      "image/jpeg",
    ],
    ["an SVG", svg, "image/svg+xml"],
    [
      "a PNG signature on a text body",
      new Uint8Array([...fixtures.png.subarray(0, 8), ...new TextEncoder().encode("x".repeat(64))]),
      "image/png",
    ],
    ["a PDF", new TextEncoder().encode("%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n"), "image/jpeg"],
  ];
  for (const [label, bytes, type] of cases) {
    const res = await upload(ctx, bytes, { name: "photo.jpg", type });
    // A PNG signature with garbage after it is the right type but unreadable: 422 "damaged".
    if (label.startsWith("a PNG signature")) {
      assert.equal(res.status, 422, label);
      assert.match(res.body.detail, /damaged/, label);
      continue;
    }
    assert.equal(res.status, 415, label);
    assert.deepEqual(res.body, { detail: INVALID_FILE_TYPE, code: "unsupported_media_type" }, label);
  }
});

apiTest(
  "photos: a real HEVC HEIC (brands heic, heix, hevc) is 415: HEIC cannot be read here",
  async (ctx) => {
    const db = ctx.database.db;
    const photosBefore = (await db.select({ id: photos.id }).from(photos)).length;
    const blobsBefore = await storedKeys(ctx.storage);
    for (const brand of ["heic", "heix", "hevc"] as const) {
      const bytes = hevcHeic(brand);
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.compression, meta.width], ["heif", "hevc", 640], brand);
      const res = await upload(ctx, bytes, { name: "IMG_0001.HEIC", type: "image/heic" });
      assert.equal(res.status, 415, brand);
      assert.match(res.body.detail, /HEIC photos cannot be read here/, brand);
      assert.match(res.body.detail, /JPEG, PNG, WebP or AVIF/, brand);
    }
    assert.equal((await db.select({ id: photos.id }).from(photos)).length, photosBefore);
    assert.deepEqual(await storedKeys(ctx.storage), blobsBefore, "nothing stored");
  },
);

apiTest("photos: a damaged JPEG is 422 with a clear detail", async (ctx) => {
  const truncated = fixtures.jpeg.slice(0, 400);
  const res = await upload(ctx, truncated);
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.match(res.body.detail, /damaged|incomplete/i);
});

apiTest(
  "photos: a file of 10485761 bytes is 413 with the product's message; 10485760 bytes pass the size check",
  async (ctx) => {
    const db = ctx.database.db;
    const before = (await db.select({ id: photos.id }).from(photos)).length;
    const tooBig = new Uint8Array(MAX_UPLOAD_BYTES + 1);
    tooBig.set(fixtures.jpeg.subarray(0, 64));
    const res = await upload(ctx, tooBig);
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, { detail: FILE_TOO_LARGE, code: "payload_too_large" });
    // Exactly at the limit the size is fine; these bytes are not an image, so the type check answers.
    const atLimit = new Uint8Array(MAX_UPLOAD_BYTES);
    const res2 = await upload(ctx, atLimit);
    assert.equal(res2.status, 415);
    assert.equal(
      (await db.select({ id: photos.id }).from(photos)).length,
      before,
      "refused uploads store nothing",
    );
  },
);

apiTest("photos: a 30 MB streamed body is refused with 413 without being read whole", async (ctx) => {
  const boundary = "----styletwin-test-boundary";
  const head = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\n` +
      `Content-Type: image/jpeg\r\n\r\n`,
  );
  const total = 30 * 1024 * 1024;
  const chunk = new Uint8Array(64 * 1024);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) {
        controller.enqueue(head);
        sent += head.length;
      } else if (sent < total) {
        controller.enqueue(chunk);
        sent += chunk.length;
      } else {
        controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
        controller.close();
      }
    },
  }, { highWaterMark: 0 });
  const res = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: stream,
    headers: {
      "Content-Type": `multipart/form-data; boundary=${boundary}`,
      "X-Forwarded-For": freshIp(),
    },
    duplex: "half",
  } as RequestInit);
  assert.equal(res.status, 413);
  assert.deepEqual(await res.json(), { detail: FILE_TOO_LARGE, code: "payload_too_large" });
  const limit = MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES;
  assert.ok(
    sent <= limit + 2 * chunk.length,
    `read ${sent} bytes of ${total}; stops just past ${limit}`,
  );
  await stream.cancel().catch(() => {});
});

apiTest("photos: a declared Content-Length over the limit is refused before reading", async (ctx) => {
  const res = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: "x",
    headers: {
      "Content-Type": "multipart/form-data; boundary=b",
      "Content-Length": String(1024 ** 3),
      "X-Forwarded-For": freshIp(),
    },
  });
  assert.equal(res.status, 413);
  assert.deepEqual(await res.json(), { detail: FILE_TOO_LARGE, code: "payload_too_large" });
});

apiTest("photos: a 20000x20000 PNG (decompression bomb) is 422 before decoding", async (ctx) => {
  const bomb = pngBomb();
  assert.ok(bomb.length < 200_000, `bomb is ${bomb.length} bytes on disk`);
  const started = performance.now();
  const res = await upload(ctx, bomb, { name: "bomb.png", type: "image/png" });
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.match(res.body.detail, /20000x20000/);
  assert.match(res.body.detail, /50 megapixels/);
  assert.ok(performance.now() - started < 5_000, "refused from the header, not by decoding 400 MP");
});

apiTest("photos: a missing file field is 422; a body that is not multipart is 415", async (ctx) => {
  const none = await upload(ctx, null);
  assert.equal(none.status, 422);
  assert.match(none.body.detail, /No file uploaded/);

  const wrongField = await upload(ctx, fixtures.jpeg, { field: "photo" });
  assert.equal(wrongField.status, 422);
  assert.match(wrongField.body.detail, /No file uploaded/);

  const form = new FormData();
  form.append("file", "not a file, a string");
  const asString = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: form,
    headers: { "X-Forwarded-For": freshIp() },
  });
  assert.equal(asString.status, 422);

  const asJson = await ctx.call("POST", "/api/upload-photo", {
    body: { file: "x" },
    headers: { "X-Forwarded-For": freshIp() },
  });
  const notMultipart = {
    detail: 'Content-Type must be multipart/form-data, with the image in the field "file"',
    code: "unsupported_media_type",
  };
  assert.deepEqual([asJson.status, asJson.body], [415, notMultipart]);
  const { access_token } = await ctx.register();
  for (const path of ["/api/upload-photo", "/api/users/profile/image"]) {
    const raw = await ctx.app.request(path, {
      method: "POST",
      body: fixtures.jpeg,
      headers: {
        "Content-Type": "image/jpeg",
        "X-Forwarded-For": freshIp(),
        Authorization: `Bearer ${access_token}`,
      },
    });
    assert.deepEqual([raw.status, await raw.json()], [415, notMultipart], path);
  }

  const empty = await upload(ctx, new Uint8Array());
  assert.equal(empty.status, 422);
});

apiTest("photos: EXIF orientation is applied (orientation 6: width and height swap)", async (ctx) => {
  const db = ctx.database.db;
  const rotated = new Uint8Array(
    await sharp(portrait).resize(600, 400).withMetadata({ orientation: 6 }).jpeg().toBuffer(),
  );
  assert.equal((await sharp(rotated).metadata()).orientation, 6);
  const body = await uploadOk(ctx, rotated);
  const row = await photoRow(db, body.photoId);
  assert.deepEqual([row.width, row.height], [400, 600]);
  const meta = await sharp((await ctx.storage.get(row.storageKey))!).metadata();
  assert.deepEqual([meta.width, meta.height, meta.orientation], [400, 600, undefined]);
});

apiTest("photos: GPS and all other metadata are stripped", async (ctx) => {
  const withGps = new Uint8Array(
    await sharp(portrait).resize(640).withExif({
      IFD0: { Make: "SpyCam", Model: "Serial-12345", Copyright: "someone" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "51/1 30/1 2637/100",
        GPSLongitudeRef: "W",
        GPSLongitude: "0/1 7/1 3947/100",
      },
    }).jpeg().toBuffer(),
  );
  const srcMeta = await sharp(withGps).metadata();
  assert.ok(srcMeta.exif && srcMeta.exif.length > 0, "fixture carries EXIF");
  const body = await uploadOk(ctx, withGps);
  const stored = (await ctx.storage.get(keyOf(body.url)))!;
  const meta = await sharp(stored).metadata();
  assert.equal(meta.exif, undefined, "no EXIF block");
  assert.equal(meta.xmp, undefined, "no XMP block");
  assert.equal(meta.iptc, undefined, "no IPTC block");
  assert.equal(meta.hasProfile, false, "no ICC profile");
  const text = new TextDecoder("latin1").decode(stored);
  for (const needle of ["Exif", "SpyCam", "Serial-12345", "GPS"]) {
    assert.ok(!text.includes(needle), needle);
  }
});

apiTest("photos: the long side is capped at 2048 px and the aspect ratio kept", async (ctx) => {
  const db = ctx.database.db;
  const big = new Uint8Array(await sharp(portrait).resize(3000, 2000).jpeg({ quality: 70 }).toBuffer());
  const body = await uploadOk(ctx, big);
  const row = await photoRow(db, body.photoId);
  assert.deepEqual([row.width, row.height], [2048, 1365]);
  const tall = new Uint8Array(
    await sharp(portrait).resize(900, 2600, { fit: "fill" }).jpeg().toBuffer(),
  );
  const row2 = await photoRow(db, (await uploadOk(ctx, tall)).photoId);
  assert.equal(row2.height, 2048);
  assert.equal(row2.width, Math.round(900 * 2048 / 2600));
  // Small photos are never enlarged.
  const row3 = await photoRow(db, (await uploadOk(ctx, fixtures.jpeg)).photoId);
  assert.deepEqual([row3.width, row3.height], [480, 320]);
});

apiTest("photos: a signed-in upload is owned and does not expire; a bad token is 401", async (ctx) => {
  const db = ctx.database.db;
  const alice = await ctx.register();
  const body = await uploadOk(ctx, fixtures.jpeg, { token: alice.access_token });
  const row = await photoRow(db, body.photoId);
  assert.equal(row.ownerId, alice.user.id);
  assert.equal(row.expiresAt, null);
  const bad = await upload(ctx, fixtures.jpeg, { token: "not-a-jwt" });
  assert.equal(bad.status, 401);
});

apiTest(
  "photos: usablePhotoFor: a signed-in user claims an anonymous photo; others then get 404",
  async (ctx) => {
    const db = ctx.database.db;
    const alice = await ctx.register();
    const bob = await ctx.register();
    const { photoId } = await uploadOk(ctx, fixtures.jpeg);

    // A claim inside a transaction that then fails is rolled back with it.
    await assert.rejects(
      db.transaction(async (tx) => {
        await usablePhotoFor(tx, photoId, alice.user.id);
        throw new Error("generate failed later");
      }),
      /generate failed later/,
    );
    assert.equal((await photoRow(db, photoId)).ownerId, null);

    const claimed = await db.transaction((tx) => usablePhotoFor(tx, photoId, alice.user.id));
    assert.equal(claimed.id, photoId);
    assert.equal(claimed.ownerId, alice.user.id);
    assert.equal(claimed.expiresAt, null);
    const row = await photoRow(db, photoId);
    assert.equal(row.ownerId, alice.user.id);
    assert.equal(row.expiresAt, null);

    // The owner keeps using it; anyone else is told it does not exist.
    assert.equal((await usablePhotoFor(db, photoId, alice.user.id)).id, photoId);
    await assert.rejects(usablePhotoFor(db, photoId, bob.user.id), {
      status: 404,
      message: PHOTO_NOT_FOUND,
    });

    // Bob's own upload is not Alice's to claim.
    const bobs = await uploadOk(ctx, fixtures.jpeg, { token: bob.access_token });
    await assert.rejects(usablePhotoFor(db, bobs.photoId, alice.user.id), { status: 404 });

    // Not uuids (never a 500 from Postgres' uuid parser) and unknown ids: the same 404.
    for (
      const id of [
        "",
        "nope",
        "' or 1=1 --",
        `${photoId}x`,
        "00000000-0000-0000-0000-00000000000g",
        crypto.randomUUID(),
      ]
    ) {
      await assert.rejects(usablePhotoFor(db, id, alice.user.id), {
        status: 404,
        message: PHOTO_NOT_FOUND,
      }, id);
    }

    // An expired anonymous photo cannot be claimed.
    const old = await uploadOk(ctx, fixtures.jpeg);
    await db.update(photos).set({ expiresAt: new Date(Date.now() - 1000) }).where(
      eq(photos.id, old.photoId),
    );
    await assert.rejects(usablePhotoFor(db, old.photoId, alice.user.id), { status: 404 });
    assert.equal((await photoRow(db, old.photoId)).ownerId, null);
  },
);

apiTest("photos: POST /api/generate claims an anonymous photo for the caller", async (ctx) => {
  const db = ctx.database.db;
  const carol = await ctx.register();
  const { photoId } = await uploadOk(ctx, fixtures.jpeg);
  const res = await ctx.call("POST", "/api/generate", {
    token: carol.access_token,
    body: { photoId, studioType: "makeup", view360: false, options: {} },
  });
  assert.ok(res.status >= 200 && res.status < 300, JSON.stringify(res.body));
  assert.equal((await photoRow(db, photoId)).ownerId, carol.user.id);
  const dave = await ctx.register();
  const other = await ctx.call("POST", "/api/generate", {
    token: dave.access_token,
    body: { photoId, studioType: "makeup", view360: false, options: {} },
  });
  assert.equal(other.status, 404);
  assert.equal(other.body.detail, PHOTO_NOT_FOUND);
});

apiTest(
  "photos: expired anonymous photos are swept (rows and blobs); owned ones and references survive",
  async (ctx) => {
    const db = ctx.database.db;
    const owner = await ctx.register();
    const expired = await uploadOk(ctx, fixtures.jpeg);
    const fresh = await uploadOk(ctx, fixtures.jpeg);
    const owned = await uploadOk(ctx, fixtures.jpeg, { token: owner.access_token });
    const past = new Date(Date.now() - 60_000);
    await db.update(photos).set({ expiresAt: past }).where(eq(photos.id, expired.photoId));
    // A generation pointing at the expired photo (generations.photo_id is ON DELETE SET NULL).
    const [gen] = await db.insert(generations).values({
      userId: owner.user.id,
      photoId: expired.photoId,
      studioType: "makeup",
      options: {},
      intensity: {},
      status: "completed",
    }).returning();

    const now = new Date();
    const due = (await db.select().from(photos)).filter((p) => p.ownerId === null && p.expiresAt! <= now);
    assert.ok(due.some((p) => p.id === expired.photoId));
    const removed = await sweepExpiredPhotos({ db, storage: ctx.storage }, now);
    assert.equal(removed, due.length);

    assert.equal(await photoRow(db, expired.photoId), undefined);
    assert.equal(await ctx.storage.get(keyOf(expired.url)), null, "blob removed");
    assert.equal((await get(ctx, expired.url)).status, 404);
    const [genAfter] = await db.select().from(generations).where(eq(generations.id, gen.id));
    assert.equal(genAfter.photoId, null);
    assert.equal(genAfter.status, "completed");
    assert.ok(await photoRow(db, fresh.photoId));
    assert.ok(await ctx.storage.get(keyOf(fresh.url)));

    // 25 hours later every anonymous upload is gone; owned photos never expire.
    await sweepExpiredPhotos({ db, storage: ctx.storage }, new Date(Date.now() + 25 * 3600_000));
    assert.equal(await photoRow(db, fresh.photoId), undefined);
    assert.equal(await ctx.storage.get(keyOf(fresh.url)), null);
    assert.ok(await photoRow(db, owned.photoId));
    assert.ok(await ctx.storage.get(keyOf(owned.url)));
    const anonymousLeft = (await db.select().from(photos)).filter((p) => p.ownerId === null);
    assert.equal(anonymousLeft.length, 0);
    assert.equal(await sweepExpiredPhotos({ db, storage: ctx.storage }), 0, "nothing left to sweep");
  },
);

apiTest("photos: the photo and orphan sweepers run at start and stop cleanly", async (ctx) => {
  const db = ctx.database.db;
  const { photoId, url } = await uploadOk(ctx, fixtures.jpeg);
  await db.update(photos).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(photos.id, photoId));
  const orphan = newKey("png");
  await ctx.storage.put(orphan, fixtures.png);
  await age(ctx.storage, orphan, ORPHAN_MIN_AGE_MS + 60_000);
  const sweepers = [
    startPhotoSweeper({ db, storage: ctx.storage }, { intervalMs: 60_000 }),
    startOrphanBlobSweeper({ db, storage: ctx.storage }, { intervalMs: 60_000 }),
  ];
  try {
    await waitFor(
      "both sweeps",
      async () => !(await photoRow(db, photoId)) && !(await ctx.storage.get(orphan)),
    );
    assert.equal(await ctx.storage.get(keyOf(url)), null);
  } finally {
    await Promise.all(sweepers.map((s) => s.stop()));
  }
});

apiTest("photos: orphan sweep: old unreferenced blobs go; referenced and fresh ones stay", async (ctx) => {
  const db = ctx.database.db;
  const old = ORPHAN_MIN_AGE_MS + 60_000;
  const owner = await ctx.register();
  // Referenced by a photo row.
  const photo = await uploadOk(ctx, fixtures.jpeg, { token: owner.access_token });
  await age(ctx.storage, keyOf(photo.url), old);
  // Referenced by generation results (front and a 360 angle) and by a profile image.
  const [front, back, avatar] = [newKey("png"), newKey("png"), newKey("jpg")];
  for (const key of [front, back, avatar]) {
    await ctx.storage.put(key, fixtures.png);
    await age(ctx.storage, key, old);
  }
  await db.insert(generations).values({
    userId: owner.user.id,
    studioType: "makeup",
    options: {},
    intensity: {},
    status: "completed",
    results: { front, back },
  });
  await db.update(users).set({ profileImageUrl: `/api/uploads/${avatar}` })
    .where(eq(users.id, owner.user.id));
  // Unreferenced: one old (a crash between put and the row insert), one fresh (a row may follow).
  const [orphan, fresh] = [newKey("jpg"), newKey("png")];
  await ctx.storage.put(orphan, fixtures.jpeg);
  await age(ctx.storage, orphan, old);
  await ctx.storage.put(fresh, fixtures.png);
  await age(ctx.storage, fresh, ORPHAN_MIN_AGE_MS - 60_000);

  const before = await storedKeys(ctx.storage);
  assert.equal(await sweepOrphanBlobs({ db, storage: ctx.storage }), 1);
  const after = await storedKeys(ctx.storage);
  assert.deepEqual([...before].filter((k) => !after.has(k)), [orphan]);
  for (const key of [keyOf(photo.url), front, back, avatar, fresh]) {
    assert.ok(await ctx.storage.get(key), key);
  }
  assert.equal((await get(ctx, photo.url)).status, 200);
  assert.equal(await sweepOrphanBlobs({ db, storage: ctx.storage }), 0, "nothing left to sweep");
});

apiTest("photos: local disk: a failed put leaves no temp file; stale temp files are removed", async (ctx) => {
  const storage = new LocalDiskStorage(`${ctx.dataDir}/disk-test`);
  const key = newKey("png");
  const shard = `${storage.root}/${key.slice(0, 2)}`;
  // A directory where the blob should go makes the rename fail after the temp file was written.
  await Deno.mkdir(`${shard}/${key}`, { recursive: true });
  await assert.rejects(storage.put(key, fixtures.png));
  assert.deepEqual(
    [...Deno.readDirSync(shard)].map((e) => e.name),
    [key],
    "only the blocking directory",
  );

  // A process killed between write and rename leaves a temp file no finally can remove:
  // list() drops it once it is an hour old, and leaves a younger one (a put in progress).
  const clean = new LocalDiskStorage(`${ctx.dataDir}/disk-test-2`);
  const ok = newKey("png");
  await clean.put(ok, fixtures.png);
  const okShard = `${clean.root}/${ok.slice(0, 2)}`;
  const stale = `${okShard}/${ok}.${crypto.randomUUID()}.tmp`;
  const live = `${okShard}/${ok}.${crypto.randomUUID()}.tmp`;
  await Deno.writeFile(stale, fixtures.png);
  await Deno.writeFile(live, fixtures.png);
  const past = new Date(Date.now() - 2 * 3600_000);
  await Deno.utime(stale, past, past);
  const listed = [];
  for await (const blob of clean.list()) listed.push(blob.key);
  assert.deepEqual(listed, [ok], "temp files and non-key entries are never listed");
  const left = [...Deno.readDirSync(okShard)].map((e) => `${okShard}/${e.name}`).sort();
  assert.deepEqual(left, [`${okShard}/${ok}`, live].sort());
});

apiTest("photos: a failed row insert leaves no blob behind", async (ctx) => {
  const keys: string[] = [];
  const storage = {
    put: (key: string, bytes: Uint8Array) => (keys.push(key), ctx.storage.put(key, bytes)),
    get: (key: string) => ctx.storage.get(key),
    delete: (key: string) => ctx.storage.delete(key),
    list: () => ctx.storage.list(),
    size: (key: string) => ctx.storage.size(key),
    stream: (key: string, start: number, end: number) => ctx.storage.stream(key, start, end),
    ping: () => ctx.storage.ping(),
  };
  const failingDb = {
    insert: () => {
      throw new Error("database unavailable");
    },
  } as unknown as Db;
  await assert.rejects(
    uploadPhoto({ db: failingDb, storage }, { file: new Blob([fixtures.jpeg]), ownerId: null }),
    /database unavailable/,
  );
  assert.equal(keys.length, 1, "the blob was written first");
  assert.equal(await ctx.storage.get(keys[0]), null, "and removed after the insert failed");
});

apiTest(
  "photos: GET /api/uploads/<key> serves inline with cache headers; /api/download/<key> as an attachment",
  async (ctx) => {
    const { url } = await uploadOk(ctx, fixtures.jpeg);
    const key = keyOf(url);
    const stored = (await ctx.storage.get(key))!;

    const inline = await get(ctx, url);
    assert.equal(inline.status, 200);
    assertSameBytes(inline.bytes, stored);
    assert.equal(inline.headers.get("Content-Type"), "image/jpeg");
    assert.equal(inline.headers.get("ETag"), `"${key}"`);
    assert.equal(inline.headers.get("Cache-Control"), "private, no-cache");
    assert.equal(inline.headers.get("X-Content-Type-Options"), "nosniff");
    assert.equal(inline.headers.get("Content-Disposition"), "inline");

    const download = await get(ctx, `/api/download/${key}`);
    assert.equal(download.status, 200);
    assertSameBytes(download.bytes, stored);
    assert.equal(download.headers.get("Content-Type"), "image/jpeg");
    assert.equal(download.headers.get("X-Content-Type-Options"), "nosniff");
    assert.equal(download.headers.get("ETag"), `"${key}"`);
    assert.equal(
      download.headers.get("Content-Disposition"),
      `attachment; filename="styletwin-${key.slice(0, 8)}.jpg"`,
    );

    const names: [string, string][] = [
      ["styletwin-result.jpeg", "styletwin-result.jpg"], // the stored format's own extension
      ["styletwin-result.heic", "styletwin-result.jpg"], // not a format a download is re-encoded to
      ["styletwin-360-front", "styletwin-360-front.jpg"],
      ["makeup-1234", "styletwin-makeup-1234.jpg"],
      ['../../Evil "Name"\r\nX-Injected: 1', "styletwin-evil-name-x-injected-1.jpg"],
      ["%2e%2e%2fetc", "styletwin-2e-2e-2fetc.jpg"],
      ["日本語", `styletwin-${key.slice(0, 8)}.jpg`],
      ["styletwin", `styletwin-${key.slice(0, 8)}.jpg`],
    ];
    for (const [name, expected] of names) {
      const res = await get(ctx, `/api/download/${key}?name=${encodeURIComponent(name)}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get("Content-Disposition"), `attachment; filename="${expected}"`, name);
    }

    const head = await ctx.app.request(url, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("Content-Type"), "image/jpeg");
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  },
);

apiTest("photos: If-None-Match with the ETag answers 304 without a body", async (ctx) => {
  const { url } = await uploadOk(ctx, fixtures.jpeg);
  const etag = `"${keyOf(url)}"`;
  for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
    const res = await get(ctx, url, { "If-None-Match": inm });
    assert.equal(res.status, 304, inm);
    assert.equal(res.bytes.length, 0);
    assert.equal(res.headers.get("ETag"), etag);
    assert.equal(res.headers.get("Cache-Control"), "private, no-cache");
  }
  assert.equal((await get(ctx, url, { "If-None-Match": '"something-else"' })).status, 200);
  assert.equal((await get(ctx, `/api/download/${keyOf(url)}`, { "If-None-Match": etag })).status, 304);
});

apiTest("photos: any stored image is served by key (generated results share the storage)", async (ctx) => {
  const key = newKey("png");
  const png = new Uint8Array(await sharp(portrait).resize(90, 160).png().toBuffer());
  await ctx.storage.put(key, png);
  const res = await get(ctx, `/api/uploads/${key}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("Content-Type"), "image/png");
  assertSameBytes(res.bytes, png);
  const dl = await get(ctx, `/api/download/${key}?name=styletwin-result`);
  assert.equal(dl.headers.get("Content-Disposition"), 'attachment; filename="styletwin-result.png"');
});

apiTest(
  "photos: a download named in another format is that format (the history's .png of a JPEG result)",
  async (ctx) => {
    const key = newKey("jpg");
    const jpeg = new Uint8Array(await sharp(portrait).resize(90, 160).jpeg({ quality: 92 }).toBuffer());
    await ctx.storage.put(key, jpeg);
    const id = crypto.randomUUID();
    const png = await get(ctx, `/api/download/${key}?name=styletwin-makeup-${id}.png`);
    assert.equal(png.status, 200);
    assert.equal(png.headers.get("Content-Type"), "image/png");
    assert.equal(png.headers.get("Content-Disposition"), `attachment; filename="styletwin-makeup-${id}.png"`);
    assert.equal(png.headers.get("Cache-Control"), "private, no-cache");
    const meta = await sharp(png.bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 90, 160]);
    // Lossless: the PNG holds the JPEG's pixels exactly.
    const [a, b] = await Promise.all([png.bytes, jpeg].map((x) => sharp(x).raw().toBuffer()));
    assertSameBytes(new Uint8Array(a), new Uint8Array(b));
    const webp = await get(ctx, `/api/download/${key}?name=look.webp`);
    assert.equal(webp.headers.get("Content-Type"), "image/webp");
    assert.equal(webp.headers.get("Content-Disposition"), 'attachment; filename="styletwin-look.webp"');
    // Its own format, or no extension asked for: the stored bytes as they are.
    for (const name of ["look.jpg", "look"]) {
      const same = await get(ctx, `/api/download/${key}?name=${name}`);
      assert.equal(same.headers.get("Content-Disposition"), 'attachment; filename="styletwin-look.jpg"');
      assertSameBytes(same.bytes, jpeg);
    }
    assert.equal((await get(ctx, `/api/download/${newKey("jpg")}?name=x.png`)).status, 404);
  },
);

apiTest("photos: unknown keys and path traversal attempts are 404 {detail}", async (ctx) => {
  // A real file just outside the storage root, and one inside under a non-key name.
  await Deno.writeTextFile(`${ctx.dataDir}/secret.jpg`, "secret");
  await Deno.mkdir(`${ctx.dataDir}/uploads/ab`, { recursive: true });
  await Deno.writeTextFile(`${ctx.dataDir}/uploads/ab/notakey.jpg`, "secret");
  const { url } = await uploadOk(ctx, fixtures.jpeg);
  const key = keyOf(url);
  const paths = [
    `${newKey("jpg")}`,
    key.toUpperCase(),
    key.replace(".jpg", ".svg"),
    `${key}%00.jpg`,
    `${key}%2F..%2F..%2Fsecret.jpg`,
    "..%2Fsecret.jpg",
    "..%2F..%2Fsecret.jpg",
    "%2e%2e%2fsecret.jpg",
    "%2E%2E%2F%2E%2E%2Fsecret.jpg",
    "..%5csecret.jpg",
    "ab%2Fnotakey.jpg",
    "%252e%252e%252fsecret.jpg",
    "....%2F%2Fsecret.jpg",
    "secret.jpg",
    "",
  ];
  for (const p of paths) {
    for (const prefix of ["/api/uploads/", "/api/download/"]) {
      const res = await get(ctx, prefix + p);
      assert.equal(res.status, 404, prefix + p);
      assert.equal(typeof json(res.bytes).detail, "string", prefix + p);
      assert.ok(!new TextDecoder().decode(res.bytes).includes('secret"'), prefix + p);
    }
  }
  // Dot segments the URL parser resolves land outside /api/uploads/ and never reach storage.
  const dots = await get(ctx, "/api/uploads/../../secret.jpg");
  assert.notEqual(new TextDecoder().decode(dots.bytes), "secret");
});

apiTest(
  `photos: uploads are rate limited per IP (${UPLOADS_PER_MINUTE} a minute), 429 with Retry-After`,
  async (ctx) => {
    const ip = "203.0.113.7";
    // Refused uploads count too (they cost the server work); empty forms keep this fast.
    for (let i = 0; i < UPLOADS_PER_MINUTE; i++) {
      assert.equal((await upload(ctx, null, { ip })).status, 422);
    }
    const limited = await upload(ctx, fixtures.jpeg, { ip });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("Retry-After")) >= 1);
    assert.equal(typeof limited.body.detail, "string");
    // Another address is unaffected.
    await uploadOk(ctx, fixtures.jpeg, { ip: "203.0.113.8" });
  },
);

// ---------- private images: ranges and deletion ----------

apiTest("photos: images answer single byte ranges (206) and refuse unsatisfiable ones (416)", async (ctx) => {
  const { url } = await uploadOk(ctx, fixtures.jpeg);
  const stored = (await ctx.storage.get(keyOf(url)))!;
  const part = await get(ctx, url, { Range: "bytes=10-19" });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get("Content-Range"), `bytes 10-19/${stored.length}`);
  assert.deepEqual(part.bytes, stored.slice(10, 20));
  const open = await get(ctx, url, { Range: `bytes=${stored.length - 5}-` });
  assert.deepEqual(open.bytes, stored.slice(-5));
  const beyond = await get(ctx, url, { Range: `bytes=${stored.length}-` });
  assert.equal(beyond.status, 416);
  assert.equal(beyond.headers.get("Content-Range"), `bytes */${stored.length}`);
  // Several ranges or another unit: the whole image.
  const multi = await get(ctx, url, { Range: "bytes=0-1,5-6" });
  assert.equal(multi.status, 200);
  assertSameBytes(multi.bytes, stored);
});

apiTest("photos: DELETE /api/photos/<id> removes the owner's photo and file; others get 404", async (ctx) => {
  const db = ctx.database.db;
  const owner = await ctx.register();
  const { photoId, url } = await uploadOk(ctx, fixtures.jpeg, { token: owner.access_token });
  const other = await ctx.register();
  const anonymous = await uploadOk(ctx, fixtures.jpeg);
  for (const [id, token] of [[photoId, other.access_token], [anonymous.photoId, owner.access_token]]) {
    const res = await ctx.call("DELETE", `/api/photos/${id}`, { token });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: "Photo not found: upload a photo first", code: "not_found" });
  }
  assert.equal((await ctx.call("DELETE", `/api/photos/${photoId}`)).status, 401);
  assert.equal(
    (await ctx.call("DELETE", "/api/photos/../../etc", { token: owner.access_token })).status,
    404,
  );
  assert.equal((await get(ctx, url)).status, 200, "still there after the refusals");

  const del = await ctx.call("DELETE", `/api/photos/${photoId}`, { token: owner.access_token });
  assert.equal(del.status, 204);
  assert.equal(await photoRow(db, photoId), undefined);
  assert.equal(await ctx.storage.get(keyOf(url)), null);
  assert.equal((await get(ctx, url)).status, 404, "the image is gone");
  // A deleted photo cannot be generated with.
  const gen = await ctx.call("POST", "/api/generate", {
    token: owner.access_token,
    body: { photoId, studioType: "makeup" },
  });
  assert.equal(gen.status, 404);
  assert.equal(
    (await ctx.call("DELETE", `/api/photos/${photoId}`, { token: owner.access_token })).status,
    404,
  );
});

apiTest(
  "photos: local disk: a disk that refuses writes answers 503 storage_unavailable, records nothing, names no path",
  async (ctx) => {
    const user = await ctx.register();
    const form = () => {
      const body = new FormData();
      body.append(
        "file",
        new File([fixtures.png as Uint8Array<ArrayBuffer>], "me.png", { type: "image/png" }),
      );
      return body;
    };
    const upload = () =>
      ctx.app.request("/api/upload-photo", {
        method: "POST",
        body: form(),
        headers: { Authorization: `Bearer ${user.access_token}`, "X-Forwarded-For": "203.0.113.77" },
      });
    // The uploads folder replaced by a file: every write under it fails, as on a broken or read-only disk.
    const root = ctx.storage.root;
    await Deno.remove(root, { recursive: true });
    await Deno.writeTextFile(root, "not a directory");
    try {
      const refused = await upload();
      const body = await refused.json();
      assert.equal(refused.status, 503, JSON.stringify(body));
      assert.equal(body.code, "storage_unavailable");
      assert.equal(refused.headers.get("retry-after"), "30");
      assert.equal(await ctx.database.db.$count(photos, eq(photos.ownerId, user.user.id)), 0);
      // The store's message is for the log: the operation and the error's kind, never the path (it holds a key).
      const key = newKey("png");
      const error = await ctx.storage.put(key, fixtures.png).catch((e) => e as Error);
      assert.match(String(error), /local disk: write failed/);
      assert.doesNotMatch(String(error), new RegExp(key.slice(0, 32)));
      assert.doesNotMatch(String(error), /uploads/);
    } finally {
      await Deno.remove(root);
      await Deno.mkdir(root, { recursive: true });
    }
    const again = await upload();
    assert.equal(again.status, 201);
  },
);
