ALTER TABLE "org_domains" ADD COLUMN "validation_type" text;--> statement-breakpoint
ALTER TABLE "org_domains" ADD COLUMN "validation_token" text;