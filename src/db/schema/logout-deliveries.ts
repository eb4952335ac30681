import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Outbox of OpenID Connect Back-Channel Logout: one row per client to tell that a session ended,
 * written in the transaction that ends the session. The logout token is signed at each delivery
 * attempt (fresh `iat`/`exp`, same `jti` = id), so a retry after minutes still carries a token the
 * client accepts, and signing needs no key inside the ending transaction.
 */
export const logoutDeliveries = pgTable(
  'logout_deliveries',
  {
    /** also the logout token's `jti` */
    id: text('id').primaryKey(),
    applicationId: text('application_id').notNull(),
    clientId: text('client_id').notNull(),
    uri: text('uri').notNull(),
    /** `sub` and `sid` of the logout token */
    userId: text('user_id').notNull(),
    sessionId: text('session_id').notNull(),
    /** organization of the session, the resource owner of the delivery's events */
    orgId: text('org_id').notNull(),
    /** PENDING | SENT | FAILED */
    status: text('status').notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('logout_deliveries_pending_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'PENDING'`),
    index('logout_deliveries_session_idx').on(t.sessionId),
  ],
);
