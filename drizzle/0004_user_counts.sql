CREATE TABLE "user_counts" (
	"org_id" text NOT NULL,
	"live" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "user_counts_org_idx" ON "user_counts" USING btree ("org_id");