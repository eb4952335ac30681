import { DomainError } from '../../errors';

/**
 * One error, one message for an unknown login name, a wrong password, an ambiguous name and a
 * refused bind, so that nobody can probe which names the directory knows.
 */
export const invalidCredentials = () =>
  new DomainError('unauthenticated', 'Errors.IdP.Ldap.InvalidCredentials', 'the username or password is wrong');

/** No server of the provider answered; `cause` keeps each server's reason for the logs. */
export function ldapUnavailable(cause: unknown): DomainError {
  const err = new DomainError(
    'unavailable',
    'Errors.IdP.Ldap.Unavailable',
    'the LDAP directory cannot be reached; retry later',
  );
  err.cause = cause;
  return err;
}

export function serviceBindFailed(cause: unknown): DomainError {
  const err = new DomainError(
    'failed_precondition',
    'Errors.IdP.Ldap.ServiceBindFailed',
    "the LDAP directory refused the provider's service account: its bind DN or bind password is wrong",
  );
  err.cause = cause;
  return err;
}

export function searchFailed(cause: unknown): DomainError {
  const err = new DomainError(
    'failed_precondition',
    'Errors.IdP.Ldap.SearchFailed',
    `the LDAP directory refused the user search; check the provider's base DN and attributes (${
      (cause as Error).message
    })`,
  );
  err.cause = cause;
  return err;
}
