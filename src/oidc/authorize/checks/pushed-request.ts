import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/**
 * "PAR required" (RFC 9126 §5): the client's requests come only through /oauth/v2/par, so that nobody
 * between the client and the browser can change them. A plain request is refused.
 */
export const pushedRequest: AuthorizeCheck = ({ client, pushed }) => {
  if (client.oidc.requirePushedAuthorizationRequests && !pushed) {
    throw invalidRequest('this client must push its authorization requests to the PAR endpoint (request_uri)');
  }
  return undefined;
};
