import type { BearerResolver } from '../authz/authenticate';
import { loadMasterKey } from '../crypto/keys/master-key';
import type { Deps } from '../deps';
import { checkSenderConstraint } from '../domain/oidc/dpop/presentation';
import { DomainError, unauthenticated } from '../domain/errors';
import { isMachineToken } from '../domain/oidc/m2m/tokens';
import { oauthCodeOf } from '../domain/oidc/oauth-errors';
import { API_AUDIENCE } from '../domain/oidc/scopes';
import { isApiClient } from '../domain/oidc/api-clients';
import { findClient } from '../domain/oidc/clients';
import type { Source } from '../domain/context';
import { type ActiveAccessToken, findActiveAccessToken } from '../domain/oidc/token-lookup';

/**
 * Lets the v2 API accept the server's access tokens (JWT and opaque) as bearer tokens, and DPoP-bound ones
 * only with the DPoP scheme and a proof for the call (RFC 9449 §7). start() installs it for each server
 * (src/wiring.ts lists it), with that server's issuer and master key.
 */
export function oidcBearer(deps: Deps): BearerResolver {
  return async (src, token, request) => {
    const masterKey = loadMasterKey(deps.config);
    const at = await findActiveAccessToken(src, masterKey, deps.config.externalUrl, token);
    if (!at || !(await acceptedByApi(src, at))) return undefined;
    try {
      await checkSenderConstraint(src, masterKey, at.jkt, { ...request, token });
    } catch (err) {
      // a refused presentation is the API's one answer for a token it does not accept; anything else
      // (the database down while recording the proof) keeps its own meaning
      if (!(err instanceof DomainError) || oauthCodeOf(err) === undefined) throw err;
      throw unauthenticated(err.message);
    }
    return { userId: at.userId, clientId: at.clientId, scopes: at.scopes };
  };
}

/**
 * The API takes a machine user's own token (client credentials, JWT profile), or a user's access
 * token whose audience names the API (API_AUDIENCE_SCOPE) issued to a client that is an API client
 * now (api-clients.ts): a token that a relying party got for itself is not accepted, however
 * privileged its user, nor one issued before an instance owner withdrew the client's API access.
 */
async function acceptedByApi(src: Source, at: ActiveAccessToken): Promise<boolean> {
  if (isMachineToken(at)) return true;
  return at.audience.includes(API_AUDIENCE) && isApiClient(await findClient(src, at.clientId));
}
