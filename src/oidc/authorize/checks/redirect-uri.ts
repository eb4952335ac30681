import { redirectUriCompliant } from '../../../domain/application/compliance';
import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import { redirectUriAllowed, redirectUriWellFormed } from '../../redirect-uris';
import type { AuthorizeClient, AuthorizeInput } from './types';

/**
 * The one redirect URI, registered for the client and within its application type's rules: only a
 * URI that passes here ever receives a redirect (an open redirector otherwise).
 */
export function redirectUri({ params, repeated }: AuthorizeInput, client: AuthorizeClient): string {
  const uri = params.get('redirect_uri');
  if (!uri || repeated.includes('redirect_uri')) throw invalidRequest('redirect_uri is missing or repeated');
  if (!redirectUriWellFormed(uri) || !redirectUriAllowed(client, uri, client.oidc.redirectUris)) {
    throw invalidRequest('redirect_uri is not registered for this client');
  }
  if (!redirectUriCompliant(client.oidc, uri)) {
    throw invalidRequest(
      "redirect_uri breaks the rules for this application type (see the application's compliance problems)",
    );
  }
  return uri;
}
