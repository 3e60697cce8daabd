ALTER TABLE "generations" ADD COLUMN "model" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "prompt" text;
