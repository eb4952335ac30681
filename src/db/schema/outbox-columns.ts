import { type SQL, sql } from 'drizzle-orm';
import { index, integer, type PgColumn, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The columns every outbox table ends with, read and written by the outbox primitive
 * (src/domain/outbox/): a row is PENDING until its delivery succeeds (SENT) or its attempts run out
 * (FAILED). An outbox table is its own columns (what to deliver, to whom) followed by these.
 */
export function outboxColumns() {
  return {
    /** PENDING | SENT | FAILED */
    status: text('status').notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** a due row is claimed from this time on; a claim pushes it past the lease, a failure past the back-off */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  };
}

/** The small index the claim reads: due times of the PENDING rows only. */
export function outboxDueIndex(table: string, t: { status: PgColumn; nextAttemptAt: PgColumn }) {
  const pending: SQL = sql`${t.status} = 'PENDING'`;
  return index(`${table}_pending_idx`).on(t.nextAttemptAt).where(pending);
}
