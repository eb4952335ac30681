import { type Context, Hono } from 'hono';
import type { Deps } from '../deps';
import { authorizeEndpoint, callbackEndpoint } from './authorize';
import { deviceAuthorizationEndpoint } from './device-authorization';
import { discoveryEndpoint } from './discovery';
import { endSessionEndpoint } from './end-session';
import { renderOAuthError } from './errors';
import type { RateLimiter } from '../http/rate-limit/limiter';
import { introspectEndpoint } from './introspect';
import { keysEndpoint } from './keys';
import { parEndpoint } from './par';
import { oidcRateLimits } from './rate-limits';
import { clientConfigurationEndpoint, registrationEndpoint } from './register';
import { revokeEndpoint } from './revoke';
import { tokenEndpoint } from './token';
import { userinfoEndpoint } from './userinfo';

type Handler = (c: Context, deps: Deps) => Promise<Response> | Response;

/**
 * The OpenID Provider's route table (spec §4). Browser endpoints (authorize, end_session) render
 * their own error pages; back-channel endpoints answer OAuth JSON errors through one renderer.
 */
export function oidcRoutes(deps: Deps, limiter: RateLimiter) {
  const app = new Hono();
  const limits = oidcRateLimits(deps, limiter);
  const json = (h: Handler) => async (c: Context) => {
    try {
      return await h(c, deps);
    } catch (err) {
      return renderOAuthError(c, err, deps.log);
    }
  };
  const browser = (h: Handler) => (c: Context) => h(c, deps);

  app.get('/.well-known/openid-configuration', browser(discoveryEndpoint));
  // The key set is JSON for machines; its 429 is the same JSON error the back-channel endpoints use.
  app.get('/oauth/v2/keys', async (c) => {
    try {
      await limits.keysByAddress(c);
    } catch (err) {
      return renderOAuthError(c, err, deps.log);
    }
    return keysEndpoint(c, deps);
  });
  app.on(['GET', 'POST'], '/oauth/v2/authorize', browser(authorizeEndpoint));
  app.get('/oauth/v2/authorize/callback', browser(callbackEndpoint));
  app.post(
    '/oauth/v2/token',
    json((c) => tokenEndpoint(c, deps, limits)),
  );
  app.post(
    '/oauth/v2/par',
    json((c) => parEndpoint(c, deps, limits)),
  );
  app.post(
    '/oauth/v2/device_authorization',
    json((c) => deviceAuthorizationEndpoint(c, deps, limits)),
  );
  app.post('/oauth/v2/introspect', json(introspectEndpoint));
  app.post('/oauth/v2/revoke', json(revokeEndpoint));
  app.on(['GET', 'POST'], '/oidc/v1/userinfo', json(userinfoEndpoint));
  app.on(['GET', 'POST'], '/oidc/v1/end_session', browser(endSessionEndpoint));
  app.post(
    '/oauth/v2/register',
    json(async (c) => {
      await limits.registerByAddress(c);
      return registrationEndpoint(c, deps);
    }),
  );
  app.on(
    ['GET', 'PUT', 'DELETE'],
    '/oauth/v2/register/:clientId',
    json(async (c) => {
      await limits.registerByAddress(c);
      return clientConfigurationEndpoint(c, deps);
    }),
  );
  return app;
}
