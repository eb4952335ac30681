ALTER TABLE "oidc_grants" ADD COLUMN "actor_user_id" text;--> statement-breakpoint
ALTER TABLE "oidc_grants" ADD COLUMN "actor_client_id" text;