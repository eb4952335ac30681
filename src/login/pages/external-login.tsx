import type { LoginProvider } from '../../domain/idp/external-sign-in';
import { Hidden, Layout, MainInput, type PageProps, StepForm } from './layout';

const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);

/** The buttons of the external identity providers under the login name form. */
export function ProviderButtons(p: PageProps & { authRequest: string; csrf: string; providers: LoginProvider[] }) {
  if (!p.providers.length) return null;
  return (
    <section aria-label={p.t.idpOr}>
      <p class="hint">{p.t.idpOr}</p>
      <ul class="accounts">
        {p.providers.map((idp) => (
          <li>
            <form method="post" action="/ui/login/idp/start">
              <Hidden authRequest={p.authRequest} csrf={p.csrf} />
              <input type="hidden" name="idp" value={idp.id} />
              <button type="submit" class="secondary">
                {fill(p.t.idpSignInWith, { name: idp.name })}
              </button>
            </form>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** An LDAP directory's username and password. */
export function LdapPage(
  p: PageProps & { authRequest: string; csrf: string; idpId: string; name: string; username?: string; error?: string },
) {
  return (
    <Layout {...p} title={fill(p.t.idpLdapTitle, { name: p.name })}>
      <StepForm action="/ui/login/ldap" authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        <input type="hidden" name="idp" value={p.idpId} />
        <MainInput
          id="username"
          label={p.t.idpLdapUsername}
          autocomplete="username"
          value={p.username}
          error={p.error}
        />
        <label for="password">{p.t.passwordLabel}</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required />
        <button type="submit">{p.t.signIn}</button>
      </StepForm>
    </Layout>
  );
}

/** Auto-linking's confirmation: a button (verified email) or the account's password (username). */
export function LinkPage(
  p: PageProps & {
    authRequest: string;
    csrf: string;
    intentId: string;
    provider: string;
    loginName: string;
    withPassword: boolean;
    error?: string;
  },
) {
  const values = { provider: p.provider, loginName: p.loginName };
  return (
    <Layout {...p} title={p.t.idpLinkTitle}>
      <p>{fill(p.withPassword ? p.t.idpLinkPasswordText : p.t.idpLinkText, values)}</p>
      <StepForm action="/ui/login/idp/link" authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        <input type="hidden" name="intent" value={p.intentId} />
        {p.withPassword && (
          <MainInput
            id="password"
            type="password"
            label={p.t.passwordLabel}
            autocomplete="current-password"
            error={p.error}
          />
        )}
        <button type="submit">{p.t.idpLink}</button>
      </StepForm>
      {p.withPassword && (
        <StepForm action="/ui/login/idp/link-later" authRequest={p.authRequest} csrf={p.csrf}>
          <input type="hidden" name="intent" value={p.intentId} />
          <button type="submit" class="secondary">
            {p.t.idpLinkOtherWay}
          </button>
        </StepForm>
      )}
      <p>
        <a href={`/ui/login/login?authRequest=${encodeURIComponent(p.authRequest)}`}>{p.t.idpBackToLogin}</a>
      </p>
    </Layout>
  );
}

export interface CreateValues {
  givenName: string;
  familyName: string;
  email: string;
  username: string;
}

/** A new account from the upstream's profile: the user completes what is missing. */
export function CreateFromUpstreamPage(
  p: PageProps & {
    authRequest: string;
    csrf: string;
    intentId: string;
    provider: string;
    values: CreateValues;
    error?: string;
  },
) {
  const field = (id: keyof CreateValues, label: string, type: string, autocomplete: string, required = true) => (
    <>
      <label for={id}>{label}</label>
      <input type={type} id={id} name={id} value={p.values[id]} autocomplete={autocomplete} required={required} />
    </>
  );
  return (
    <Layout {...p} title={p.t.idpCreateTitle}>
      <p>{fill(p.t.idpCreateText, { provider: p.provider })}</p>
      <StepForm action="/ui/login/idp/create" authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        <input type="hidden" name="intent" value={p.intentId} />
        {field('givenName', p.t.givenName, 'text', 'given-name')}
        {field('familyName', p.t.familyName, 'text', 'family-name')}
        {field('email', p.t.email, 'email', 'email')}
        {field('username', p.t.username, 'text', 'username', false)}
        <button type="submit">{p.t.idpCreate}</button>
      </StepForm>
    </Layout>
  );
}

/** No account to propose for a provider that links: sign in here, and the account is linked afterwards. */
export function LinkLaterPage(p: PageProps & { authRequest: string; csrf: string; intentId: string; text: string }) {
  return (
    <Layout {...p} title={p.t.idpNoAccountTitle}>
      <p>{p.text}</p>
      <StepForm action="/ui/login/idp/link-later" authRequest={p.authRequest} csrf={p.csrf}>
        <input type="hidden" name="intent" value={p.intentId} />
        <button type="submit">{p.t.idpLinkLater}</button>
      </StepForm>
    </Layout>
  );
}

/** Why an external sign-in cannot go on, with the way back to the login. */
export function ExternalMessagePage(p: PageProps & { authRequest: string; title: string; text: string }) {
  return (
    <Layout {...p} title={p.title}>
      <p role="alert">{p.text}</p>
      <p>
        <a href={`/ui/login/login?authRequest=${encodeURIComponent(p.authRequest)}`}>{p.t.idpBackToLogin}</a>
      </p>
    </Layout>
  );
}

export { fill };
