import { DomainError, type DomainErrorKind } from '../errors';
import { OAUTH_KEY_PREFIX } from './env';

/**
 * Domain rules of the protocol fail with the OAuth error code in the key (`OAuth.invalid_grant`),
 * so that the OAuth transport renders the right code and status and the Connect one a fitting code.
 */
function oauthError(code: string, kind: DomainErrorKind) {
  return (description: string) => new DomainError(kind, `${OAUTH_KEY_PREFIX}${code}`, description);
}

export const invalidGrant = oauthError('invalid_grant', 'failed_precondition');
export const invalidScope = oauthError('invalid_scope', 'invalid_argument');
export const invalidRequest = oauthError('invalid_request', 'invalid_argument');
export const invalidClient = oauthError('invalid_client', 'unauthenticated');
export const unauthorizedClient = oauthError('unauthorized_client', 'permission_denied');
export const accessDenied = oauthError('access_denied', 'permission_denied');
export const invalidTarget = oauthError('invalid_target', 'invalid_argument');
