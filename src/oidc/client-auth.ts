import type { Context } from 'hono';
import { verifySecret } from '../crypto/secrets';
import { type Deps, sourceOf } from '../deps';
import { CLIENT_ASSERTION_TYPE, verifyClientAssertion } from '../domain/oidc/client-assertion';
import type { OidcClient } from '../domain/oidc/clients';
import { resolveClient } from '../domain/oidc/client-metadata/resolve';
import { findMachineClient } from '../domain/oidc/m2m/machines';
import { invalidClient, invalidRequest } from '../domain/oidc/oauth-errors';
import { clientSource } from './env';
import type { Params } from './params';
import { FAPI2_ALGS, isFapi2 } from '../domain/application/security-profile';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';

export interface AuthenticatedClient {
  client: OidcClient;
  method: ClientAuthMethod;
}

/** Which registered auth_method_type accepts which presented method. */
const ACCEPTS: Record<string, ClientAuthMethod[]> = {
  BASIC: ['client_secret_basic', 'client_secret_post'],
  POST: ['client_secret_post', 'client_secret_basic'],
  NONE: ['none'],
  PRIVATE_KEY_JWT: ['private_key_jwt'],
};

/** The Basic credentials of an Authorization header (id and secret percent-decoded, RFC 6749 §2.3.1). */
export function parseBasic(header: string | undefined): { id: string; secret: string } | undefined | 'malformed' {
  if (!header || !/^basic\s/i.test(header)) return undefined;
  try {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) return 'malformed';
    return {
      id: decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return 'malformed';
  }
}

/**
 * Client authentication shared by the token, introspection and revocation endpoints (spec §5.1).
 * Exactly one method per request (two → invalid_request). Unknown client, wrong secret, a method the
 * endpoint or the client does not accept → invalid_client (401).
 */
export async function authenticateClient(
  c: Context,
  deps: Deps,
  params: Params,
  allowed: ClientAuthMethod[],
): Promise<AuthenticatedClient> {
  const basic = parseBasic(c.req.header('authorization'));
  if (basic === 'malformed') throw invalidClient('malformed Basic authorization header');
  const bodySecret = params.get('client_secret');
  const assertion = params.get('client_assertion');
  const assertionType = params.get('client_assertion_type');
  const presented = [basic, bodySecret !== undefined, assertion !== undefined || assertionType !== undefined].filter(
    Boolean,
  ).length;
  if (presented > 1) throw invalidRequest('use exactly one client authentication method');

  let method: ClientAuthMethod;
  let clientId: string | undefined;
  if (basic) {
    method = 'client_secret_basic';
    clientId = basic.id;
    const bodyId = params.get('client_id');
    if (bodyId !== undefined && bodyId !== basic.id)
      throw invalidRequest('client_id differs from the Basic credentials');
  } else if (bodySecret !== undefined) {
    method = 'client_secret_post';
    clientId = params.get('client_id');
  } else if (assertion !== undefined || assertionType !== undefined) {
    method = 'private_key_jwt';
    if (assertionType !== CLIENT_ASSERTION_TYPE)
      throw invalidRequest(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`);
    if (!assertion) throw invalidRequest('client_assertion is missing');
    clientId = params.get('client_id') ?? issOf(assertion);
  } else {
    method = 'none';
    clientId = params.get('client_id');
  }
  if (!clientId) throw invalidClient('client authentication is missing');
  if (!allowed.includes(method)) throw invalidClient(`client authentication method ${method} is not accepted here`);

  // A machine user is a client too (client credentials, revocation): client id = its username. A
  // metadata document that cannot be used says why (invalid_client).
  const found = await resolveClient(clientSource(deps), clientId);
  const client = found.client ?? (await findMachineClient(sourceOf(deps), clientId));
  if (!client) throw invalidClient(found.problem ?? 'unknown or inactive client');
  if (!client.active) throw invalidClient('unknown or inactive client');
  if (!(ACCEPTS[client.authMethod] ?? []).includes(method)) {
    throw invalidClient(`the client is registered for ${client.authMethod}, not ${method}`);
  }
  if (method === 'client_secret_basic' || method === 'client_secret_post') {
    const secret = basic ? basic.secret : (bodySecret ?? '');
    if (!verifySecret(client.secretHash, secret)) throw invalidClient('client authentication failed');
  } else if (method === 'private_key_jwt') {
    const issuer = deps.config.externalUrl;
    const endpoint = issuer + c.req.path;
    // FAPI 2.0 §5.3.2.1: only the issuer, as a string, and only the profile's algorithms.
    const fapi = isFapi2(client.oidc);
    const reason = await verifyClientAssertion(
      deps.database.db,
      client,
      assertion!,
      fapi ? [issuer] : [issuer, `${issuer}/`, endpoint, `${issuer}/oauth/v2/token`],
      deps.config.assertionMaxLifetimeS,
      fapi ? { algorithms: FAPI2_ALGS, singleAudience: true } : {},
    );
    if (reason) throw invalidClient(reason);
  }
  return { client, method };
}

function issOf(jwt: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}
