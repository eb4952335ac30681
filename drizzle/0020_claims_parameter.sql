ALTER TABLE "access_tokens" ADD COLUMN "userinfo_claims" text[];--> statement-breakpoint
ALTER TABLE "auth_requests" ADD COLUMN "claims" jsonb;--> statement-breakpoint
ALTER TABLE "oidc_grants" ADD COLUMN "claims" jsonb;