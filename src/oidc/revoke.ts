import type { Context } from 'hono';
import type { Deps } from '../deps';
import { revokeToken } from '../domain/oidc/revoke';
import { authenticateClient } from './client-auth';
import { oidcCtx, oidcEnv } from './env';
import { invalidRequest } from '../domain/oidc/oauth-errors';
import { noStore, readFormParams } from './params';

/** POST /oauth/v2/revoke (RFC 7009, spec §3.1): 200 whether or not the token was known. */
export async function revokeEndpoint(c: Context, deps: Deps) {
  const params = await readFormParams(c);
  const { client } = await authenticateClient(c, deps, params, [
    'client_secret_basic',
    'client_secret_post',
    'none',
    'private_key_jwt',
  ]);
  const token = params.get('token');
  if (!token) throw invalidRequest('token is missing');
  await revokeToken(oidcCtx(deps, 'oidc/revoke'), oidcEnv(deps), token, client.clientId, params.get('token_type_hint'));
  noStore(c);
  return c.body(null, 200);
}
