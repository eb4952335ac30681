import { registrationAllowed } from '../domain/org/login-policy';
import { type Context, Hono } from 'hono';
import type { Deps } from '../deps';
import { DomainError, invalidArgument } from '../domain/errors';
import { mayFinish } from '../domain/oidc/may-finish';
import {
  type AuthRequest,
  findPendingAuthRequest,
  linkSessionToAuthRequest,
  setAuthRequestLoginName,
} from '../domain/oidc/auth-requests';
import { checkPassword } from '../domain/session/password-check';
import { createSession, rebindUserAgent, setSessionPasswordChecked } from '../domain/session/sessions';
import { defaultOrgId, findUserById, findUserByLoginName, type LoginUser, loginNameOf } from '../domain/session/users';
import { createUser } from '../domain/user/commands';
import { setPassword } from '../domain/user/credentials';
import { resendEmailCode, verifyEmail } from '../domain/user/email';
import { oidcCtx } from '../oidc/env';
import { csrfToken, csrfValid, rotateUserAgent, userAgentHash } from './cookies';
import { browserSessions, callbackUrl, pageUrl } from './flow';
import { STYLE } from './pages/layout';
import { LoginNamePage } from './pages/login-name';
import { MessagePage } from './pages/message';
import { PasswordPage } from './pages/password';
import { PasswordChangePage } from './pages/password-change';
import { RegisterPage, type RegisterValues } from './pages/register';
import { SelectAccountPage } from './pages/select-account';
import { VerifyEmailPage } from './pages/verify-email';
import { errorPage, localeOf, renderPage } from './render';
import { readUtf8Body } from '../http/read-body';
import type { RateLimiter } from '../http/rate-limit/limiter';
import { loginRateLimit } from './rate-limit';

type Form = Record<string, string>;

async function readForm(c: Context): Promise<Form> {
  // The pages post urlencoded forms: read the bytes directly (parseBody would first build a full web
  // Request with a stream). Anything else (multipart from a script) takes Hono's general parser.
  if ((c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const text = await readUtf8Body(c);
    if (text === undefined) return {};
    const out: Form = {};
    for (const [k, v] of new URLSearchParams(text)) out[k] = v;
    return out;
  }
  let body: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    body = await c.req.parseBody();
  } catch {
    throw invalidArgument('Errors.Invalid.Form', 'the form body is malformed');
  }
  const out: Form = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string') continue;
    // the input guard sees urlencoded bodies only; multipart values get the same NUL check here
    if (v.includes('\0') || k.includes('\0'))
      throw invalidArgument(
        'Errors.Invalid.Form',
        `form parameter ${JSON.stringify(k.replace(/\0/g, ''))} contains a NUL byte`,
      );
    out[k] = v;
  }
  return out;
}

/**
 * The hosted login (server-rendered, no JavaScript needed). Every page belongs to a pending auth
 * request; every form carries a CSRF token; every POST answers with a 303 redirect.
 */
export function loginRoutes(deps: Deps, limiter: RateLimiter) {
  const app = new Hono();
  app.use('/ui/login/*', loginRateLimit(deps, limiter));
  const db = deps.database.db;
  const ctx = (userId?: string, orgId?: string) => oidcCtx(deps, 'login', userId, orgId);

  async function withRequest(
    c: Context,
    id: string | undefined,
    fn: (r: AuthRequest) => Promise<Response>,
  ): Promise<Response> {
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
      const canRegister = await mayRegister(r);
      return renderPage(
        c,
        <LoginNamePage
          locale={locale}
          t={t}
          authRequest={r.id}
          csrf={csrfToken(c)}
          loginName={r.loginName ?? r.loginHint ?? ''}
          error={error}
          canRegister={canRegister}
        />,
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
      const error =
        code === 'invalid' ? t.invalidCredentials : code === 'locked' ? t.locked : code === 'csrf' ? t.csrf : undefined;
      return renderPage(
        c,
        <PasswordPage
          locale={locale}
          t={t}
          authRequest={r.id}
          csrf={csrfToken(c)}
          loginName={r.loginName}
          error={error}
        />,
      );
    }),
  );

  app.post('/ui/login/password', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('password', r.id), 'csrf'));
      if (!r.loginName) return see(c, pageUrl('login', r.id));
      // Only users of the organization the sign-in is for (the org scope) are found.
      const user = await findUserByLoginName(db, deps.instanceId, r.loginName, r.orgId ?? undefined);
      const result = await checkPassword(ctx(user?.id, user?.orgId), user, form.password ?? '');
      if (!result.ok) return see(c, withError(pageUrl('password', r.id), result.reason));
      const sessionId = await startSession(c, result.user);
      // The session exists, but answers no auth request until the new password is set.
      if (result.user.passwordChangeRequired) return see(c, pageUrl('password/change', r.id));
      await linkSessionToAuthRequest(ctx(result.user.id, result.user.orgId), r.id, sessionId);
      return see(c, callbackUrl(r.id));
    });
  });

  /**
   * After a successful password check: a new cookie value, this browser's sessions moved to it, and
   * the user's session updated or created. Returns the session id.
   */
  async function startSession(c: Context, user: { id: string; orgId: string }): Promise<string> {
    const existing = (await browserSessions(c, deps)).find((s) => s.userId === user.id);
    const oldUa = userAgentHash(c);
    const newUa = rotateUserAgent(c);
    const uctx = ctx(user.id, user.orgId);
    await rebindUserAgent(uctx, oldUa, newUa);
    return existing
      ? (await setSessionPasswordChecked(uctx, existing.id, user)).id
      : (await createSession(uctx, { userId: user.id, orgId: user.orgId, userAgentHash: newUa, passwordChecked: true }))
          .id;
  }

  /**
   * The user of a step that follows the password (password change, email verification): the request's
   * login name, with a session of this browser whose password was checked during this request. Without
   * it the step is refused, so the auth request id alone never signs anybody in.
   */
  async function signedInUser(c: Context, r: AuthRequest): Promise<{ user: LoginUser; sessionId: string } | undefined> {
    if (!r.loginName) return undefined;
    const user = await findUserByLoginName(db, deps.instanceId, r.loginName, r.orgId ?? undefined);
    if (!user) return undefined;
    // A minute of slack: the request's creation time comes from the database clock, the check's from ours.
    const since = r.createdAt.getTime() - 60_000;
    const session = (await browserSessions(c, deps)).find(
      (s) => s.userId === user.id && s.passwordCheckedAt && s.passwordCheckedAt.getTime() >= since,
    );
    return session ? { user, sessionId: session.id } : undefined;
  }

  /** The session answers the auth request: the browser goes on to the callback. */
  async function finish(
    c: Context,
    r: AuthRequest,
    signedIn: { user: LoginUser; sessionId: string },
  ): Promise<Response> {
    await linkSessionToAuthRequest(ctx(signedIn.user.id, signedIn.user.orgId), r.id, signedIn.sessionId);
    return see(c, callbackUrl(r.id));
  }

  const passwordChangePage = (c: Context, r: AuthRequest, user: LoginUser, error?: string, status = 200) => {
    const { locale, t } = localeOf(c, r.uiLocales);
    return renderPage(
      c,
      <PasswordChangePage
        locale={locale}
        t={t}
        authRequest={r.id}
        csrf={csrfToken(c)}
        loginName={loginNameOf(user)}
        error={error}
      />,
      status,
    );
  };

  app.get('/ui/login/password/change', (c) =>
    withRequest(c, c.req.query('authRequest'), async (r) => {
      const signedIn = await signedInUser(c, r);
      if (!signedIn) return see(c, pageUrl('password', r.id));
      if (!signedIn.user.passwordChangeRequired) return finish(c, r, signedIn);
      const { t } = localeOf(c, r.uiLocales);
      return passwordChangePage(c, r, signedIn.user, c.req.query('error') === 'csrf' ? t.csrf : undefined);
    }),
  );

  app.post('/ui/login/password/change', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('password/change', r.id), 'csrf'));
      const signedIn = await signedInUser(c, r);
      if (!signedIn) return see(c, pageUrl('password', r.id));
      const { user } = signedIn;
      if (user.passwordChangeRequired) {
        const { t } = localeOf(c, r.uiLocales);
        if ((form.password ?? '') !== (form.passwordConfirm ?? ''))
          return passwordChangePage(c, r, user, t.passwordsDiffer, 400);
        try {
          // The user proved the old password in this request (the session's fresh check): the server
          // sets the new one, under the instance's password policy.
          await setPassword(oidcCtx(deps, 'login/password-change'), {
            userId: user.id,
            password: form.password ?? '',
            changeRequired: false,
          });
        } catch (err) {
          if (err instanceof DomainError && err.kind === 'invalid_argument')
            return passwordChangePage(c, r, user, err.message, 400);
          throw err;
        }
      }
      return finish(c, r, signedIn);
    });
  });

  const verifyEmailPage = (
    c: Context,
    r: AuthRequest,
    user: LoginUser,
    message?: { error?: string; notice?: string },
    status = 200,
  ) => {
    const { locale, t } = localeOf(c, r.uiLocales);
    return renderPage(
      c,
      <VerifyEmailPage
        locale={locale}
        t={t}
        authRequest={r.id}
        csrf={csrfToken(c)}
        email={user.email ?? ''}
        error={message?.error}
        notice={message?.notice}
      />,
      status,
    );
  };

  app.get('/ui/login/verify-email', (c) =>
    withRequest(c, c.req.query('authRequest'), async (r) => {
      const signedIn = await signedInUser(c, r);
      if (!signedIn) return see(c, pageUrl('login', r.id));
      if (signedIn.user.emailVerified || !signedIn.user.email) return finish(c, r, signedIn);
      const { t } = localeOf(c, r.uiLocales);
      const code = c.req.query('error');
      const error = code === 'invalid' ? t.invalidCode : code === 'csrf' ? t.csrf : undefined;
      return verifyEmailPage(c, r, signedIn.user, { error, notice: c.req.query('sent') ? t.codeResent : undefined });
    }),
  );

  app.post('/ui/login/verify-email', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('verify-email', r.id), 'csrf'));
      const signedIn = await signedInUser(c, r);
      if (!signedIn) return see(c, pageUrl('login', r.id));
      const { user } = signedIn;
      if (!user.emailVerified) {
        try {
          await verifyEmail(ctx(user.id, user.orgId), { userId: user.id, code: (form.code ?? '').trim() });
        } catch (err) {
          if (err instanceof DomainError && err.kind === 'invalid_argument')
            return see(c, withError(pageUrl('verify-email', r.id), 'invalid'));
          throw err;
        }
      }
      return finish(c, r, signedIn);
    });
  });

  app.post('/ui/login/verify-email/resend', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('verify-email', r.id), 'csrf'));
      const signedIn = await signedInUser(c, r);
      if (!signedIn) return see(c, pageUrl('login', r.id));
      const { user } = signedIn;
      if (user.emailVerified || !user.email) return finish(c, r, signedIn);
      await resendEmailCode(ctx(user.id, user.orgId), { userId: user.id, verification: { send: {} } });
      return see(c, `${pageUrl('verify-email', r.id)}&sent=1`);
    });
  });

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
      return renderPage(
        c,
        <SelectAccountPage locale={locale} t={t} authRequest={r.id} csrf={csrfToken(c)} accounts={accounts} />,
      );
    }),
  );

  app.post('/ui/login/accounts', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, pageUrl('accounts', r.id));
      const chosen = (await browserSessions(c, deps)).find((s) => s.id === form.sessionId);
      if (!chosen) return see(c, pageUrl('login', r.id));
      if (mayFinish(chosen, r, 'reuse')) {
        await linkSessionToAuthRequest(ctx(chosen.userId ?? undefined), r.id, chosen.id);
        return see(c, callbackUrl(r.id));
      }
      // The session is too old for max_age (or otherwise unfit): re-authenticate that user.
      await setAuthRequestLoginName(ctx(), r.id, chosen.loginName ?? '');
      return see(c, pageUrl('password', r.id));
    });
  });

  /** The organization a registration for this request joins: the org scope's, else the default one. */
  const registrationOrg = async (r: AuthRequest) => r.orgId ?? (await defaultOrgId(db, deps.instanceId));
  const mayRegister = async (r: AuthRequest) => registrationAllowed(db, deps.instanceId, await registrationOrg(r));
  const registrationClosed = (c: Context, r: AuthRequest) =>
    errorPage(c, 'registration is not allowed for this organization', { status: 403, uiLocales: r.uiLocales });

  app.get('/ui/login/register', (c) =>
    withRequest(c, c.req.query('authRequest'), async (r) => {
      if (!(await mayRegister(r))) return registrationClosed(c, r);
      const { locale, t } = localeOf(c, r.uiLocales);
      const error = c.req.query('error');
      return renderPage(
        c,
        <RegisterPage
          locale={locale}
          t={t}
          authRequest={r.id}
          csrf={csrfToken(c)}
          values={{}}
          error={error === 'csrf' ? t.csrf : undefined}
        />,
      );
    }),
  );

  app.post('/ui/login/register', async (c) => {
    const form = await readForm(c);
    return withRequest(c, form.authRequest, async (r) => {
      if (!csrfValid(c, form.csrf)) return see(c, withError(pageUrl('register', r.id), 'csrf'));
      if (!(await mayRegister(r))) return registrationClosed(c, r);
      const { locale, t } = localeOf(c, r.uiLocales);
      const values: RegisterValues = {
        givenName: form.givenName,
        familyName: form.familyName,
        email: form.email,
        username: form.username,
      };
      const again = (error: string) =>
        renderPage(
          c,
          <RegisterPage locale={locale} t={t} authRequest={r.id} csrf={csrfToken(c)} values={values} error={error} />,
          400,
        );
      if ((form.password ?? '') !== (form.passwordConfirm ?? '')) return again(t.passwordsDiffer);
      const orgId = await registrationOrg(r);
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
        // A taken username or address gets the same words as any other refusal of the account, so the
        // form cannot be used to find out who has an account; field errors still name the field.
        if (err instanceof DomainError && err.kind === 'already_exists') return again(t.registrationRefused);
        if (err instanceof DomainError && err.kind !== 'internal') return again(err.message);
        throw err;
      }
      const user = await findUserById(db, userId);
      if (!user) return errorPage(c, 'registration failed');
      await setAuthRequestLoginName(ctx(), r.id, loginNameOf(user));
      await startSession(c, user);
      // The code sent through the outbox verifies the address; then the request continues.
      return see(c, pageUrl('verify-email', r.id));
    });
  });

  app.get('/ui/login/logged-out', (c) => {
    const { locale, t } = localeOf(c);
    return renderPage(c, <MessagePage locale={locale} t={t} title={t.loggedOutTitle} text={t.loggedOutText} />);
  });

  return app;
}
