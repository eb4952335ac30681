import type { Context } from 'hono';
import type { Deps } from '../deps';
import { authenticateClient } from './client-auth';
import { oidcEnv } from './env';
import { invalidRequest, unauthorizedClient, unsupportedGrantType } from '../domain/oidc/oauth-errors';
import { tokenRequestDpop } from './dpop';
import { GRANTS } from './grants/index';
import { assertSecurityProfileMet } from '../domain/application/security-profile';
import { noStore, readFormWith } from './params';
import type { OidcRateLimits } from './rate-limits';

/**
 * POST /oauth/v2/token: rate limit (address) → parse → rate limit (client) → pick grant →
 * authenticate client → check grant allowed → check DPoP proof → issue.
 */
export async function tokenEndpoint(c: Context, deps: Deps, limits: OidcRateLimits) {
  await limits.tokenByAddress(c);
  // RFC 8707: `resource` may repeat; every other parameter at most once
  const { params, all } = await readFormWith(c, ['resource']);
  await limits.tokenByClient(c, params);
  const grantType = params.get('grant_type');
  if (!grantType) throw invalidRequest('grant_type is missing');
  const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
  if (!grant) throw unsupportedGrantType(`grant_type ${grantType} is not supported`);
  const sendsClientAuth =
    !!c.req.header('authorization') ||
    params.has('client_id') ||
    params.has('client_secret') ||
    params.has('client_assertion');
  const client =
    grant.clientAuth === 'optional' && !sendsClientAuth
      ? undefined
      : await authenticateClient(c, deps, params, grant.authMethods);
  if (client) assertSecurityProfileMet(client.client.oidc);
  if (client && grant.appGrantType) {
    const allowed = client.client.oidc?.grantTypes ?? [];
    if (!allowed.includes(grant.appGrantType))
      throw unauthorizedClient(`the client may not use grant_type ${grantType}`);
  }
  const dpop = await tokenRequestDpop(c, deps, client);
  const body = await grant.handle({
    c,
    deps,
    env: oidcEnv(deps),
    params,
    resources: all.getAll('resource'),
    client,
    dpop,
  });
  noStore(c);
  return c.json(body);
}
