/**
 * What an upload answers for a file that is not a readable image: the photo upload and the profile
 * picture alike (one set of texts and codes for one fault).
 */
import { AppError } from "../http/errors.ts";
import { type ImageInputError, MAX_INPUT_PIXELS } from "../imaging/normalize-photo.ts";
import { INVALID_FILE_TYPE } from "./photo-limits.ts";

export function imageInputAppError(e: ImageInputError): AppError {
  switch (e.problem) {
    case "unsupported-format":
      return new AppError(415, INVALID_FILE_TYPE);
    case "unsupported-codec":
      return new AppError(
        415,
        "Invalid File Type: HEIC photos cannot be read here. Please upload a JPEG, PNG, WebP or AVIF image.",
      );
    case "too-many-pixels":
      return new AppError(
        422,
        `Image Too Large: ${e.message}. Please upload a photo of at most ${
          MAX_INPUT_PIXELS / 1_000_000
        } megapixels.`,
      );
    case "unreadable":
      return new AppError(
        422,
        "Unreadable Image: the file looks damaged or incomplete. Please upload it again.",
      );
  }
}
