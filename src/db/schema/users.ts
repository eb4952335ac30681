import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Human and machine users in one table (v2 has one CreateUser). Columns that only apply to one type
 * are null for the other. Deleted users keep their row with state REMOVED so that their events and
 * tokens stay explainable, and their username becomes free again (partial unique index).
 */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    /** HUMAN | MACHINE */
    type: text('type').notNull(),
    /** ACTIVE | INACTIVE | LOCKED | INITIAL | REMOVED (INITIAL only for v1-created users) */
    state: text('state').notNull().default('ACTIVE'),
    username: text('username').notNull(),
    // human
    givenName: text('given_name'),
    familyName: text('family_name'),
    nickName: text('nick_name'),
    displayName: text('display_name'),
    preferredLanguage: text('preferred_language'),
    gender: text('gender'),
    email: text('email'),
    emailVerified: boolean('email_verified').notNull().default(false),
    phone: text('phone'),
    phoneVerified: boolean('phone_verified').notNull().default(false),
    /** PHC / modular-crypt string: argon2id for new passwords, imported formats as given. */
    passwordHash: text('password_hash'),
    passwordChangeRequired: boolean('password_change_required').notNull().default(false),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true, mode: 'date' }),
    failedPasswordAttempts: integer('failed_password_attempts').notNull().default(0),
    otpSecret: text('otp_secret'),
    // machine
    machineName: text('machine_name'),
    description: text('description'),
    /** BEARER (opaque) | JWT */
    accessTokenType: text('access_token_type'),
    /** keyed hash of the client secret (see crypto/secrets.ts) */
    secretHash: text('secret_hash'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    // Login names are unique per instance among users that still exist.
    uniqueIndex('users_username_uq').on(sql`lower(${t.username})`).where(sql`${t.state} <> 'REMOVED'`),
    index('users_org_idx').on(t.orgId, t.id),
    index('users_username_prefix_idx').on(sql`lower(${t.username}) text_pattern_ops`),
    index('users_email_idx').on(sql`lower(${t.email})`),
  ],
);

export const userMetadata = pgTable(
  'user_metadata',
  {
    userId: text('user_id').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] })],
);

/** Personal access tokens: only a SHA-256 of the token is stored. */
export const personalAccessTokens = pgTable(
  'personal_access_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('pats_hash_uq').on(t.tokenHash), index('pats_user_idx').on(t.userId)],
);
