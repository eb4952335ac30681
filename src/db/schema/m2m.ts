import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * `jti`s of JWT-profile assertions (machine user keys) already accepted, kept until the assertion
 * expires: a second use is a replay. Pruned by the m2m cleanup job.
 */
export const m2mUsedAssertions = pgTable(
  'm2m_used_assertions',
  {
    /** `<user id>:<jti>` */
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('m2m_used_assertions_expires_idx').on(t.expiresAt)],
);

/**
 * Revoked machine access tokens. Tokens of the client credentials and JWT profile grants are
 * self-contained (no row is written when they are issued), so a revocation is the only thing stored;
 * the row lives until the token would have expired anyway.
 */
export const m2mRevokedTokens = pgTable(
  'm2m_revoked_tokens',
  {
    /** the token's `jti` */
    jti: text('jti').primaryKey(),
    userId: text('user_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('m2m_revoked_tokens_expires_idx').on(t.expiresAt)],
);

/**
 * DPoP proofs (RFC 9449 §11.1) already accepted, as `<jkt>:<jti>`, kept until the proof's `iat`
 * window has passed: a second use on any replica is a replay. Pruned by the m2m cleanup job.
 */
export const dpopUsedProofs = pgTable(
  'dpop_used_proofs',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('dpop_used_proofs_expires_idx').on(t.expiresAt)],
);
