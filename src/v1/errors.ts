import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { asDomainError, DomainError, type DomainErrorKind, LimitError } from '../domain/errors';

/** gRPC status codes and the HTTP status grpc-gateway answers them with (v1 clients expect both). */
const GRPC: Record<DomainErrorKind, { code: number; http: ContentfulStatusCode }> = {
  invalid_argument: { code: 3, http: 400 },
  deadline_exceeded: { code: 4, http: 504 },
  not_found: { code: 5, http: 404 },
  already_exists: { code: 6, http: 409 },
  permission_denied: { code: 7, http: 403 },
  resource_exhausted: { code: 8, http: 429 },
  failed_precondition: { code: 9, http: 400 },
  aborted: { code: 10, http: 409 },
  internal: { code: 13, http: 500 },
  unavailable: { code: 14, http: 503 },
  unauthenticated: { code: 16, http: 401 },
};

/**
 * Stable error ids of v1 messages (`ID=<id> Message=<key>`). Keys without an entry get an id derived
 * from the key itself, so the same error always carries the same id.
 */
const ERROR_IDS: Record<string, string> = {
  'Errors.Org.AlreadyExisting': 'ORG-1001',
  'Errors.Org.NotFound': 'ORG-1002',
  'Errors.Org.Invalid': 'ORG-1003',
  'Errors.User.AlreadyExisting': 'USER-2001',
  'Errors.User.Invalid': 'USER-2002',
  'Errors.User.Email.Invalid': 'USER-2003',
  'Errors.User.Username.Invalid': 'USER-2004',
  'Errors.User.Phone.Invalid': 'USER-2007',
  'Errors.User.MFA.OTP.Invalid': 'USER-2008',
  'Errors.User.Password.HashUnsupported': 'USER-2005',
  'Errors.User.Password.Invalid': 'USER-2006',
  'Errors.Import.Timeout': 'IMPORT-3001',
  'Errors.Import.NotSupported': 'IMPORT-3002',
  'Errors.Import.Failed': 'IMPORT-3003',
};

export function errorId(key: string): string {
  const known = ERROR_IDS[key];
  if (known) return known;
  let h = 0;
  for (const ch of key) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return `V1-${h.toString(36).toUpperCase().padStart(6, '0').slice(-6)}`;
}

/** The message text of import errors[] entries: `ID=<error_code> Message=<error_key>`. */
export function v1Message(key: string): string {
  return `ID=${errorId(key)} Message=${key}`;
}

/**
 * The one mapping from domain errors to v1 JSON errors, shaped like grpc-gateway's
 * `{code, message, details}`. Unexpected errors are logged by the caller and answered without detail.
 */
function v1ErrorBody(err: DomainError): { status: ContentfulStatusCode; body: V1Error } {
  const g = GRPC[err.kind];
  return {
    status: g.http,
    body: { code: g.code, message: err.message, details: [{ id: errorId(err.key), message: err.key }] },
  };
}

export interface V1Error {
  code: number;
  message: string;
  details: { id: string; message: string }[];
}

/**
 * Renders any error in the v1 shape: domain errors by the table above (a database outage is
 * `unavailable`, 503 code 14, see asDomainError); anything unexpected is logged and answered 500
 * code 13 without detail.
 */
export function renderV1Error(c: Context, thrown: unknown, log: { error: (o: object, m: string) => void }): Response {
  const err = asDomainError(thrown);
  if (!err) {
    log.error({ err: thrown, path: c.req.path }, 'unexpected error in v1 route');
    return c.json({ code: 13, message: 'internal error', details: [] }, 500);
  }
  const { status, body } = v1ErrorBody(err);
  if (err instanceof LimitError) c.header('Retry-After', String(err.retryAfterSeconds));
  return c.json(body, status);
}
