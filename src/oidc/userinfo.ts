import type { Context } from 'hono';
import { parseBearer } from '../authz/authenticate';
import type { Deps } from '../deps';
import { accessTokenUserClaims, namedUserClaims } from '../domain/oidc/claims';
import { findActiveAccessToken } from '../domain/oidc/token-lookup';
import { oidcEnv } from './env';
import { safeDescription } from './errors';
import { noStore } from './params';

function unauthorized(c: Context, text: string) {
  const description = safeDescription(text);
  noStore(c);
  c.header('WWW-Authenticate', `Bearer error="invalid_token", error_description="${description}"`);
  return c.json({ error: 'invalid_token', error_description: description }, 401);
}

/**
 * GET and POST /oidc/v1/userinfo: the user's claims for the scopes of a valid access token, and those
 * the authorization request's `claims` parameter asked for at userinfo (OIDC Core §5.5).
 */
export async function userinfoEndpoint(c: Context, deps: Deps) {
  let token = parseBearer(c.req.header('authorization'));
  if (
    !token &&
    c.req.method === 'POST' &&
    (c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded')
  ) {
    const form = new URLSearchParams(await c.req.text());
    token = form.get('access_token') ?? undefined;
  }
  if (!token) return unauthorized(c, 'missing bearer token');
  const env = oidcEnv(deps);
  const db = deps.database.db;
  const at = await findActiveAccessToken(db, env.masterKey, env.issuer, token);
  if (!at) return unauthorized(c, 'the access token is invalid or expired');
  if (!at.scopes.includes('openid')) {
    noStore(c);
    c.header('WWW-Authenticate', 'Bearer error="insufficient_scope", scope="openid"');
    return c.json(
      { error: 'insufficient_scope', error_description: 'the token was not issued with scope openid' },
      403,
    );
  }
  const claims = {
    sub: at.userId,
    ...(await accessTokenUserClaims(db, at)),
    ...namedUserClaims(at.user, at.userinfoClaims),
  };
  noStore(c);
  return c.json(claims);
}
