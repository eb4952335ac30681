import { invalidRequest, invalidScope } from '../../../domain/oidc/oauth-errors';
import { grantableScopes } from '../../../domain/oidc/api-clients';
import { isKnownScope, splitScopes } from '../../../domain/oidc/scopes';
import type { AuthorizeCheck } from './types';

/**
 * An OpenID request: scope contains openid; scopes we do not know are dropped, and so is the API
 * audience scope of a client that is not an API client.
 */
export const scope: AuthorizeCheck = ({ params, client }) => {
  const requested = splitScopes(params.get('scope'));
  // §7.1: a missing scope is a malformed request; one without openid is the wrong scope
  if (requested.length === 0) throw invalidRequest('scope is required');
  if (!requested.includes('openid')) throw invalidScope('scope must contain openid');
  return { scopes: grantableScopes(client, requested.filter(isKnownScope)) };
};
