-- Dashboard profiles: one row per user, created on the first save. Lists are text[] and the
-- styling preferences a small JSON object; the service bounds every size before it writes.
CREATE TABLE "profiles" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"first_name" text,
	"last_name" text,
	"phone" text,
	"date_of_birth" date,
	"gender" text,
	"location" text,
	"bio" text,
	"styling_preferences" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"favorite_styles" text[] DEFAULT '{}'::text[] NOT NULL,
	"color_preferences" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "profiles_gender_valid" CHECK ("profiles"."gender" is null or "profiles"."gender" in ('male', 'female', 'other', 'prefer-not-to-say'))
);
--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
