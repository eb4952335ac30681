CREATE TABLE "access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text,
	"grant_id" text,
	"session_id" text,
	"refresh_token_id" text,
	"user_id" text NOT NULL,
	"client_id" text NOT NULL,
	"project_id" text,
	"scopes" text[] NOT NULL,
	"audience" text[] NOT NULL,
	"authorization_bound" boolean DEFAULT false NOT NULL,
	"actor_user_id" text,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "auth_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"grant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text,
	"nonce" text,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "auth_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"application_id" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"response_type" text NOT NULL,
	"response_mode" text NOT NULL,
	"scopes" text[] NOT NULL,
	"state" text,
	"nonce" text,
	"code_challenge" text,
	"prompt" text[] DEFAULT '{}'::text[] NOT NULL,
	"max_age" integer,
	"login_hint" text,
	"hint_user_id" text,
	"ui_locales" text[] DEFAULT '{}'::text[] NOT NULL,
	"org_id" text,
	"login_name" text,
	"session_id" text,
	"error" text,
	"error_description" text,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oidc_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" text,
	"user_id" text NOT NULL,
	"client_id" text NOT NULL,
	"application_id" text NOT NULL,
	"project_id" text NOT NULL,
	"scopes" text[] NOT NULL,
	"audience" text[] NOT NULL,
	"auth_time" timestamp with time zone,
	"amr" text[] DEFAULT '{}'::text[] NOT NULL,
	"absolute_expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"grant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "used_assertions" (
	"id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_agent_hash" text,
	"user_id" text,
	"org_id" text,
	"password_checked_at" timestamp with time zone,
	"amr" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"terminated_at" timestamp with time zone,
	"sequence" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "web_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"algorithm" text NOT NULL,
	"state" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"published_until" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "access_tokens_hash_idx" ON "access_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "access_tokens_grant_idx" ON "access_tokens" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "access_tokens_session_idx" ON "access_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "access_tokens_refresh_idx" ON "access_tokens" USING btree ("refresh_token_id");--> statement-breakpoint
CREATE INDEX "access_tokens_expires_idx" ON "access_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "auth_codes_expires_idx" ON "auth_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "auth_requests_expires_idx" ON "auth_requests" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oidc_grants_session_idx" ON "oidc_grants" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "oidc_grants_user_idx" ON "oidc_grants" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_hash_idx" ON "refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "refresh_tokens_grant_idx" ON "refresh_tokens" USING btree ("grant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_hash_uq" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sessions_user_agent_idx" ON "sessions" USING btree ("user_agent_hash");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "web_keys_state_idx" ON "web_keys" USING btree ("state");