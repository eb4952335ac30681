import type { Context } from 'hono';
import type { Deps } from '../deps';
import { startDeviceAuthorization } from '../domain/oidc/device/authorizations';
import { displayUserCode } from '../domain/oidc/device/user-code';
import { unauthorizedClient } from '../domain/oidc/oauth-errors';
import { grantableScopes } from '../domain/oidc/api-clients';
import { isKnownScope, splitScopes } from '../domain/oidc/scopes';
import { DEVICE_PAGE } from '../login/device/paths';
import { authenticateClient } from './client-auth';
import { oidcCtx } from './env';
import { deviceCode } from './grants/device-code';
import { noStore, readFormParams } from './params';
import type { OidcRateLimits } from './rate-limits';

/**
 * POST /oauth/v2/device_authorization (RFC 8628 §3.1, §3.2): rate limit → parse → authenticate the
 * client as the token endpoint would for the device grant → the client must be allowed DEVICE_CODE →
 * start the authorization → the codes and where the user types the user code.
 */
export async function deviceAuthorizationEndpoint(c: Context, deps: Deps, limits: OidcRateLimits) {
  await limits.tokenByAddress(c);
  const params = await readFormParams(c);
  await limits.tokenByClient(c, params);
  const { client } = await authenticateClient(c, deps, params, deviceCode.authMethods);
  if (!client.oidc?.grantTypes.includes('DEVICE_CODE'))
    throw unauthorizedClient('the client may not use the device authorization grant');
  // unknown scopes, and the API audience scope of a client that is not an API client, are dropped
  const scopes = grantableScopes(client, splitScopes(params.get('scope')).filter(isKnownScope));
  const started = await startDeviceAuthorization(oidcCtx(deps, 'oidc/device'), client, scopes);
  const verificationUri = `${deps.config.externalUrl}${DEVICE_PAGE}`;
  const userCode = displayUserCode(started.userCode);
  noStore(c);
  return c.json({
    device_code: started.deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
    expires_in: started.expiresIn,
    interval: started.interval,
  });
}
