import { sqlErrorIn } from '../db/sql-error';

/**
 * Typed domain errors. Transports never build error responses themselves: one mapping turns these
 * into Connect codes (api/interceptors/errors.ts), one into OAuth errors (oidc/errors.ts) and one into
 * v1 JSON errors (v1/errors.ts).
 */
export type DomainErrorKind =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'unauthenticated'
  | 'failed_precondition'
  | 'aborted'
  | 'resource_exhausted'
  | 'deadline_exceeded'
  | 'unavailable'
  | 'internal';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    /** stable key such as `Errors.User.NotFound`, used by v1 messages and localisation */
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

export const invalidArgument = (key: string, message: string) => new DomainError('invalid_argument', key, message);

// Messages of invalid input start with the API field they concern ("username must not …",
// "checks.user needs …", "metadata[2].value is required"); these words start sentences instead.
const FIELD = /^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?)*)(?::| )/;
const NOT_FIELDS = new Set([
  'the',
  'a',
  'an',
  'this',
  'that',
  'these',
  'it',
  'no',
  'only',
  'one',
  'each',
  'every',
  'at',
  'both',
  'too',
  'unknown',
  'invalid',
]);

/** The request field an invalid_argument error concerns, read off its message; undefined for others. */
export function fieldOf(err: DomainError): string | undefined {
  if (err.kind !== 'invalid_argument') return undefined;
  const m = FIELD.exec(err.message);
  return m && !NOT_FIELDS.has(m[1].toLowerCase()) ? m[1] : undefined;
}
export const notFound = (key: string, message: string) => new DomainError('not_found', key, message);
export const alreadyExists = (key: string, message: string) => new DomainError('already_exists', key, message);
export const permissionDenied = (message = 'permission denied', key = 'Errors.PermissionDenied') =>
  new DomainError('permission_denied', key, message);
export const unauthenticated = (message = 'authentication required', key = 'Errors.Token.Invalid') =>
  new DomainError('unauthenticated', key, message);
export const failedPrecondition = (key: string, message: string) =>
  new DomainError('failed_precondition', key, message);
export const aborted = (key: string, message: string) => new DomainError('aborted', key, message);

/** A limit was reached; `retryAfterSeconds` becomes the Retry-After header on every transport. */
export class LimitError extends DomainError {
  constructor(
    key: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('resource_exhausted', key, message);
  }
}

/**
 * Connection failures of the database drivers (postgres.js, node's sockets), PostgreSQL's "shutting
 * down / starting up", and a server that turned read-only under us (25006: a primary demoted, or a standby
 * reached during a failover) — all of them pass once the pool reaches the primary again. So do the ends
 * of PORTCULLIS_DB_QUERY_TIMEOUT (src/db/deadline.ts): a server that did not answer in time (REPLY_TIMEOUT)
 * and a statement it cancelled (57014: our statement_timeout, or an operator's pg_cancel_backend — the
 * import, which sets a deadline of its own, reads 57014 as its timeout before it gets here).
 */
const DATABASE_DOWN = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'CONNECTION_DESTROYED',
  'REPLY_TIMEOUT',
  '57014',
  '08000',
  '08003',
  '08006',
  '25006',
  '57P01',
  '57P02',
  '57P03',
]);

/** The database cannot be reached (the error or one of its causes is a connection failure). */
export function isDatabaseDown(err: unknown): boolean {
  return sqlErrorIn(err, (code) => DATABASE_DOWN.has(code)) !== undefined;
}

/**
 * What a thrown error means to the caller, for the transports' renderers; undefined for a fault of the
 * server (which the renderer logs and answers without detail).
 *
 * - A value the database refused (SQLSTATE class 22: a number out of its column's range, a NUL byte
 *   or an invalid character in text) is the caller's bad input, not a server fault: every transport
 *   answers it as invalid_argument and none logs the failed statement. The input guard at the
 *   boundary catches most such values first and names the field; this is the safety net behind it.
 * - A database that cannot be reached is `unavailable` (retry later) on every transport, never an
 *   internal error: Connect `unavailable`, OAuth 503 `temporarily_unavailable`, v1 503 code 14.
 */
export function asDomainError(err: unknown): DomainError | undefined {
  if (err instanceof DomainError) return err;
  if (sqlErrorIn(err, (code) => code.startsWith('22'))) {
    return invalidArgument(
      'Errors.Invalid.Value',
      'a value is out of range or holds characters that cannot be stored (such as NUL)',
    );
  }
  if (isDatabaseDown(err))
    return new DomainError('unavailable', 'Errors.Database.Unavailable', 'the database is unavailable; retry later');
  return undefined;
}
