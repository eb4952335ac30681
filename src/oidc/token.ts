import type { Context } from 'hono';
import type { Deps } from '../deps';
import { authenticateClient } from './client-auth';
import { oidcEnv } from './env';
import { invalidRequest, unauthorizedClient, unsupportedGrantType } from './errors';
import { GRANTS } from './grants/index';
import { noStore, readForm } from './params';

/** POST /oauth/v2/token: parse → pick grant → authenticate client → check grant allowed → issue. */
export async function tokenEndpoint(c: Context, deps: Deps) {
  const params = await readForm(c);
  const grantType = params.get('grant_type');
  if (!grantType) throw invalidRequest('grant_type is missing');
  const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
  if (!grant) throw unsupportedGrantType(`grant_type ${grantType} is not supported`);
  const sendsClientAuth =
    !!c.req.header('authorization') || params.has('client_id') || params.has('client_secret') || params.has('client_assertion');
  const client =
    grant.clientAuth === 'optional' && !sendsClientAuth ? undefined : await authenticateClient(c, deps, params, grant.authMethods);
  if (client && grant.appGrantType) {
    const allowed = client.client.oidc?.grantTypes ?? [];
    if (!allowed.includes(grant.appGrantType)) throw unauthorizedClient(`the client may not use grant_type ${grantType}`);
  }
  const body = await grant.handle({ c, deps, env: oidcEnv(deps), params, client });
  noStore(c);
  return c.json(body);
}
