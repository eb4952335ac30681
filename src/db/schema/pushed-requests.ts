import { index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * A pushed authorization request (RFC 9126) between /oauth/v2/par and its one use at the authorization
 * endpoint. Only the SHA-256 of the request_uri is kept: whoever reads the table cannot start the request.
 */
export const pushedRequests = pgTable(
  'pushed_requests',
  {
    /** names the request in events; not the request_uri */
    id: text('id').primaryKey(),
    requestUriHash: text('request_uri_hash').notNull(),
    clientId: text('client_id').notNull(),
    /** the authorization request's parameters as checked at push time (request object resolved) */
    params: jsonb('params').$type<Record<string, string>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** set by the one authorization request that used it; a second use is refused */
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('pushed_requests_uri_hash_uq').on(t.requestUriHash),
    index('pushed_requests_expires_idx').on(t.expiresAt),
  ],
);
