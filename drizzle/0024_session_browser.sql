-- Where and with what a session signed in (browser, address, client), shown in the console and the account
-- page. Nullable: sessions of before, and those a login UI creates through the API, have none.
ALTER TABLE "sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "ip_address" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "client_id" text;--> statement-breakpoint
-- ListApplications by the organization owning the project
CREATE INDEX "applications_org_idx" ON "applications" USING btree ("org_id","created_at");