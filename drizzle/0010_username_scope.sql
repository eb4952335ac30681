DROP INDEX "users_username_uq";--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "login_with_email_allowed" boolean;--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "user_login_must_be_domain" boolean;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "username_scope" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- userLoginMustBeDomain defaults to true: human usernames become unique per organization.
UPDATE "users" SET "username_scope" = "org_id" WHERE "type" = 'HUMAN';--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_uq" ON "users" USING btree ("username_scope",lower("username")) WHERE "users"."state" <> 'REMOVED';