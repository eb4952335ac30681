import { assertSecurityProfileMet, isFapi2 } from '../../../domain/application/security-profile';
import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/**
 * The client's security profile, checked at every request and not only when the configuration was
 * saved (domain/application/security-profile.ts). FAPI 2.0 §5.3.2.2: the request came through PAR,
 * and it carries a PKCE challenge (S256 is the only method the pkce check accepts). The profile's
 * other request rules hold by its configuration: response type code only (response-type check),
 * `iss` on every response (authorize-response.ts), codes live 60 seconds (domain/oidc/codes.ts).
 */
export const securityProfile: AuthorizeCheck = ({ client, pushed, params }) => {
  if (!isFapi2(client.oidc)) return undefined;
  assertSecurityProfileMet(client.oidc);
  if (!pushed) throw invalidRequest('FAPI 2.0: the request must come through the PAR endpoint (request_uri)');
  if (!params.get('code_challenge')) throw invalidRequest('FAPI 2.0: PKCE is required (code_challenge with S256)');
  return undefined;
};
