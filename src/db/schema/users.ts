import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { outboxColumns, outboxDueIndex } from './outbox-columns';

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
    /**
     * Where the username must be unique: the organization's id when its login names carry its domain
     * (userLoginMustBeDomain), '' (the whole instance) otherwise and for machine users, whose usernames
     * are client ids. Kept in step with the policy by domain/user/username-scope.ts.
     */
    usernameScope: text('username_scope').notNull().default(''),
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
    /** wrong second-factor codes (TOTP, email/SMS codes, recovery codes) since the last right one */
    failedOtpAttempts: integer('failed_otp_attempts').notNull().default(0),
    /** when the user last chose to set up a second factor later (login policy: MFA set-up may be skipped) */
    mfaInitSkippedAt: timestamp('mfa_init_skipped_at', { withTimezone: true, mode: 'date' }),
    /** imported TOTP secret (v1 import `otpCode`); a TOTP factor of the user is made from it */
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
    // Usernames are unique within their scope (an organization, or the instance) among users that still exist.
    uniqueIndex('users_username_uq').on(t.usernameScope, sql`lower(${t.username})`).where(sql`${t.state} <> 'REMOVED'`),
    index('users_org_idx').on(t.orgId, t.id),
    index('users_username_prefix_idx').on(sql`lower(${t.username}) text_pattern_ops`),
    index('users_email_idx').on(sql`lower(${t.email})`),
    index('users_display_name_idx').on(sql`lower(${t.displayName})`),
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

/**
 * Public keys of machine users for the JWT profile grant. The private key of a server-generated pair
 * is returned once in the key file and never stored.
 */
export const userKeys = pgTable(
  'user_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    /** SPKI PEM */
    publicKey: text('public_key').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('user_keys_user_idx').on(t.userId)],
);

/**
 * One-time codes sent to or returned for a user: EMAIL_VERIFICATION | PHONE_VERIFICATION |
 * INVITATION | PASSWORD_RESET. One live code per kind; a new code replaces the old one. Only a keyed
 * hash of the code is stored (crypto/secrets.ts).
 */
export const userCodes = pgTable(
  'user_codes',
  {
    userId: text('user_id').notNull(),
    kind: text('kind').notNull(),
    codeHash: text('code_hash').notNull(),
    /** where a link in the message points; `{{.Code}}`, `{{.UserID}}`, `{{.OrgID}}` are filled in */
    urlTemplate: text('url_template'),
    /** the address or number the code was issued for */
    target: text('target'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.kind] })],
);

/**
 * The notification outbox: rendered messages written in the same transaction as the code they carry
 * and delivered by a background job (SMTP, or the log without SMTP). Status PENDING | SENT | FAILED.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    /** EMAIL_VERIFICATION | INVITATION | PASSWORD_RESET */
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    ...outboxColumns(),
  },
  (t) => [
    outboxDueIndex('notifications', t),
    index('notifications_user_idx').on(t.userId, t.createdAt),
    index('notifications_recipient_idx').on(sql`lower(${t.recipient})`, t.createdAt),
  ],
);

/**
 * Live (not removed) users per organization, kept by statement-level triggers on `users` (see the
 * user_counts migration) as append-only delta rows, so that concurrent writers never wait on one
 * counter row. ListUsers sums them instead of counting 100,000 rows; a background job folds the
 * deltas of an organization into one row now and then.
 */
export const userCounts = pgTable(
  'user_counts',
  {
    orgId: text('org_id').notNull(),
    live: bigint('live', { mode: 'number' }).notNull(),
  },
  (t) => [index('user_counts_org_idx').on(t.orgId)],
);
