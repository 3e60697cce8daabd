ALTER TABLE "generations" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "request_hash" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "claimed_by" text;--> statement-breakpoint
CREATE UNIQUE INDEX "generations_user_idempotency_key" ON "generations" USING btree ("user_id","idempotency_key") WHERE "generations"."idempotency_key" is not null;
