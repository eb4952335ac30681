import type { LoginProvider } from '../../domain/idp/external-sign-in';
import { ProviderButtons } from './external-login';
import { Layout, MainInput, type PageProps, StepForm } from './layout';
import { WebAuthnForm, WebAuthnScript } from './passkeys';

export function LoginNamePage(
  p: PageProps & {
    authRequest: string;
    csrf: string;
    loginName?: string;
    error?: string;
    canRegister: boolean;
    providers: LoginProvider[];
  },
) {
  return (
    <Layout {...p} title={p.t.title}>
      <StepForm action="/ui/login/login" authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        <MainInput
          id="loginName"
          label={p.t.loginNameLabel}
          value={p.loginName ?? ''}
          autocomplete="username webauthn"
          error={p.error}
          hintId="loginName-hint"
        />
        <p class="hint" id="loginName-hint">
          {p.t.loginNameHint}
        </p>
        <button type="submit">{p.t.next}</button>
      </StepForm>
      <WebAuthnForm
        t={p.t}
        action="/ui/login/passkey"
        mode="get"
        optionsUrl="/ui/login/passkey/options"
        autofill
        authRequest={p.authRequest}
        csrf={p.csrf}
        fields={{ challenge: '' }}
        button={p.t.passkeySignIn}
        buttonClass="secondary"
        noscript={false}
      />
      <ProviderButtons {...p} />
      {p.canRegister && (
        <p>
          <a href={`/ui/login/register?authRequest=${encodeURIComponent(p.authRequest)}`}>{p.t.createAccount}</a>
        </p>
      )}
      <WebAuthnScript />
    </Layout>
  );
}
