import type { Context } from 'hono';
import type { Deps } from '../deps';
import { JWKS_MAX_AGE_SECONDS, publishedKeys } from '../domain/oidc/web-keys';
import { oidcCtx, oidcEnv } from './env';

/** GET /oauth/v2/keys: the published keys (next, active, retired until their tokens expire). */
export async function keysEndpoint(c: Context, deps: Deps) {
  const keys = await publishedKeys(oidcCtx(deps, 'oidc/keys'), oidcEnv(deps).masterKey);
  c.header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  return c.json({ keys });
}
