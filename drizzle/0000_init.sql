CREATE TABLE "administrators" (
	"user_id" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"resource_owner" text NOT NULL,
	"roles" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "administrators_user_id_resource_type_resource_id_pk" PRIMARY KEY("user_id","resource_type","resource_id")
);
--> statement-breakpoint
CREATE TABLE "application_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"application_id" text NOT NULL,
	"client_id" text NOT NULL,
	"public_key" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "applications" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"client_id" text,
	"secret_hash" text,
	"oidc" jsonb,
	"saml" jsonb,
	"api" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"position" bigserial PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"aggregate_type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"sequence" integer NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"editor_user_id" text DEFAULT '' NOT NULL,
	"editor_service" text DEFAULT '' NOT NULL,
	"resource_owner" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instance_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"generated" boolean DEFAULT false NOT NULL,
	"trusted" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"domain" text NOT NULL,
	"default_org_id" text DEFAULT '' NOT NULL,
	"settings" jsonb NOT NULL,
	"singleton" boolean DEFAULT true NOT NULL,
	"sequence" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "instances_singleton_unique" UNIQUE("singleton")
);
--> statement-breakpoint
CREATE TABLE "org_domains" (
	"org_id" text NOT NULL,
	"domain" text NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	"is_verified" boolean DEFAULT false NOT NULL,
	"generated" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_domains_org_id_domain_pk" PRIMARY KEY("org_id","domain")
);
--> statement-breakpoint
CREATE TABLE "org_metadata" (
	"org_id" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_metadata_org_id_key_pk" PRIMARY KEY("org_id","key")
);
--> statement-breakpoint
CREATE TABLE "orgs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"primary_domain" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "authorizations" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"project_grant_id" text,
	"role_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"granted_org_id" text NOT NULL,
	"role_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_roles" (
	"project_id" text NOT NULL,
	"key" text NOT NULL,
	"display_name" text NOT NULL,
	"group" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_roles_project_id_key_pk" PRIMARY KEY("project_id","key")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"project_role_assertion" boolean DEFAULT false NOT NULL,
	"authorization_required" boolean DEFAULT false NOT NULL,
	"project_access_required" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "personal_access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_metadata" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_metadata_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"state" text DEFAULT 'ACTIVE' NOT NULL,
	"username" text NOT NULL,
	"given_name" text,
	"family_name" text,
	"nick_name" text,
	"display_name" text,
	"preferred_language" text,
	"gender" text,
	"email" text,
	"email_verified" boolean DEFAULT false NOT NULL,
	"phone" text,
	"phone_verified" boolean DEFAULT false NOT NULL,
	"password_hash" text,
	"password_change_required" boolean DEFAULT false NOT NULL,
	"password_changed_at" timestamp with time zone,
	"failed_password_attempts" integer DEFAULT 0 NOT NULL,
	"otp_secret" text,
	"machine_name" text,
	"description" text,
	"access_token_type" text,
	"secret_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "administrators_resource_idx" ON "administrators" USING btree ("resource_type","resource_id");--> statement-breakpoint
CREATE INDEX "application_keys_client_idx" ON "application_keys" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "applications_client_id_uq" ON "applications" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "applications_project_idx" ON "applications" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "events_aggregate_sequence_uq" ON "events" USING btree ("aggregate_type","aggregate_id","sequence");--> statement-breakpoint
CREATE INDEX "events_aggregate_id_idx" ON "events" USING btree ("aggregate_id","position");--> statement-breakpoint
CREATE INDEX "events_type_idx" ON "events" USING btree ("event_type","position");--> statement-breakpoint
CREATE INDEX "events_owner_idx" ON "events" USING btree ("resource_owner","position");--> statement-breakpoint
CREATE INDEX "events_editor_idx" ON "events" USING btree ("editor_user_id","position");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "org_domains_domain_uq" ON "org_domains" USING btree ("domain");--> statement-breakpoint
CREATE UNIQUE INDEX "orgs_name_uq" ON "orgs" USING btree (lower("name")) WHERE "orgs"."state" <> 'REMOVED';--> statement-breakpoint
CREATE INDEX "orgs_name_idx" ON "orgs" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "authorizations_user_project_org_uq" ON "authorizations" USING btree ("user_id","project_id","org_id") WHERE "authorizations"."state" <> 'REMOVED';--> statement-breakpoint
CREATE INDEX "authorizations_project_idx" ON "authorizations" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "project_grants_project_org_uq" ON "project_grants" USING btree ("project_id","granted_org_id") WHERE "project_grants"."state" <> 'REMOVED';--> statement-breakpoint
CREATE INDEX "project_grants_granted_org_idx" ON "project_grants" USING btree ("granted_org_id");--> statement-breakpoint
CREATE INDEX "projects_org_idx" ON "projects" USING btree ("org_id","id");--> statement-breakpoint
CREATE INDEX "projects_name_idx" ON "projects" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "pats_hash_uq" ON "personal_access_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "pats_user_idx" ON "personal_access_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_uq" ON "users" USING btree (lower("username")) WHERE "users"."state" <> 'REMOVED';--> statement-breakpoint
CREATE INDEX "users_org_idx" ON "users" USING btree ("org_id","id");--> statement-breakpoint
CREATE INDEX "users_username_prefix_idx" ON "users" USING btree (lower("username") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "users_email_idx" ON "users" USING btree (lower("email"));