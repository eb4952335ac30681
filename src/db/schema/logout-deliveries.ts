import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { outboxColumns, outboxDueIndex } from './outbox-columns';

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
    ...outboxColumns(),
  },
  (t) => [outboxDueIndex('logout_deliveries', t), index('logout_deliveries_session_idx').on(t.sessionId)],
);
