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
export const notFound = (key: string, message: string) => new DomainError('not_found', key, message);
export const alreadyExists = (key: string, message: string) => new DomainError('already_exists', key, message);
export const permissionDenied = (message = 'permission denied', key = 'Errors.PermissionDenied') =>
  new DomainError('permission_denied', key, message);
export const unauthenticated = (message = 'authentication required', key = 'Errors.Token.Invalid') =>
  new DomainError('unauthenticated', key, message);
export const failedPrecondition = (key: string, message: string) =>
  new DomainError('failed_precondition', key, message);
export const aborted = (key: string, message: string) => new DomainError('aborted', key, message);
