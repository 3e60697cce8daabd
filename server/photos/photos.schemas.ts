/**
 * The photos API contract: limits, the messages users read and the response
 * shape. Client-safe: imports nothing server-only.
 */
import * as z from "zod";

export { FILE_TOO_LARGE, INVALID_FILE_TYPE, MAX_UPLOAD_BYTES } from "./photo-limits.ts";
/** Anonymous uploads are kept this long unless a signed-in user generates with them. */
export const ANONYMOUS_PHOTO_TTL_MS = 24 * 60 * 60 * 1000;
/** Uploads allowed per client IP each minute. */
export const UPLOADS_PER_MINUTE = 30;

export const NO_FILE_UPLOADED =
  'No file uploaded: send the photo as multipart/form-data in the field "file".';
export const PHOTO_NOT_FOUND = "Photo not found: upload a photo first";
export const UPLOAD_SUCCEEDED = "Photo uploaded successfully";

export const uploadResponseSchema = z.object({
  photoId: z.string().uuid(),
  /** Same-origin path, /api/uploads/<key>; /api/download/<key> serves it as an attachment. */
  url: z.string(),
  message: z.string(),
});
export type UploadResponse = z.infer<typeof uploadResponseSchema>;

/** GET /api/download/<key>?name=... (sanitised by the server; see downloadFilename). */
export const downloadQuerySchema = z.object({
  name: z.string().max(200, "name is too long").optional(),
});
