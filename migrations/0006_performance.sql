DROP INDEX "generations_user_created_idx";--> statement-breakpoint
CREATE INDEX "generations_user_history_idx" ON "generations" USING btree ("user_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
