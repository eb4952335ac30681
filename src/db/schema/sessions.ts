import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** When each factor was last checked in a session (ISO time), and what the check proved. */
export type FactorChecks = Partial<
  Record<SessionFactor, { at: string; userVerified?: boolean; synced?: boolean; idpId?: string; authRequest?: string }>
>;
export type SessionFactor = 'password' | 'totp' | 'otpEmail' | 'otpSms' | 'webAuthN' | 'recoveryCode' | 'idpIntent';

/** Challenges a session has issued and not yet seen answered (WebAuthn, email/SMS codes). */
export type SessionChallenges = {
  webAuthN?: {
    challenge: string;
    rpId: string;
    userVerification: 'required' | 'preferred' | 'discouraged';
    expiresAt: string;
  };
  otpEmail?: { codeHash: string; expiresAt: string };
  otpSms?: { codeHash: string; expiresAt: string };
};

/**
 * Login sessions. The hosted login finds a browser's sessions by the hash of its user-agent cookie
 * (`user_agent_hash`); custom login UIs hold the session token (`token_hash`). A terminated session
 * keeps its row (so its tokens stay explainable) but is never used again.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    /** SHA-256 of the session token handed to API callers */
    tokenHash: text('token_hash').notNull(),
    /** SHA-256 of the browser's user-agent cookie, null for API-created sessions */
    userAgentHash: text('user_agent_hash'),
    userId: text('user_id'),
    orgId: text('org_id'),
    /** last successful password check */
    passwordCheckedAt: timestamp('password_checked_at', { withTimezone: true, mode: 'date' }),
    /** authentication methods (`pwd`, ...) */
    amr: text('amr').array().notNull().default(sql`'{}'::text[]`),
    /** every factor checked in this session and when (the password's time is also `password_checked_at`) */
    factorChecks: jsonb('factor_checks').$type<FactorChecks>().notNull().default({}),
    /** open challenges (WebAuthn, email and SMS codes) */
    challenges: jsonb('challenges').$type<SessionChallenges>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    terminatedAt: timestamp('terminated_at', { withTimezone: true, mode: 'date' }),
    /** the browser's User-Agent header when the session was created (at most 512 characters) */
    userAgent: text('user_agent'),
    /** the address of the connection that created it */
    ipAddress: text('ip_address'),
    /** the client whose sign-in created it (the hosted login's auth request) */
    clientId: text('client_id'),
    sequence: integer('sequence').notNull().default(0),
  },
  (t) => [
    uniqueIndex('sessions_token_hash_uq').on(t.tokenHash),
    index('sessions_user_agent_idx').on(t.userAgentHash),
    index('sessions_user_idx').on(t.userId),
  ],
);
