ALTER TABLE "applications" ADD COLUMN "registration_token_hash" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "first_token_at" timestamp with time zone;