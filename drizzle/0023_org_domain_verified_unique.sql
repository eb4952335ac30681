CREATE UNIQUE INDEX "org_domains_verified_domain_uq" ON "org_domains" USING btree ("domain") WHERE "org_domains"."is_verified";--> statement-breakpoint
CREATE INDEX "org_domains_domain_idx" ON "org_domains" USING btree ("domain");--> statement-breakpoint
-- contract: 0.1.0 needs no uniqueness of unverified domains: it reads org_domains by domain as a list, and only verified domains (still unique) make login names
DROP INDEX "org_domains_domain_uq";
