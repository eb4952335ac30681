-- contract: 0.1.0 wrote a verified domain only where no other row had the domain (the full unique index held
-- until now); a domain added twice since can at worst be refused when a 0.1.0 replica verifies it
CREATE UNIQUE INDEX "org_domains_verified_domain_uq" ON "org_domains" USING btree ("domain") WHERE "org_domains"."is_verified";--> statement-breakpoint
CREATE INDEX "org_domains_domain_idx" ON "org_domains" USING btree ("domain");--> statement-breakpoint
-- contract: 0.1.0 needs no uniqueness of unverified domains: it reads org_domains by domain as a list, and
-- login names come from verified domains only, which the index above keeps unique
DROP INDEX "org_domains_domain_uq";
