import type { Context } from 'hono';
import type { Deps } from '../deps';
import { pushAuthorizationRequest } from '../domain/oidc/pushed-requests';
import { runChecks, trustedRequest } from './authorize/checks';
import { resolvePushedInput } from './authorize/request-parameters';
import { authenticateClient } from './client-auth';
import { oidcCtx } from './env';
import { noStore, readParams } from './params';
import type { OidcRateLimits } from './rate-limits';

/** Client authentication travels in the push, never in the stored request. */
const CLIENT_AUTH_PARAMS = ['client_secret', 'client_assertion', 'client_assertion_type'];

/**
 * POST /oauth/v2/par (RFC 9126): authenticate the client as at the token endpoint (a public client
 * names itself with client_id), then every rule of the authorization endpoint, so that a bad request
 * fails here as JSON instead of later in the browser; store the parameters and answer their
 * request_uri. The token endpoint's rate limits count these requests as well: both take client
 * credentials, and guesses at them must not get a second budget.
 */
export async function parEndpoint(c: Context, deps: Deps, limits: OidcRateLimits) {
  await limits.tokenByAddress(c);
  const { params, repeated } = await readParams(c, { formOnly: true });
  await limits.tokenByClient(c, params);
  const { client } = await authenticateClient(c, deps, params, [
    'client_secret_basic',
    'client_secret_post',
    'private_key_jwt',
    'none',
  ]);
  const form = new Map(params);
  for (const name of CLIENT_AUTH_PARAMS) form.delete(name);
  form.set('client_id', client.clientId);
  const input = await resolvePushedInput({ c, deps, params: form, repeated });
  const req = await trustedRequest(input);
  await runChecks(req);
  const pushed = await pushAuthorizationRequest(oidcCtx(deps, 'oidc/par'), {
    clientId: client.clientId,
    orgId: client.orgId,
    params: Object.fromEntries(req.params),
  });
  noStore(c);
  return c.json({ request_uri: pushed.requestUri, expires_in: pushed.expiresIn }, 201);
}
