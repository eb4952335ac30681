import type { Context } from 'hono';
import type { Deps } from '../deps';
import { type AuthRequest, findPendingAuthRequest } from '../domain/oidc/auth-requests';
import { oidcCtx } from '../oidc/env';
import { csrfToken, csrfValid } from './cookies';
import { pageUrl } from './flow';
import { readForm } from './form';
import { errorPage, localeOf, renderPage } from './render';
import { proceed } from './sequence';
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
    const after: (() => Promise<void>)[] = [];
    const turn = turnOf(c, deps, r, form, after);
    if (method === 'POST' && !csrfValid(c, form.csrf))
      return turn.see(step.csrfFailure?.(turn) ?? `${turn.url(step.path)}&error=csrf`);
    const answer = await handler(turn);
    for (const fn of after) await fn();
    return answer;
  };
}

function turnOf(c: Context, deps: Deps, r: AuthRequest, form: Form, after: (() => Promise<void>)[]): Turn {
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
    proceed: (signedIn, step, work) => proceed(turn, signedIn, step, work),
    afterCommit: (fn) => after.push(fn),
  };
  return turn;
}
