import { type Context, Hono } from 'hono';
import type { Deps } from '../deps';
import { DomainError } from '../domain/errors';
import { sessionFits } from '../domain/oidc/authorize';
import { type AuthRequest, findPendingAuthRequest, linkSessionToAuthRequest, setAuthRequestLoginName } from '../domain/oidc/auth-requests';
import { checkPassword } from '../domain/session/password-check';
import { createSession, rebindUserAgent, setSessionPasswordChecked } from '../domain/session/sessions';
import { defaultOrgId, findUserById, findUserByLoginName, loginNameOf } from '../domain/session/users';
import { createUser } from '../domain/user/commands';
import { oidcCtx } from '../oidc/env';
import { csrfToken, csrfValid, rotateUserAgent, userAgentHash } from './cookies';
import { browserSessions, callbackUrl, pageUrl } from './flow';
import { STYLE } from './pages/layout';
import { LoginNamePage } from './pages/login-name';
import { MessagePage } from './pages/message';
import { PasswordPage } from './pages/password';
import { RegisterPage, type RegisterValues } from './pages/register';
import { SelectAccountPage } from './pages/select-account';
import { errorPage, localeOf, renderPage } from './render';

type Form = Record<string, string>;

async function readForm(c: Context): Promise<Form> {
  const body = await c.req.parseBody();
  const out: Form = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * The hosted login (server-rendered, no JavaScript needed). Every page belongs to a pending auth
 * request; every form carries a CSRF token; every POST answers with a 303 redirect.
 */
export function loginRoutes(deps: Deps) {
  const app = new Hono();
  const db = deps.database.db;
  const ctx = (userId?: string, orgId?: string) => oidcCtx(deps, 'login', userId, orgId);

  async function withRequest(c: Context, id: string | undefined, fn: (r: AuthRequest) => Promise<Response>): Promise<Response> {
    const r = id ? await findPendingAuthRequest(db, id) : undefined;
    if (!r) {
      const { t } = localeOf(c);
      return errorPage(c, 'unknown or expired auth request', { text: t.requestExpired });
    }
    return fn(r);
  }
  const see = (c: Context, url: string) => c.redirect(url, 303);
  const withError = (url: string, error: string) => `${url}&error=${error}`;

  app.get('/ui/login/style.css', (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });

  app.get('/ui/login/login', (c) =>
    withRequest(c, c.req.query('authRequest'), async (r) => {
      const { locale, t } = localeOf(c, r.uiLocales);
      const error = c.req.query('error') === 'csrf' ? t.csrf : undefined;
      return renderPage(
        c,
        <LoginNamePage locale={locale} t={t} authRequest={r.id} csrf={csrfToken(c)} loginName={r.loginName ?? r.loginHint ?? ''} error={error} canRegister />,
      );
    }),
  );

  app.post('/ui/login/login', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('login', r.id), 'csrf'));
      const loginName = (form.loginName ?? '').trim().slice(0, 200);
      if (!loginName) return see(c, pageUrl('login', r.id));
      await setAuthRequestLoginName(ctx(), r.id, loginName);
      // The password page comes next whether or not the user exists: nothing is enumerated.
      return see(c, pageUrl('password', r.id));
    });
  });

  app.get('/ui/login/password', (c) =>
    withRequest(c, c.req.query('authRequest'), async (r) => {
      if (!r.loginName) return see(c, pageUrl('login', r.id));
      const { locale, t } = localeOf(c, r.uiLocales);
      const code = c.req.query('error');
      const error = code === 'invalid' ? t.invalidCredentials : code === 'locked' ? t.locked : code === 'csrf' ? t.csrf : undefined;
      return renderPage(c, <PasswordPage locale={locale} t={t} authRequest={r.id} csrf={csrfToken(c)} loginName={r.loginName} error={error} />);
    }),
  );

  app.post('/ui/login/password', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('password', r.id), 'csrf'));
      if (!r.loginName) return see(c, pageUrl('login', r.id));
      let user = await findUserByLoginName(db, r.loginName);
      if (user && r.orgId && user.orgId !== r.orgId) user = undefined;
      const result = await checkPassword(ctx(user?.id, user?.orgId), user, form.password ?? '');
      if (!result.ok) return see(c, withError(pageUrl('password', r.id), result.reason));
      await signIn(c, r, result.user);
      return see(c, callbackUrl(r.id));
    });
  });

  /** A new cookie value, this browser's sessions moved to it, and the user's session updated or created. */
  async function signIn(c: Context, r: AuthRequest, user: { id: string; orgId: string }): Promise<void> {
    const existing = (await browserSessions(c, deps)).find((s) => s.userId === user.id);
    const oldUa = userAgentHash(c);
    const newUa = rotateUserAgent(c);
    const uctx = ctx(user.id, user.orgId);
    await rebindUserAgent(uctx, oldUa, newUa);
    const sessionId = existing
      ? (await setSessionPasswordChecked(uctx, existing.id, user)).id
      : (await createSession(uctx, { userId: user.id, orgId: user.orgId, userAgentHash: newUa, passwordChecked: true })).id;
    await linkSessionToAuthRequest(uctx, r.id, sessionId);
  }

  app.get('/ui/login/accounts', (c) =>
    withRequest(c, c.req.query('authRequest'), async (r) => {
      const sessions = await browserSessions(c, deps);
      if (sessions.length === 0) return see(c, pageUrl('login', r.id));
      const { locale, t } = localeOf(c, r.uiLocales);
      const hint = r.loginHint?.toLowerCase();
      const accounts = sessions.map((s) => ({
        sessionId: s.id,
        loginName: s.loginName ?? '',
        displayName: s.displayName ?? s.loginName ?? '',
        preselected: !!hint && (s.loginName ?? '').toLowerCase().startsWith(hint),
      }));
      return renderPage(c, <SelectAccountPage locale={locale} t={t} authRequest={r.id} csrf={csrfToken(c)} accounts={accounts} />);
    }),
  );

  app.post('/ui/login/accounts', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, pageUrl('accounts', r.id));
      const chosen = (await browserSessions(c, deps)).find((s) => s.id === form.sessionId);
      if (!chosen) return see(c, pageUrl('login', r.id));
      if (sessionFits(chosen, r)) {
        await linkSessionToAuthRequest(ctx(chosen.userId ?? undefined), r.id, chosen.id);
        return see(c, callbackUrl(r.id));
      }
      // The session is too old for max_age (or otherwise unfit): re-authenticate that user.
      await setAuthRequestLoginName(ctx(), r.id, chosen.loginName ?? '');
      return see(c, pageUrl('password', r.id));
    });
  });

  app.get('/ui/login/register', (c) =>
    withRequest(c, c.req.query('authRequest'), async (r) => {
      const { locale, t } = localeOf(c, r.uiLocales);
      const error = c.req.query('error');
      return renderPage(c, <RegisterPage locale={locale} t={t} authRequest={r.id} csrf={csrfToken(c)} values={{}} error={error === 'csrf' ? t.csrf : undefined} />);
    }),
  );

  app.post('/ui/login/register', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('register', r.id), 'csrf'));
      const { locale, t } = localeOf(c, r.uiLocales);
      const values: RegisterValues = { givenName: form.givenName, familyName: form.familyName, email: form.email, username: form.username };
      const again = (error: string) =>
        renderPage(c, <RegisterPage locale={locale} t={t} authRequest={r.id} csrf={csrfToken(c)} values={values} error={error} />, 400);
      if ((form.password ?? '') !== (form.passwordConfirm ?? '')) return again(t.passwordsDiffer);
      const orgId = r.orgId ?? (await defaultOrgId(db, deps.instanceId));
      let userId: string;
      try {
        // The email is verified with a code the outbox sends; until then it stays unverified.
        ({ id: userId } = await createUser(oidcCtx(deps, 'login/register'), {
          orgId,
          username: form.username?.trim() || undefined,
          human: {
            profile: { givenName: form.givenName ?? '', familyName: form.familyName ?? '', preferredLanguage: locale },
            email: { email: form.email ?? '', verification: { send: {} } },
            password: { password: form.password ?? '', changeRequired: false },
          },
        }));
      } catch (err) {
        if (err instanceof DomainError && err.kind !== 'internal') return again(err.message);
        throw err;
      }
      const user = await findUserById(db, userId);
      if (!user) return errorPage(c, 'registration failed');
      await setAuthRequestLoginName(ctx(), r.id, loginNameOf(user));
      await signIn(c, r, user);
      return see(c, callbackUrl(r.id));
    });
  });

  app.get('/ui/login/logged-out', (c) => {
    const { locale, t } = localeOf(c);
    return renderPage(c, <MessagePage locale={locale} t={t} title={t.loggedOutTitle} text={t.loggedOutText} />);
  });

  return app;
}
