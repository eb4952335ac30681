CREATE TABLE "logout_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"client_id" text NOT NULL,
	"uri" text NOT NULL,
	"user_id" text NOT NULL,
	"session_id" text NOT NULL,
	"org_id" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "logout_deliveries_pending_idx" ON "logout_deliveries" USING btree ("next_attempt_at") WHERE "logout_deliveries"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "logout_deliveries_session_idx" ON "logout_deliveries" USING btree ("session_id");