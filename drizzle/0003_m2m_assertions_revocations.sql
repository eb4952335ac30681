CREATE TABLE "m2m_revoked_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "m2m_used_assertions" (
	"id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "m2m_revoked_tokens_expires_idx" ON "m2m_revoked_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "m2m_used_assertions_expires_idx" ON "m2m_used_assertions" USING btree ("expires_at");