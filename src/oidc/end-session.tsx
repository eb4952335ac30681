import { redirectUriCompliant } from '../domain/application/compliance';
import type { Context } from 'hono';
import { type Deps, sourceOf } from '../deps';
import { findClient } from '../domain/oidc/clients';
import { splitScopes } from '../domain/oidc/scopes';
import { type IdTokenHint, verifyIdTokenHint } from '../domain/oidc/id-token-hint';
import { terminateSessions } from '../domain/session/sessions';
import { findUserByLoginName } from '../domain/session/users';
import { csrfToken, csrfValid, LOGOUT_CSRF } from '../login/cookies';
import { browserSessions } from '../login/flow';
import { errorPage, localeOf, renderPage } from '../login/render';
import { LogoutConfirmPage } from '../login/pages/logout-confirm';
import { LoggedOutPage, RETURN_SCRIPT_HASH } from '../login/pages/logged-out';
import { deliverLogoutsNow } from '../domain/oidc/logout/delivery';
import { type FrontChannelLogout, frontChannelLogouts } from '../domain/oidc/logout/front-channel';
import { oidcCtx, oidcEnv } from './env';
import { readParams } from './params';

/**
 * /oidc/v1/end_session (spec §4.7, RP-initiated logout). The client whose post-logout URIs count is
 * the `azp` of a valid id_token_hint or the client_id (both given: they must agree). A hint that is not
 * an ID token of this instance (a bad signature, `alg: none`, or another JWT it signed: an access or
 * logout token) never leads to a redirect; without hint and client_id the URI is ignored.
 * Without a valid hint the user confirms first (a page with a POST button and a CSRF token), so a
 * link on another site cannot sign anyone out. Only the sessions of THIS browser (its user-agent
 * cookie; with a hint, only the hinted user's) end, and with them every token issued from them — a
 * token alone, sent from elsewhere, never ends another browser's session.
 */
export async function endSessionEndpoint(c: Context, deps: Deps) {
  let parsed: Awaited<ReturnType<typeof readParams>>;
  try {
    parsed = await readParams(c);
  } catch {
    return errorPage(c, 'malformed logout request');
  }
  const { params } = parsed;
  const uiLocales = splitScopes(params.get('ui_locales'));
  const env = oidcEnv(deps);
  let hint: IdTokenHint | undefined;
  let hintInvalid = false;
  const rawHint = params.get('id_token_hint');
  if (rawHint) {
    hint = await verifyIdTokenHint(sourceOf(deps), { ...env, instanceId: deps.instanceId }, rawHint);
    hintInvalid = !hint;
  }
  const clientIdParam = params.get('client_id');
  if (hint?.azp && clientIdParam && hint.azp !== clientIdParam) {
    return errorPage(c, 'client_id does not match the id_token_hint', { uiLocales });
  }

  const confirmed =
    c.req.method === 'POST' && params.get('confirm') === '1' && csrfValid(c, params.get('csrf'), LOGOUT_CSRF);
  if (!hint && !confirmed) {
    const { locale, t } = localeOf(c, uiLocales);
    const carry: Record<string, string> = {};
    for (const name of ['post_logout_redirect_uri', 'state', 'client_id', 'ui_locales', 'logout_hint']) {
      const v = params.get(name);
      if (v !== undefined && v !== null) carry[name] = v;
    }
    c.header('Cache-Control', 'no-store');
    return renderPage(c, <LogoutConfirmPage locale={locale} t={t} csrf={csrfToken(c, LOGOUT_CSRF)} params={carry} />);
  }

  let userId = hint?.sub;
  const logoutHint = params.get('logout_hint');
  if (!userId && logoutHint) userId = (await findUserByLoginName(sourceOf(deps), deps.instanceId, logoutHint))?.id;
  const sessions = (await browserSessions(c, deps)).filter((s) => !userId || s.userId === userId).map((s) => s.id);
  await terminateSessions(oidcCtx(deps, 'oidc/end_session', userId), sessions);
  // The logout tokens are committed; deliver them now rather than at the job's next tick.
  void deliverLogoutsNow(deps);
  const frames = await frontChannelLogouts(deps.database.db, sessions, env.issuer);

  const redirect = params.get('post_logout_redirect_uri');
  const clientId = hintInvalid ? undefined : (hint?.azp ?? clientIdParam);
  if (redirect && clientId && !hintInvalid) {
    const client = await findClient(sourceOf(deps), clientId);
    if (
      client?.active &&
      client.oidc?.postLogoutRedirectUris.includes(redirect) &&
      redirectUriCompliant(client.oidc, redirect)
    ) {
      const url = new URL(redirect);
      const state = params.get('state');
      if (state !== undefined) url.searchParams.set('state', state);
      c.header('Cache-Control', 'no-store');
      if (frames.length === 0) return c.redirect(url.toString(), 303);
      return loggedOutPage(c, uiLocales, frames, url.toString());
    }
  }
  return loggedOutPage(c, uiLocales, frames);
}

/**
 * The logged-out page; with front-channel logout URIs it loads them in hidden iframes, and its CSP
 * lets exactly their origins be framed (and, before a redirect, only the script that goes on).
 */
function loggedOutPage(c: Context, uiLocales: string[], frames: FrontChannelLogout[], returnTo?: string) {
  const { locale, t } = localeOf(c, uiLocales);
  const res = renderPage(
    c,
    <LoggedOutPage locale={locale} t={t} frames={frames.map((f) => f.url)} returnTo={returnTo} />,
  );
  const extra = [
    ...(frames.length ? [`frame-src ${[...new Set(frames.map((f) => f.origin))].join(' ')}`] : []),
    ...(returnTo ? [`script-src 'sha256-${RETURN_SCRIPT_HASH}'`] : []),
  ];
  const csp = res.headers.get('Content-Security-Policy');
  if (csp && extra.length) res.headers.set('Content-Security-Policy', `${csp}; ${extra.join('; ')}`);
  return res;
}
