import type { Context } from 'hono';
import { parseAuthorization } from '../authz/authenticate';
import { type Deps, sourceOf } from '../deps';
import { accessTokenUserClaims, namedUserClaims } from '../domain/oidc/claims';
import { checkSenderConstraint, type TokenScheme } from '../domain/oidc/dpop/presentation';
import { DPOP_ALGS } from '../domain/oidc/dpop/proof';
import { oauthCodeOf } from '../domain/oidc/oauth-errors';
import { findActiveAccessToken } from '../domain/oidc/token-lookup';
import { requestUrl } from './dpop';
import { oidcEnv } from './env';
import { safeDescription } from './errors';
import { noStore } from './params';

/**
 * 401 with the challenge of the scheme the token needs (RFC 6750 §3, RFC 9449 §7.1): `DPoP` with the
 * proof algorithms for a DPoP-bound token or a DPoP presentation, else `Bearer`.
 */
function unauthorized(c: Context, text: string, scheme: TokenScheme = 'Bearer', code = 'invalid_token') {
  const description = safeDescription(text);
  noStore(c);
  const algs = scheme === 'DPoP' ? `, algs="${DPOP_ALGS.join(' ')}"` : '';
  c.header('WWW-Authenticate', `${scheme} error="${code}", error_description="${description}"${algs}`);
  return c.json({ error: code, error_description: description }, 401);
}

/**
 * GET and POST /oidc/v1/userinfo: the user's claims for the scopes of a valid access token, and those
 * the authorization request's `claims` parameter asked for at userinfo (OIDC Core §5.5). The token is
 * presented as Bearer, or — when it is DPoP-bound — as DPoP with a proof of its key.
 */
export async function userinfoEndpoint(c: Context, deps: Deps) {
  let presented = parseAuthorization(c.req.header('authorization'));
  if (
    !presented &&
    c.req.method === 'POST' &&
    (c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded')
  ) {
    const form = new URLSearchParams(await c.req.text());
    const token = form.get('access_token');
    if (token) presented = { scheme: 'Bearer', token };
  }
  if (!presented) return unauthorized(c, 'missing bearer token');
  const env = oidcEnv(deps);
  const src = sourceOf(deps);
  const at = await findActiveAccessToken(src, env.masterKey, env.issuer, presented.token);
  if (!at) return unauthorized(c, 'the access token is invalid or expired', presented.scheme);
  try {
    await checkSenderConstraint(src, env.masterKey, at.jkt, {
      ...presented,
      proof: c.req.header('dpop'),
      method: c.req.method,
      url: requestUrl(deps, c),
    });
  } catch (err) {
    const code = oauthCodeOf(err);
    if (!code) throw err;
    return unauthorized(c, (err as Error).message, at.jkt ? 'DPoP' : presented.scheme, code);
  }
  if (!at.scopes.includes('openid')) {
    noStore(c);
    c.header('WWW-Authenticate', `${at.jkt ? 'DPoP' : 'Bearer'} error="insufficient_scope", scope="openid"`);
    return c.json(
      { error: 'insufficient_scope', error_description: 'the token was not issued with scope openid' },
      403,
    );
  }
  const claims = {
    sub: at.userId,
    ...(await accessTokenUserClaims(src, at)),
    ...namedUserClaims(at.user, at.userinfoClaims),
  };
  noStore(c);
  return c.json(claims);
}
