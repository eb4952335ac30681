import { invalidRequest, unauthorizedClient } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/** A JWK SHA-256 thumbprint (RFC 7638): 32 bytes, base64url. */
const JKT = /^[A-Za-z0-9_-]{43}$/;

/**
 * RFC 9449 §10 `dpop_jkt`: the client names the key it will prove at the token endpoint, and the code
 * is bound to it, so a code intercepted on its way back cannot be redeemed with another key.
 */
export const dpopJkt: AuthorizeCheck = ({ params }) => {
  const jkt = params.get('dpop_jkt');
  if (jkt === undefined) return undefined;
  if (!JKT.test(jkt)) throw invalidRequest('dpop_jkt must be a base64url SHA-256 JWK thumbprint');
  return { dpopJkt: jkt };
};

/**
 * An application with dpopBoundAccessTokens gets its access tokens only from the token endpoint with a
 * proof: an access token in the authorization response (`id_token token`) could not be bound.
 */
export const dpopOnlyCode: AuthorizeCheck = ({ client, responseType }) => {
  if (client.oidc.dpopBoundAccessTokens && responseType.split(' ').includes('token'))
    throw unauthorizedClient(
      'this client gets DPoP-bound access tokens from the token endpoint only (response_type code)',
    );
  return undefined;
};
