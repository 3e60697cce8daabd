/**
 * Reading a multipart image upload, the same for every upload route (a photo to style, a
 * profile image): the body is refused while it streams once past the limit, and a body without
 * a `file` part is a 422.
 */
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../http/errors.ts";
import { FILE_TOO_LARGE, MAX_UPLOAD_BYTES } from "./photo-limits.ts";
import { NO_FILE_UPLOADED } from "./photos.schemas.ts";

/** Room for the multipart boundaries and part headers around a file of MAX_UPLOAD_BYTES. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Refused while streaming: a huge body is never read past this limit. */
export function uploadBodyLimit() {
  return bodyLimit({
    maxSize: MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES,
    onError: () => {
      throw new AppError(413, FILE_TOO_LARGE);
    },
  });
}

/**
 * The `file` part of a multipart body; `code` is the error code a missing file answers with. A body declared
 * as anything but multipart/form-data (JSON, a raw image, a form without files) is 415, as a JSON route
 * answers a body that is not JSON; a body declaring no type at all is read as a form without the file.
 */
export async function readUploadedFile(c: Context, code?: string): Promise<Blob> {
  const mediaType = c.req.header("Content-Type")?.split(";")[0].trim().toLowerCase() ?? "";
  if (mediaType && mediaType !== "multipart/form-data") {
    throw new AppError(415, 'Content-Type must be multipart/form-data, with the image in the field "file"', {
      code: "unsupported_media_type",
    });
  }
  const noFile = () => new AppError(422, NO_FILE_UPLOADED, code ? { code } : undefined);
  let body: Record<string, string | File>;
  try {
    body = await c.req.parseBody();
  } catch {
    throw noFile();
  }
  const file = body["file"];
  if (!(file instanceof Blob)) throw noFile();
  return file;
}
