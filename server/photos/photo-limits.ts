/**
 * Upload limits and their messages, shared by the server and the client's landing page. Kept
 * free of zod so the landing page can check a file without loading the schema library.
 */

/** Upload max 10 MB. */
export const MAX_UPLOAD_BYTES = 10_485_760;
export const INVALID_FILE_TYPE = "Invalid File Type: Please upload an image file.";
export const FILE_TOO_LARGE = "File Too Large: Please upload an image smaller than 10MB.";
