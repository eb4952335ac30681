import { redirectUriCompliant } from '../domain/application/compliance';
import type { Context } from 'hono';
import type { Deps } from '../deps';
import { findClient } from '../domain/oidc/clients';
import { splitScopes } from '../domain/oidc/scopes';
import { verifyOwnJwt } from '../domain/oidc/web-keys';
import { getSession, terminateSessions } from '../domain/session/sessions';
import { findUserByLoginName } from '../domain/session/users';
import { browserSessions } from '../login/flow';
import { errorPage, localeOf, renderPage } from '../login/render';
import { MessagePage } from '../login/pages/message';
import { oidcCtx, oidcEnv } from './env';
import { readParams } from './params';

/**
 * /oidc/v1/end_session (spec §4.7, RP-initiated logout). The client whose post-logout URIs count is
 * the `azp` of a valid id_token_hint or the client_id (both given: they must agree). A hint with a bad
 * signature or `alg: none` never leads to a redirect; without hint and client_id the URI is ignored.
 * The browser's sessions (or only the hinted user's) end, and with them every token issued from them.
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
  let hint: { sub?: string; azp?: string; sid?: string } | undefined;
  let hintInvalid = false;
  const rawHint = params.get('id_token_hint');
  if (rawHint) {
    try {
      const { payload } = await verifyOwnJwt(deps.database.db, env.masterKey, rawHint, { issuer: env.issuer, ignoreExpiration: true });
      const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
      hint = { sub: payload.sub, azp: (payload.azp as string | undefined) ?? aud, sid: payload.sid as string | undefined };
    } catch {
      hintInvalid = true;
    }
  }
  const clientIdParam = params.get('client_id');
  if (hint?.azp && clientIdParam && hint.azp !== clientIdParam) {
    return errorPage(c, 'client_id does not match the id_token_hint', { uiLocales });
  }

  let userId = hint?.sub;
  const logoutHint = params.get('logout_hint');
  if (!userId && logoutHint) userId = (await findUserByLoginName(deps.database.db, logoutHint))?.id;
  const sessions = (await browserSessions(c, deps)).filter((s) => !userId || s.userId === userId).map((s) => s.id);
  if (hint?.sid && hint.sub && !sessions.includes(hint.sid)) sessions.push(hint.sid);
  await terminateSessions(oidcCtx(deps, 'oidc/end_session', userId), await ownSessions(deps, sessions, hint));

  const redirect = params.get('post_logout_redirect_uri');
  const clientId = hintInvalid ? undefined : (hint?.azp ?? clientIdParam);
  if (redirect && clientId && !hintInvalid) {
    const client = await findClient(deps.database.db, clientId);
    if (client?.active && client.oidc?.postLogoutRedirectUris.includes(redirect) && redirectUriCompliant(client.oidc, redirect)) {
      const url = new URL(redirect);
      const state = params.get('state');
      if (state !== undefined) url.searchParams.set('state', state);
      c.header('Cache-Control', 'no-store');
      return c.redirect(url.toString(), 303);
    }
  }
  const { locale, t } = localeOf(c, uiLocales);
  return renderPage(c, <MessagePage locale={locale} t={t} title={t.loggedOutTitle} text={t.loggedOutText} />);
}

/** The hint's `sid` only counts when that session belongs to the hint's subject. */
async function ownSessions(deps: Deps, ids: string[], hint: { sub?: string; sid?: string } | undefined): Promise<string[]> {
  if (!hint?.sid) return ids;
  const s = await getSession(deps.database.db, hint.sid);
  return s && s.userId === hint.sub ? ids : ids.filter((id) => id !== hint.sid);
}
