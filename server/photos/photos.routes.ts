/**
 * POST /api/upload-photo, GET /api/uploads/<key>, GET /api/download/<key>.
 * DELETE /api/photos/<id>. Thin handlers: the rules live in photo-upload.ts,
 * photo-serving.ts and photo-deletion.ts.
 */
import { type Context, Hono } from "hono";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { type AuthEnv, authMiddleware, caller } from "../http/auth-middleware.ts";
import { clientIp } from "../http/client-ip.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { validate } from "../http/validate.ts";
import type { BlobStorage } from "../storage/storage.ts";
import { downloadQuerySchema, UPLOADS_PER_MINUTE } from "./photos.schemas.ts";
import { deletePhoto } from "./photo-deletion.ts";
import { downloadFilename, openConvertedImage, openStoredImage, requestedFormat } from "./photo-serving.ts";
import { uploadPhoto } from "./photo-upload.ts";
import type { ImageModel } from "../imaging/image-model.ts";
import { readUploadedFile, uploadBodyLimit } from "./upload-body.ts";

/** If-None-Match matches when it lists our ETag (weak comparison, RFC 9110 13.1.2) or is `*`. */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === etag;
  });
}

/** Every stored image's answer: its own and a re-encoded download's. */
const IMAGE_HEADERS = {
  // Portraits are personal data: only the user's own browser may keep a copy, and it
  // revalidates (a cheap 304) on every use, so a deleted image is gone from view too.
  "Cache-Control": "private, no-cache",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox",
};

async function imageResponse(c: Context, storage: BlobStorage, disposition: string): Promise<Response> {
  const key = c.req.param("key") ?? "";
  const etag = `"${key}"`;
  const headers: Record<string, string> = {
    "ETag": etag,
    ...IMAGE_HEADERS,
    "Content-Disposition": disposition,
    "Accept-Ranges": "bytes",
  };
  const fresh = notModified(c.req.header("If-None-Match"), etag);
  // A HEAD (hono runs this handler and drops the body) or a 304 opens no stream: see openStoredImage.
  const withBody = !fresh && c.req.method !== "HEAD";
  const image = await openStoredImage(storage, key, c.req.header("Range"), withBody);
  if ("unsatisfiable" in image) {
    return c.json({ detail: "Requested range not satisfiable", code: "range_not_satisfiable" }, 416, {
      "Content-Range": `bytes */${image.size}`,
    });
  }
  if (fresh) return c.body(null, 304, headers);
  headers["Content-Type"] = image.mime;
  if (image.range) {
    headers["Content-Range"] = `bytes ${image.range.start}-${image.range.end}/${image.size}`;
    headers["Content-Length"] = String(image.range.end - image.range.start + 1);
    return image.body ? c.body(image.body, 206, headers) : c.body(null, 206, headers);
  }
  headers["Content-Length"] = String(image.size);
  return image.body ? c.body(image.body, 200, headers) : c.body(null, 200, headers);
}

export function photosRoutes(
  deps: {
    db: Db;
    config: Config;
    jwtSecret: string;
    storage: BlobStorage;
    /** Given each stored upload (see ImageModel.prepare). */
    preparePhoto?: ImageModel["prepare"];
    /** See PhotoDeps.forgetPhotos. */
    forgetPhotos?: (photoIds: readonly string[]) => void;
  },
) {
  const limiter = new RateLimiter(UPLOADS_PER_MINUTE);
  const optionalAuth = authMiddleware(deps, "optional");
  const requireAuth = authMiddleware(deps, "required");

  return new Hono<AuthEnv>()
    .post(
      "/upload-photo",
      async (c, next) => {
        limiter.hit([`upload:ip:${clientIp(c, deps.config.trustProxy)}`]);
        await next();
      },
      optionalAuth,
      uploadBodyLimit(),
      async (c) => {
        const file = await readUploadedFile(c);
        const result = await uploadPhoto(deps, { file, ownerId: c.get("auth")?.user.id ?? null });
        return c.json(result, 201);
      },
    )
    .get("/uploads/:key", (c) => imageResponse(c, deps.storage, "inline"))
    .get("/download/:key", validate("query", downloadQuerySchema), async (c) => {
      const key = c.req.param("key"), { name } = c.req.valid("query");
      const format = requestedFormat(key, name);
      if (!format) {
        return imageResponse(c, deps.storage, `attachment; filename="${downloadFilename(key, name)}"`);
      }
      // Asked for in another format (the history's .png of a JPEG result): re-encoded, named as it now is.
      const image = await openConvertedImage(deps.storage, key, format);
      return c.body(image.bytes, 200, {
        ...IMAGE_HEADERS,
        "Content-Type": image.mime,
        "Content-Length": String(image.bytes.byteLength),
        "Content-Disposition": `attachment; filename="${downloadFilename(key, name, image.ext)}"`,
      });
    })
    .delete("/photos/:id", requireAuth, async (c) => {
      await deletePhoto(deps, caller(c).user.id, c.req.param("id"));
      return c.body(null, 204);
    });
}
