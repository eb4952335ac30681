import type { Context } from 'hono';
import type { Deps } from '../deps';
import { DomainError } from '../domain/errors';
import { loginNameOf, findUserById } from '../domain/session/users';
import { domainOfHost } from '../domain/user/factors/relying-party';
import { registerPasskey, verifyPasskeyRegistration } from '../domain/user/factors/webauthn';
import { oidcCtx } from '../oidc/env';
import { csrfToken, csrfValid } from './cookies';
import { readForm } from './form';
import { MessagePage } from './pages/message';
import { SetupPasskeyPage } from './pages/passkeys';
import { localeOf, renderPage } from './render';
import { withScript } from './webauthn-script';

const PATH = '/ui/login/passkey-registration';

/**
 * The page of a passkey registration link (CreatePasskeyRegistrationLink): /ui/login/passkey-registration
 * ?userId=…&code=… registers a passkey for that user on this device, without an auth request or a
 * sign-in; the code is checked when the page opens and used up by the registration.
 */
export function passkeyRegistrationRoutes(deps: Deps) {
  const ctx = () => oidcCtx(deps, 'login');
  const invalid = (c: Context) => {
    const { locale, t } = localeOf(c);
    const page = (
      <MessagePage locale={locale} t={t} title={t.passkeyRegistrationTitle} text={t.passkeyRegistrationInvalid} />
    );
    return renderPage(c, page, 400);
  };
  const refusedByDomain = (err: unknown) =>
    err instanceof DomainError && ['invalid_argument', 'failed_precondition', 'not_found'].includes(err.kind);

  async function page(c: Context, userId: string, code: string, failed = false): Promise<Response> {
    const { locale, t } = localeOf(c);
    const user = userId ? await findUserById(deps.database.db, userId) : undefined;
    if (!user || !code) return invalid(c);
    let reg: Awaited<ReturnType<typeof registerPasskey>>;
    try {
      const domain = await domainOfHost(deps.database.db, deps.instanceId, new URL(c.req.url).hostname);
      reg = await registerPasskey(ctx(), { userId, type: 'passkey', code, domain }, deps.config.externalUrl);
    } catch (err) {
      if (refusedByDomain(err)) return invalid(c);
      throw err;
    }
    return withScript(
      renderPage(
        c,
        <SetupPasskeyPage
          locale={locale}
          t={t}
          csrf={csrfToken(c)}
          action={PATH}
          title={t.passkeyRegistrationTitle}
          text={t.passkeyRegistrationText.replace('{loginName}', loginNameOf(user))}
          options={reg.options}
          fields={{ userId, code, passkeyId: reg.id }}
          error={failed ? t.webauthnFailed : undefined}
        />,
      ),
    );
  }

  return {
    get: (c: Context) => page(c, c.req.query('userId') ?? '', c.req.query('code') ?? ''),
    async post(c: Context) {
      const form = await readForm(c);
      const userId = form.userId ?? '';
      const code = form.code ?? '';
      if (!csrfValid(c, form.csrf)) return page(c, userId, code, true);
      let credential: unknown;
      try {
        credential = JSON.parse(form.credential ?? '');
      } catch {
        credential = undefined;
      }
      try {
        await verifyPasskeyRegistration(
          ctx(),
          { userId, passkeyId: form.passkeyId ?? '', credential, name: (form.passkeyName ?? '').slice(0, 200), code },
          deps.config.externalUrl,
        );
      } catch (err) {
        if (!refusedByDomain(err)) throw err;
        // a refused answer leaves the code unused (its transaction rolled back): the page tries again
        return page(c, userId, code, true);
      }
      const { locale, t } = localeOf(c);
      return renderPage(
        c,
        <MessagePage locale={locale} t={t} title={t.passkeyRegistrationTitle} text={t.passkeyRegistrationDone} />,
      );
    },
  };
}
