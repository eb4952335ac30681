CREATE TABLE "pushed_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"request_uri_hash" text NOT NULL,
	"client_id" text NOT NULL,
	"params" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "pushed_requests_uri_hash_uq" ON "pushed_requests" USING btree ("request_uri_hash");--> statement-breakpoint
CREATE INDEX "pushed_requests_expires_idx" ON "pushed_requests" USING btree ("expires_at");