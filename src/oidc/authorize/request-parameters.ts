import { PAR_REQUEST_URI_PREFIX, usePushedRequest } from '../../domain/oidc/pushed-requests';
import { invalidRequest, invalidRequestObject, requestUriNotSupported } from '../../domain/oidc/oauth-errors';
import { verifyRequestObject } from '../../domain/oidc/request-object';
import { oidcCtx } from '../env';
import type { Params } from '../params';
import { client as clientCheck } from './checks/client';
import type { AuthorizeInput } from './checks/types';
import { sourceOf } from '../../deps';

/**
 * The parameters the authorization endpoint acts on. A `request_uri` (only the URNs our PAR endpoint
 * hands out; URLs are never fetched) stands for the parameters pushed with it, and the query's other
 * parameters are ignored (RFC 9126 §4). A `request` object is verified and its claims override the
 * query's (RFC 9101 §6.3). Runs before the redirect URI is known good, so its errors are an error page.
 */
export async function resolveAuthorizeInput(input: AuthorizeInput): Promise<AuthorizeInput> {
  const requestUri = input.params.get('request_uri');
  if (requestUri === undefined) return withRequestObject(input);
  if (input.params.has('request')) throw invalidRequest('send request or request_uri, not both');
  if (input.repeated.includes('request_uri')) throw invalidRequest('parameter repeated: request_uri');
  if (!requestUri.startsWith(PAR_REQUEST_URI_PREFIX)) {
    throw requestUriNotSupported('only request_uri values from the PAR endpoint are accepted; URLs are not fetched');
  }
  const client = await clientCheck(input);
  const pushed = await usePushedRequest(oidcCtx(input.deps, 'oidc/authorize'), {
    requestUri,
    clientId: client.clientId,
    orgId: client.orgId,
  });
  const params: Params = new Map(Object.entries(pushed));
  params.set('client_id', client.clientId);
  // only the pushed parameters count: a resource on the query beside the request_uri is ignored too
  return { ...input, params, all: undefined, repeated: [], pushed: true };
}

/**
 * The pushed authorization request (POST /oauth/v2/par), its client authenticated: a request object is
 * resolved as at the authorization endpoint; a request_uri cannot be pushed (RFC 9126 §2.1).
 */
export function resolvePushedInput(input: AuthorizeInput): Promise<AuthorizeInput> {
  if (input.params.has('request_uri')) throw invalidRequest('request_uri cannot be pushed');
  // the pushed parameters are stored one value each: several resources would silently become one
  if (input.repeated.includes('resource')) throw invalidRequest('resource may be pushed once per request');
  return withRequestObject({ ...input, pushed: true });
}

async function withRequestObject(input: AuthorizeInput): Promise<AuthorizeInput> {
  const jwt = input.params.get('request');
  if (jwt === undefined) return input;
  const client = await clientCheck(input);
  const claims = await verifyRequestObject(client, jwt, {
    src: sourceOf(input.deps),
    issuer: input.deps.config.externalUrl,
    maxLifetimeS: input.deps.config.assertionMaxLifetimeS,
  });
  mustMatch(claims, input.params, 'client_id');
  mustMatch(claims, input.params, 'response_type');
  const params: Params = new Map(input.params);
  params.delete('request');
  for (const [name, value] of Object.entries(claims)) params.set(name, value);
  return { ...input, params };
}

/** client_id and response_type, when both the object and the request carry them, are the same. */
function mustMatch(claims: Record<string, string>, params: Params, name: string) {
  const outside = params.get(name);
  if (claims[name] !== undefined && outside !== undefined && claims[name] !== outside) {
    throw invalidRequestObject(`${name} in the request object differs from the request's`);
  }
}
