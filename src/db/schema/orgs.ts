import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const orgs = pgTable(
  'orgs',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** ACTIVE | INACTIVE | REMOVED */
    state: text('state').notNull().default('ACTIVE'),
    primaryDomain: text('primary_domain').notNull(),
    /**
     * login policy: self-registration allowed; null inherits (the instance setting for the default
     * organization, else no)
     */
    allowRegistration: boolean('allow_registration'),
    /** login policy: a verified email address is a login name; null inherits the instance setting */
    loginWithEmailAllowed: boolean('login_with_email_allowed'),
    /** domain policy: usernames unique per organization, login names `<username>@<domain>`; null inherits */
    userLoginMustBeDomain: boolean('user_login_must_be_domain'),
    /** login policy override (factors, MFA, check lifetimes); null inherits the instance's login policy */
    loginPolicy: jsonb('login_policy').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    // Organization names are unique among organizations that still exist.
    uniqueIndex('orgs_name_uq').on(sql`lower(${t.name})`).where(sql`${t.state} <> 'REMOVED'`),
    index('orgs_name_idx').on(t.name),
  ],
);

export const orgDomains = pgTable(
  'org_domains',
  {
    orgId: text('org_id').notNull(),
    domain: text('domain').notNull(),
    isPrimary: boolean('is_primary').notNull().default(false),
    isVerified: boolean('is_verified').notNull().default(false),
    generated: boolean('generated').notNull().default(false),
    /** the pending domain validation: `dns` or `http`, and its token (cleared once verified) */
    validationType: text('validation_type'),
    validationToken: text('validation_token'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.domain] }),
    // Only a verified domain is unique instance-wide: any organization may add one unverified, and the
    // one that verifies it first owns it (src/domain/org/domain-claim.ts).
    uniqueIndex('org_domains_verified_domain_uq').on(t.domain).where(sql`${t.isVerified}`),
    index('org_domains_domain_idx').on(t.domain),
  ],
);

export const orgMetadata = pgTable(
  'org_metadata',
  {
    orgId: text('org_id').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.key] })],
);
