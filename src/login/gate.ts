import type { Context } from 'hono';
import type { Deps } from '../deps';
import { type AuthRequest, findPendingAuthRequest } from '../domain/oidc/auth-requests';
import { oidcCtx } from '../oidc/env';
import { csrfToken, csrfValid } from './cookies';
import { pageUrl } from './flow';
import { readForm } from './form';
import { errorPage, localeOf, renderPage } from './render';
import { proceed, proceeded, proceedIn } from './sequence';
import type { Form, LoginStep, Turn } from './steps/types';

/**
 * The one gate in front of every login page and form: the pending auth request (from the query, or
 * the form's `authRequest` field) must exist, and a POST must carry the CSRF token of the browser's
 * cookie. A bad token sends the browser back to the step's page (303), never to its handler.
 */
export function gate(deps: Deps, step: LoginStep, method: 'GET' | 'POST', handler: (turn: Turn) => Promise<Response>) {
  return async (c: Context): Promise<Response> => {
    const form = method === 'POST' ? await readForm(c) : {};
    const id = method === 'POST' ? form.authRequest : c.req.query('authRequest');
    const r = id ? await findPendingAuthRequest(deps.database.db, id) : undefined;
    if (!r) {
      const { t } = localeOf(c);
      return errorPage(c, 'unknown or expired auth request', { text: t.requestExpired });
    }
    const turn = turnOf(c, deps, r, form);
    if (method === 'POST' && !csrfValid(c, form.csrf))
      return turn.see(step.csrfFailure?.(turn) ?? `${turn.url(step.path)}&error=csrf`);
    return handler(turn);
  };
}

function turnOf(c: Context, deps: Deps, r: AuthRequest, form: Form): Turn {
  const { locale, t } = localeOf(c, r.uiLocales);
  const turn: Turn = {
    c,
    deps,
    r,
    form,
    locale,
    t,
    ctx: (userId, orgId) => oidcCtx(deps, 'login', userId, orgId),
    url: (path) => pageUrl(path, r.id),
    see: (url) => c.redirect(url, 303),
    queryError: (codes = {}) => {
      const code = c.req.query('error');
      if (code === undefined) return undefined;
      return Object.hasOwn(codes, code) ? codes[code] : code === 'csrf' ? t.csrf : undefined;
    },
    render: (page, status = 200) => renderPage(c, page({ locale, t, authRequest: r.id, csrf: csrfToken(c) }), status),
    proceed: (signedIn, after) => proceed(turn, signedIn, after),
    proceedIn: (work, signedIn, session, after) => proceedIn(turn, work, signedIn, session, after),
    proceeded: (signedIn, url) => proceeded(turn, signedIn, url),
  };
  return turn;
}
