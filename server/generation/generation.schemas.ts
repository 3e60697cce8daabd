/**
 * The generation API contract. Pure zod/types, no server imports: the
 * client imports these.
 */
import * as z from "zod";
import { MAKEUP_CATEGORIES, STUDIO_TYPES } from "../styling/option-keys.ts";

export const generateSchema = z.object({
  photoId: z.string({ error: "No Photo Uploaded: Please upload a reference photo first." })
    .min(1, "No Photo Uploaded: Please upload a reference photo first."),
  referencePhotoIds: z.array(z.string()).max(3, "At most 3 reference photos").optional(),
  studioType: z.enum(STUDIO_TYPES, { error: `studioType must be one of: ${STUDIO_TYPES.join(", ")}` }),
  options: z.record(z.string(), z.unknown()).optional(),
  intensity: z.partialRecord(
    z.enum(MAKEUP_CATEGORIES, { error: `intensity keys must be: ${MAKEUP_CATEGORIES.join(", ")}` }),
    z.number().int().min(0, "intensity must be 0-100").max(100, "intensity must be 0-100"),
  ).optional(),
  view360: z.boolean().optional().default(false),
  additionalInstructions: z.string().max(1000, "Additional instructions must be at most 1000 characters")
    .nullable().optional(),
});
export type GenerateInput = z.infer<typeof generateSchema>;

export const historyQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

export type GenerationStatusName = "queued" | "processing" | "completed" | "failed";
export type ResultUrls = Partial<Record<"front" | "right" | "left" | "back", string>>;

export interface GenerationStatusResponse {
  status: GenerationStatusName;
  resultUrl: string | null;
  resultUrls: ResultUrls;
  error: string | null;
  /** What the model did not apply (unsupported options, skipped steps). */
  notes: string[];
}

export interface HistoryItem {
  id: string;
  created_at: string;
  studio_type: "makeup" | "hair" | "barber";
  status: GenerationStatusName;
  result_url: string | null;
  view360: boolean;
  options: Record<string, string>;
}

export interface HistoryPage {
  items: HistoryItem[];
  next_cursor: string | null;
}

export const INSUFFICIENT_CREDITS =
  "Insufficient Credits: You need at least 2 credits to generate an image. Click 'Buy Credits' to purchase more.";
export const GENERATION_FAILED = "The AI generation encountered an error. Please try again.";
