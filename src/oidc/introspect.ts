import type { Context } from 'hono';
import { type Deps, sourceOf } from '../deps';
import { accessTokenUserClaims } from '../domain/oidc/claims';
import type { OidcClient } from '../domain/oidc/clients';
import { MACHINE_CLIENT_TYPE } from '../domain/oidc/m2m/machines';
import { resourceAudienceOf } from '../domain/oidc/resources';
import { findActiveRefreshToken } from '../domain/oidc/refresh';
import { findActiveAccessToken } from '../domain/oidc/token-lookup';
import { authenticateClient } from './client-auth';
import { oidcEnv } from './env';
import { invalidClient, invalidRequest, oauthCodeOf } from '../domain/oidc/oauth-errors';
import { noStore, readFormParams } from './params';

/**
 * POST /oauth/v2/introspect (spec §2.6, RFC 7662): Basic or private_key_jwt only. `active` is true
 * only for an active token whose audience contains the caller (its client id or its project, or their
 * resource URIs).
 */
export async function introspectEndpoint(c: Context, deps: Deps) {
  const params = await readFormParams(c);
  // §7.3: at introspection every failed client authentication (two methods, a wrong assertion type…)
  // is 401 invalid_client, not the token endpoint's invalid_request.
  const { client: caller } = await authenticateClient(c, deps, params, [
    'client_secret_basic',
    'private_key_jwt',
  ]).catch((err) => {
    throw oauthCodeOf(err) === 'invalid_request' ? invalidClient(err.message) : err;
  });
  const token = params.get('token');
  if (!token) throw invalidRequest('token is missing');
  noStore(c);
  const env = oidcEnv(deps);
  const src = sourceOf(deps);
  const { db } = src;
  const at = await findActiveAccessToken(src, env.masterKey, env.issuer, token);
  if (!at) {
    // A refresh token is shown only to the client it was issued to (RFC 7662 §2.2).
    const rt = await findActiveRefreshToken(db, token);
    if (!rt || rt.clientId !== caller.clientId) return c.json({ active: false });
    return c.json({
      active: true,
      token_type: 'refresh_token',
      scope: rt.scopes.join(' '),
      client_id: rt.clientId,
      sub: rt.userId,
      exp: Math.floor(rt.expiresAt.getTime() / 1000),
      iat: Math.floor(rt.createdAt.getTime() / 1000),
      iss: env.issuer,
      ...(rt.jkt ? { cnf: { jkt: rt.jkt } } : {}),
    });
  }
  if (!inAudience(at.audience, caller)) return c.json({ active: false });
  const body: Record<string, unknown> = {
    active: true,
    scope: at.scopes.join(' '),
    client_id: at.clientId,
    // RFC 9449 §6.2: a DPoP-bound token is introspected with its type and key thumbprint
    token_type: at.jkt ? 'DPoP' : 'Bearer',
    exp: Math.floor(at.expiresAt.getTime() / 1000),
    iat: Math.floor(at.issuedAt.getTime() / 1000),
    nbf: Math.floor(at.issuedAt.getTime() / 1000),
    sub: at.userId,
    aud: at.audience,
    iss: env.issuer,
    jti: at.id,
    username: `${at.user.username}@${at.user.orgDomain}`,
  };
  if (at.actorUserId) body.act = { sub: at.actorUserId };
  if (at.jkt) body.cnf = { jkt: at.jkt };
  Object.assign(body, await accessTokenUserClaims(src, at, caller));
  return c.json(body);
}

/**
 * Client ids and audience values never stand for each other across kinds: an application matches by
 * its client id or its project, a machine user only by its own user id — never by a project's id,
 * whatever its username looks like.
 */
function inAudience(audience: string[], caller: OidcClient): boolean {
  if (caller.type === MACHINE_CLIENT_TYPE) return audience.includes(caller.applicationId);
  if (audience.includes(caller.clientId) || (!!caller.projectId && audience.includes(caller.projectId))) return true;
  // tokens issued for resource indicators (RFC 8707) name the API by its resource URI or project URN
  return resourceAudienceOf(caller).some((a) => audience.includes(a));
}
