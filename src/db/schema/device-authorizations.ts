import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * A device authorization (RFC 8628) from `/oauth/v2/device_authorization` until its device code is
 * exchanged. Only the device code's SHA-256 is stored; the user code is unique among all rows (rows
 * are pruned a day after expiry), so a typed code names exactly one live authorization.
 */
export const deviceAuthorizations = pgTable(
  'device_authorizations',
  {
    id: text('id').primaryKey(),
    deviceCodeHash: text('device_code_hash').notNull(),
    /** 8 characters of the user-code alphabet, without the dash */
    userCode: text('user_code').notNull(),
    clientId: text('client_id').notNull(),
    applicationId: text('application_id').notNull(),
    scopes: text('scopes').array().notNull(),
    /** PENDING | APPROVED | DENIED | USED */
    status: text('status').notNull(),
    /** the hosted login's auth request for this authorization (the newest, when the code was typed twice) */
    authRequestId: text('auth_request_id'),
    /** set on approval: the user, the session that approved and the grant the tokens hang off */
    userId: text('user_id'),
    sessionId: text('session_id'),
    grantId: text('grant_id'),
    /** seconds the device must wait between polls; grows by 5 at each slow_down */
    intervalSeconds: integer('interval_seconds').notNull(),
    lastPolledAt: timestamp('last_polled_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`now()`),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    uniqueIndex('device_authorizations_device_code_idx').on(t.deviceCodeHash),
    uniqueIndex('device_authorizations_user_code_idx').on(t.userCode),
    index('device_authorizations_auth_request_idx').on(t.authRequestId),
    index('device_authorizations_expires_idx').on(t.expiresAt),
  ],
);
