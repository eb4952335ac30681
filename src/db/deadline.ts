import type postgres from 'postgres';

/**
 * Beyond the statement timeout, how long the client still waits for the server's answer. PostgreSQL
 * starts its timer when the statement arrives and then has to send the cancellation back: a server that
 * answers at all is heard from first, and the statement fails as 57014 on a connection that stays usable.
 */
const ANSWER_GRACE_MS = 1000;

/**
 * How long a request may wait on PostgreSQL (PORTCULLIS_DB_QUERY_TIMEOUT), as postgres.js options; every
 * expiry ends in an error that `isDatabaseDown` knows, so each transport answers unavailable / 503.
 *
 * - Opening a connection (TCP and the start-up exchange): `connect_timeout`, CONNECT_TIMEOUT.
 * - A statement that runs too long, waiting for a row lock included: the server's own `statement_timeout`,
 *   sent at connect, SQLSTATE 57014. Not sent where `statementTimeout` is false: a pooler such as PgBouncer
 *   refuses start-up parameters it does not know (set it on the database role there instead).
 * - A server that stops answering while the TCP connection stays open (a frozen host, a dropped route):
 *   `statement_timeout` never comes back and keepalive does not notice. postgres.js has no timeout of its
 *   own for this, `query.cancel()` needs a new connection to the same silent server, and ending the pool
 *   would fail every healthy query with it; so the driver is patched (patches/postgres+3.4.9.patch) with
 *   `reply_timeout`: a connection owed an answer that hears nothing for that long fails its queries with
 *   REPLY_TIMEOUT and is closed, and the pool opens a new one when it is needed.
 */
export function deadlineOptions(
  timeoutMs: number,
  { statementTimeout }: { statementTimeout: boolean },
): Pick<postgres.Options<{}>, 'connect_timeout' | 'reply_timeout' | 'connection'> {
  return {
    connect_timeout: timeoutMs / 1000,
    reply_timeout: (timeoutMs + ANSWER_GRACE_MS) / 1000,
    ...(statementTimeout ? { connection: { statement_timeout: timeoutMs } } : {}),
  };
}
