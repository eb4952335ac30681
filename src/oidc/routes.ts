import { type Context, Hono } from 'hono';
import type { Deps } from '../deps';
import { authorizeEndpoint, callbackEndpoint } from './authorize';
import { registerOidcBearer } from './bearer';
import { discoveryEndpoint } from './discovery';
import { endSessionEndpoint } from './end-session';
import { renderOAuthError } from './errors';
import { introspectEndpoint } from './introspect';
import './jobs';
import { keysEndpoint } from './keys';
import { revokeEndpoint } from './revoke';
import { tokenEndpoint } from './token';
import { userinfoEndpoint } from './userinfo';

type Handler = (c: Context, deps: Deps) => Promise<Response> | Response;

/**
 * The OpenID Provider's route table (spec §4). Browser endpoints (authorize, end_session) render
 * their own error pages; back-channel endpoints answer OAuth JSON errors through one renderer.
 */
export function oidcRoutes(deps: Deps) {
  registerOidcBearer(deps);
  const app = new Hono();
  const json = (h: Handler) => async (c: Context) => {
    try {
      return await h(c, deps);
    } catch (err) {
      return renderOAuthError(c, err, deps.log);
    }
  };
  const browser = (h: Handler) => (c: Context) => h(c, deps);

  app.get('/.well-known/openid-configuration', browser(discoveryEndpoint));
  app.get('/oauth/v2/keys', browser(keysEndpoint));
  app.on(['GET', 'POST'], '/oauth/v2/authorize', browser(authorizeEndpoint));
  app.get('/oauth/v2/authorize/callback', browser(callbackEndpoint));
  app.post('/oauth/v2/token', json(tokenEndpoint));
  app.post('/oauth/v2/introspect', json(introspectEndpoint));
  app.post('/oauth/v2/revoke', json(revokeEndpoint));
  app.on(['GET', 'POST'], '/oidc/v1/userinfo', json(userinfoEndpoint));
  app.on(['GET', 'POST'], '/oidc/v1/end_session', browser(endSessionEndpoint));
  return app;
}
