import { Hono } from 'hono';
import type { Deps } from '../deps';
import type { RateLimiter } from '../http/rate-limit/limiter';
import { sendStaticAsset } from '../http/static-asset';
import { deviceConsent } from './device/consent';
import { deviceDonePage } from './device/done';
import { deviceCodePage, deviceCodePost } from './device/entry';
import { DEVICE_DONE_PAGE, DEVICE_PAGE } from './device/paths';
import { gate } from './gate';
import { idpCallbackRoutes } from './idp/callback-routes';
import { STYLE } from './pages/layout';
import { MessagePage } from './pages/message';
import { passkeyRegistrationRoutes } from './passkey-registration';
import { loginRateLimit } from './rate-limit';
import { localeOf, renderPage } from './render';
import { LOGIN_STEPS } from './steps/index';
import { serveWebauthnScript } from './webauthn-script';

/**
 * The hosted login (server-rendered, no JavaScript needed). Every page belongs to a pending auth
 * request; every form carries a CSRF token; every POST answers with a 303 redirect. Each step of
 * `LOGIN_STEPS` has its page and its form here, all behind the one gate.
 */
export function loginRoutes(deps: Deps, limiter: RateLimiter) {
  const app = new Hono();
  app.use('/ui/login/*', loginRateLimit(deps, limiter));

  app.get('/ui/login/style.css', (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    return sendStaticAsset(c, { key: 'login/style.css', text: STYLE }, 'text/css; charset=utf-8');
  });

  // passkeys: the WebAuthn script, and the page of a registration link (no auth request)
  app.get('/ui/login/webauthn.js', serveWebauthnScript);
  const registration = passkeyRegistrationRoutes(deps);
  app.get('/ui/login/passkey-registration', registration.get);
  app.post('/ui/login/passkey-registration', registration.post);

  for (const step of LOGIN_STEPS) {
    app.get(`/ui/login/${step.path}`, gate(deps, step, 'GET', step.page));
    app.post(`/ui/login/${step.path}`, gate(deps, step, 'POST', step.post));
    for (const [name, action] of Object.entries(step.actions ?? {}))
      app.post(`/ui/login/${step.path}/${name}`, gate(deps, step, 'POST', action));
  }

  // device authorization (RFC 8628): the user code (no auth request yet), the consent at the end of
  // the sign-in it starts, and the page that says it is done
  app.get(DEVICE_PAGE, deviceCodePage);
  app.post(DEVICE_PAGE, deviceCodePost(deps));
  app.get(`/ui/login/${deviceConsent.path}`, gate(deps, deviceConsent, 'GET', deviceConsent.page));
  app.post(`/ui/login/${deviceConsent.path}`, gate(deps, deviceConsent, 'POST', deviceConsent.post));
  app.get(DEVICE_DONE_PAGE, deviceDonePage);

  // where upstream identity providers send the browser back (no auth request in the address)
  app.route('/', idpCallbackRoutes(deps));

  app.get('/ui/login/logged-out', (c) => {
    const { locale, t } = localeOf(c);
    return renderPage(c, <MessagePage locale={locale} t={t} title={t.loggedOutTitle} text={t.loggedOutText} />);
  });

  return app;
}
