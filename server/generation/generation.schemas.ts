/**
 * The generation API contract. Pure zod/types, no server imports: the
 * client imports these.
 */
import * as z from "zod";
import { ANGLES, MAKEUP_CATEGORIES, MAX_INSTRUCTION_CHARS, STUDIO_TYPES } from "../styling/option-keys.ts";

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
  additionalInstructions: z.string()
    .max(MAX_INSTRUCTION_CHARS, `Additional instructions must be at most ${MAX_INSTRUCTION_CHARS} characters`)
    .nullable().optional(),
});
export type GenerateInput = z.infer<typeof generateSchema>;

export const GENERATION_STATUSES = ["queued", "processing", "completed", "failed"] as const;

export const historyQuerySchema = z.object({
  limit: z.coerce.number({ error: "limit must be a whole number from 1 to 100" })
    .int("limit must be a whole number from 1 to 100")
    .min(1, "limit must be a whole number from 1 to 100")
    .max(100, "limit must be a whole number from 1 to 100")
    .default(20),
  cursor: z.string().max(200).optional(),
  /** Only items with this status (several comma-separated: `queued,processing`). */
  status: z.string().max(100).optional().transform((s, ctx) => {
    if (!s) return undefined;
    const list = [...new Set(s.split(",").map((x) => x.trim()).filter(Boolean))];
    const bad = list.find((x) => !(GENERATION_STATUSES as readonly string[]).includes(x));
    if (bad !== undefined || list.length === 0) {
      ctx.addIssue({ code: "custom", message: `status must be one of: ${GENERATION_STATUSES.join(", ")}` });
      return z.NEVER;
    }
    return list as (typeof GENERATION_STATUSES)[number][];
  }),
});
export const generationStatusNameSchema = z.enum(GENERATION_STATUSES);
export type GenerationStatusName = z.infer<typeof generationStatusNameSchema>;

/** Only the angles the model really made are present (never faked). */
export const resultUrlsSchema = z.partialRecord(z.enum(ANGLES), z.string());

/** GET /api/generation/<id>/status */
export const generationStatusResponseSchema = z.object({
  status: generationStatusNameSchema,
  /** The front image under /api/uploads/, once completed. */
  resultUrl: z.string().nullable(),
  resultUrls: resultUrlsSchema,
  error: z.string().nullable(),
  /** What the model did not apply (unsupported options, skipped steps). */
  notes: z.array(z.string()),
});
export type GenerationStatusResponse = z.infer<typeof generationStatusResponseSchema>;

/** One entry of GET /api/generations (snake_case, as the client expects it). */
export const historyItemSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  studio_type: z.enum(STUDIO_TYPES),
  status: generationStatusNameSchema,
  result_url: z.string().nullable(),
  view360: z.boolean(),
  options: z.record(z.string(), z.string()),
  /** The options the user changed from their defaults, with display labels, in catalog order. */
  chosen_options: z.array(z.object({ key: z.string(), label: z.string() })),
  /** Every angle that was made (the 360 set); resultUrl is its front. */
  result_urls: resultUrlsSchema,
  /** What the generation cost in the end: 0 when it failed (refunded) or for admins. */
  credits_charged: z.number().int(),
});
export type HistoryItem = z.infer<typeof historyItemSchema>;

/** GET /api/generations?limit=&cursor= */
export const historyPageSchema = z.object({
  items: z.array(historyItemSchema),
  /** Opaque; pass it back as `cursor` for the next (older) page. Null on the last page. */
  next_cursor: z.string().nullable(),
});
export type HistoryPage = z.infer<typeof historyPageSchema>;

export const INSUFFICIENT_CREDITS =
  "Insufficient Credits: You need at least 2 credits to generate an image. Click 'Buy Credits' to purchase more.";
export const GENERATION_FAILED = "The AI generation encountered an error. Please try again.";
