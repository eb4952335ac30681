CREATE TABLE "identity_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"template" text DEFAULT 'GENERIC' NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"config" jsonb NOT NULL,
	"secrets" text,
	"options" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "idp_intents" (
	"id" text PRIMARY KEY NOT NULL,
	"idp_id" text NOT NULL,
	"state" text DEFAULT 'STARTED' NOT NULL,
	"state_hash" text,
	"binding_hash" text,
	"auth_request_id" text,
	"success_url" text,
	"failure_url" text,
	"nonce" text,
	"code_verifier" text,
	"saml_request_id" text,
	"external_user" jsonb,
	"external_user_id" text,
	"user_id" text,
	"token_hash" text,
	"upstream_tokens" text,
	"failure_reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idp_links" (
	"idp_id" text NOT NULL,
	"external_user_id" text NOT NULL,
	"external_username" text DEFAULT '' NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "identity_providers_org_idx" ON "identity_providers" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idp_intents_state_uq" ON "idp_intents" USING btree ("state_hash") WHERE "idp_intents"."state_hash" is not null;--> statement-breakpoint
CREATE INDEX "idp_intents_expires_idx" ON "idp_intents" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "idp_links_external_uq" ON "idp_links" USING btree ("idp_id","external_user_id");--> statement-breakpoint
CREATE INDEX "idp_links_user_idx" ON "idp_links" USING btree ("user_id");