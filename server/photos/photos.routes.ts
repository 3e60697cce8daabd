/**
 * POST /api/upload-photo, GET /api/uploads/<key>, GET /api/download/<key>.
 * Thin handlers: the rules live in photos.service.ts.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { type AuthEnv, authMiddleware } from "../http/auth-middleware.ts";
import { AppError } from "../http/errors.ts";
import { clientIp } from "../http/client-ip.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { validate } from "../http/validate.ts";
import type { BlobStorage } from "../storage/storage.ts";
import {
  downloadQuerySchema,
  FILE_TOO_LARGE,
  MAX_UPLOAD_BYTES,
  NO_FILE_UPLOADED,
  UPLOADS_PER_MINUTE,
} from "./photos.schemas.ts";
import { downloadFilename, readStoredImage, type StoredImage, uploadPhoto } from "./photos.service.ts";

/** Room for the multipart boundaries and part headers around a file of MAX_UPLOAD_BYTES. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** If-None-Match matches when it lists our ETag (weak comparison, RFC 9110 13.1.2) or is `*`. */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === etag;
  });
}

function imageResponse(c: Context, image: StoredImage, disposition: string): Response {
  const etag = `"${image.key}"`;
  const headers: Record<string, string> = {
    "ETag": etag,
    // A key names one immutable blob forever (a new image gets a new key).
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
    "Content-Disposition": disposition,
  };
  if (notModified(c.req.header("If-None-Match"), etag)) return c.body(null, 304, headers);
  return c.body(image.bytes as Uint8Array<ArrayBuffer>, 200, {
    ...headers,
    "Content-Type": image.mime,
    "Content-Security-Policy": "default-src 'none'; sandbox",
  });
}

export function photosRoutes(deps: { db: Db; config: Config; jwtSecret: string; storage: BlobStorage }) {
  const limiter = new RateLimiter(UPLOADS_PER_MINUTE);
  const optionalAuth = authMiddleware(deps, "optional");

  return new Hono<AuthEnv>()
    .post(
      "/upload-photo",
      async (c, next) => {
        limiter.hit([`upload:ip:${clientIp(c, deps.config.trustProxy)}`]);
        await next();
      },
      optionalAuth,
      // Refused while streaming: a huge body is never read past this limit.
      bodyLimit({
        maxSize: MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES,
        onError: () => {
          throw new AppError(413, FILE_TOO_LARGE);
        },
      }),
      async (c) => {
        let body: Record<string, string | File>;
        try {
          body = await c.req.parseBody();
        } catch {
          throw new AppError(422, NO_FILE_UPLOADED);
        }
        const file = body["file"];
        if (!(file instanceof Blob)) throw new AppError(422, NO_FILE_UPLOADED);
        const result = await uploadPhoto(deps, { file, ownerId: c.get("auth")?.user.id ?? null });
        return c.json(result, 201);
      },
    )
    .get("/uploads/:key", async (c) => {
      const image = await readStoredImage(deps.storage, c.req.param("key"));
      return imageResponse(c, image, "inline");
    })
    .get("/download/:key", validate("query", downloadQuerySchema), async (c) => {
      const image = await readStoredImage(deps.storage, c.req.param("key"));
      const filename = downloadFilename(image.key, c.req.valid("query").name);
      return imageResponse(c, image, `attachment; filename="${filename}"`);
    });
}
