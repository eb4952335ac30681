CREATE TABLE "recovery_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_factors" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"name" text,
	"secret" text,
	"last_used_step" bigint,
	"credential_id" text,
	"public_key" text,
	"sign_count" bigint DEFAULT 0 NOT NULL,
	"transports" text[],
	"passwordless" boolean DEFAULT false NOT NULL,
	"backup_eligible" boolean DEFAULT false NOT NULL,
	"rp_id" text,
	"challenge" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "login_policy" jsonb;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "failed_otp_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "mfa_init_skipped_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "factor_checks" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "challenges" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "user_factors_user_idx" ON "user_factors" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "user_factors_credential_uq" ON "user_factors" USING btree ("credential_id") WHERE "user_factors"."credential_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "user_factors_single_uq" ON "user_factors" USING btree ("user_id","type") WHERE "user_factors"."type" <> 'webauthn';--> statement-breakpoint
INSERT INTO "user_factors" ("id", "user_id", "org_id", "type", "state", "secret") SELECT 'otp_' || "id", "id", "org_id", 'totp', 'ready', upper("otp_secret") FROM "users" WHERE "otp_secret" IS NOT NULL AND "state" <> 'REMOVED';--> statement-breakpoint
UPDATE "sessions" SET "factor_checks" = jsonb_build_object('password', jsonb_build_object('at', to_char("password_checked_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) WHERE "password_checked_at" IS NOT NULL;
