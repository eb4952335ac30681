CREATE TABLE "dpop_used_proofs" (
	"id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "access_tokens" ADD COLUMN "jkt" text;--> statement-breakpoint
ALTER TABLE "auth_codes" ADD COLUMN "dpop_jkt" text;--> statement-breakpoint
ALTER TABLE "auth_requests" ADD COLUMN "dpop_jkt" text;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "jkt" text;--> statement-breakpoint
CREATE INDEX "dpop_used_proofs_expires_idx" ON "dpop_used_proofs" USING btree ("expires_at");