import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { Deps } from '../deps';
import { activeConsoleClientId } from '../domain/instance/console-client';
import { pickLocale } from '../login/i18n';
import { sendStaticAsset } from '../http/static-asset';
import { consoleBundle } from './bundle';

/**
 * Same-origin resources only and no inline script: the page is the bundle and what the public API
 * answers it. connect-src 'self' lets it call the OIDC endpoints and the v2 API of this origin.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

type App = 'console' | 'account';

async function shell(c: Context, deps: Deps, app: App) {
  c.header('Content-Security-Policy', CSP);
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
  const clientId = await activeConsoleClientId(deps.database.db);
  if (!clientId) return c.text('The console is turned off on this instance.', 404);
  const { version } = await consoleBundle();
  const locale = pickLocale(undefined, c.req.header('accept-language'));
  const assets = '/ui/console/assets';
  return c.html(
    html`<!DOCTYPE html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Portcullis</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}/console.css?v=${version}">
<script type="module" src="${assets}/console.js?v=${version}"></script>
</head>
<body>
<div id="root" data-app="${app}" data-issuer="${deps.config.externalUrl}" data-client-id="${clientId}"></div>
<noscript>The Portcullis console needs JavaScript.</noscript>
</body>
</html>`,
  );
}

async function asset(c: Context, kind: 'js' | 'css') {
  const b = await consoleBundle();
  // The URL names the content (?v=hash): a new build is a new URL, so this one may be cached for good.
  c.header('Cache-Control', c.req.query('v') === b.version ? 'public, max-age=31536000, immutable' : 'no-cache');
  c.header('X-Content-Type-Options', 'nosniff');
  const type = kind === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
  return sendStaticAsset(c, { key: `console.${kind}:${b.version}`, text: kind === 'js' ? b.js : b.css }, type);
}

/** `/` → the console; the console's and the account page's pages and their assets. */
export function consoleRoutes(deps: Deps) {
  const app = new Hono();
  app.get('/', (c) => c.redirect('/ui/console/', 302));
  // Browsers ask for it on every page (the login's too); no icon rather than a logged 404.
  app.get('/favicon.ico', (c) => c.body(null, 204, { 'Cache-Control': 'public, max-age=86400' }));
  app.get('/ui/console/assets/console.js', (c) => asset(c, 'js'));
  app.get('/ui/console/assets/console.css', (c) => asset(c, 'css'));
  app.get('/ui/console', (c) => c.redirect('/ui/console/', 301));
  app.get('/ui/console/*', (c) => shell(c, deps, 'console'));
  // Every user's own account page: the same bundle and client, signed in at /ui/account/callback.
  app.get('/ui/account', (c) => c.redirect('/ui/account/', 301));
  app.get('/ui/account/*', (c) => shell(c, deps, 'account'));
  return app;
}
