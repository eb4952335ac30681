import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * A user's authentication factors besides the password: TOTP, WebAuthn credentials (passkeys and
 * security keys) and one-time codes by email or SMS. A factor is `pending` from its registration
 * until the user proves it (a first TOTP code, a verified WebAuthn attestation) and `ready` after.
 */
export const userFactors = pgTable(
  'user_factors',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    orgId: text('org_id').notNull(),
    /** totp | webauthn | otp_email | otp_sms */
    type: text('type').notNull(),
    /** pending | ready */
    state: text('state').notNull().default('pending'),
    /** a name the user gave (WebAuthn credentials) */
    name: text('name'),
    /** TOTP: the base32 shared secret */
    secret: text('secret'),
    /** TOTP: the last accepted time step, so that a code is usable once */
    lastUsedStep: bigint('last_used_step', { mode: 'number' }),
    /** WebAuthn: the credential id (base64url) */
    credentialId: text('credential_id'),
    /** WebAuthn: the COSE public key (base64url) */
    publicKey: text('public_key'),
    /** WebAuthn: the authenticator's signature counter */
    signCount: bigint('sign_count', { mode: 'number' }).notNull().default(0),
    transports: text('transports').array(),
    /** WebAuthn: a passkey (resident key, user verification: signs in without a password) or a second-factor key */
    passwordless: boolean('passwordless').notNull().default(false),
    /** WebAuthn: whether the credential may be synced (backup eligible): `swk` rather than `hwk` */
    backupEligible: boolean('backup_eligible').notNull().default(false),
    /** WebAuthn: the relying party id the credential belongs to */
    rpId: text('rp_id'),
    /** WebAuthn: the challenge of a pending registration (base64url) */
    challenge: text('challenge'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('user_factors_user_idx').on(t.userId),
    uniqueIndex('user_factors_credential_uq').on(t.credentialId).where(sql`${t.credentialId} is not null`),
    // One TOTP, one email and one SMS factor per user; any number of WebAuthn credentials.
    uniqueIndex('user_factors_single_uq').on(t.userId, t.type).where(sql`${t.type} <> 'webauthn'`),
  ],
);

/** Recovery codes: ten single-use codes, shown once, stored as keyed hashes. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId)],
);
