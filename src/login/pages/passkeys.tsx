import type { Child } from 'hono/jsx';
import { ErrorMessage, Hidden, Layout, type PageProps } from './layout';

/** The one script tag of a WebAuthn page (its CSP allows same-origin scripts: src/login/webauthn-script.ts). */
export const WebAuthnScript = () => <script src="/ui/login/webauthn.js" defer />;

/**
 * A form that runs a WebAuthn ceremony in the browser (src/login/client/webauthn.ts) and posts the
 * credential JSON in `credential`: its options rendered into the page, or fetched from `optionsUrl`.
 */
export function WebAuthnForm(p: {
  t: PageProps['t'];
  action: string;
  mode: 'create' | 'get';
  options?: unknown;
  optionsUrl?: string;
  autofill?: boolean;
  authRequest?: string;
  csrf: string;
  fields?: Record<string, string>;
  button: string;
  buttonClass?: string;
  /** say that the ceremony needs JavaScript (not where the page works without it) */
  noscript?: boolean;
  children?: Child;
}) {
  return (
    <form
      method="post"
      action={p.action}
      data-webauthn={p.mode}
      data-options={p.options === undefined ? undefined : JSON.stringify(p.options)}
      data-options-url={p.optionsUrl}
      data-autofill={p.autofill ? '' : undefined}
    >
      {p.authRequest !== undefined ? (
        <Hidden authRequest={p.authRequest} csrf={p.csrf} />
      ) : (
        <input type="hidden" name="csrf" value={p.csrf} />
      )}
      {Object.entries(p.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <input type="hidden" name="credential" value="" />
      <p class="error" role="alert" data-webauthn-error hidden>
        {p.t.webauthnFailed}
      </p>
      {p.noscript !== false && (
        <noscript>
          <p class="error">{p.t.webauthnNoScript}</p>
        </noscript>
      )}
      {p.children}
      <button type="submit" class={p.buttonClass}>
        {p.button}
      </button>
    </form>
  );
}

interface StepProps extends PageProps {
  authRequest: string;
  csrf: string;
  error?: string;
}

/** Sign in with a passkey, no login name: the browser offers its passkeys for this site. */
export function PasskeyPage(p: StepProps & { options: unknown; challenge: string }) {
  return (
    <Layout {...p} title={p.t.passkeyTitle}>
      <p>{p.t.passkeyText}</p>
      <ErrorMessage text={p.error} />
      <WebAuthnForm
        t={p.t}
        action="/ui/login/passkey"
        mode="get"
        options={p.options}
        authRequest={p.authRequest}
        csrf={p.csrf}
        fields={{ challenge: p.challenge }}
        button={p.t.passkeyUse}
      />
      <p>
        <a href={`/ui/login/login?authRequest=${encodeURIComponent(p.authRequest)}`}>{p.t.passkeyOther}</a>
      </p>
      <WebAuthnScript />
    </Layout>
  );
}

/** A security key or passkey as second factor after the password. */
export function WebAuthnStepPage(p: StepProps & { options: unknown }) {
  return (
    <Layout {...p} title={p.t.webauthnTitle}>
      <p>{p.t.webauthnText}</p>
      <ErrorMessage text={p.error} />
      <WebAuthnForm
        t={p.t}
        action="/ui/login/webauthn"
        mode="get"
        options={p.options}
        authRequest={p.authRequest}
        csrf={p.csrf}
        button={p.t.webauthnUse}
      />
      <WebAuthnScript />
    </Layout>
  );
}

/** Registering a passkey: during the login (`setup-passkey`) or from a registration link. */
export function SetupPasskeyPage(
  p: PageProps & {
    csrf: string;
    authRequest?: string;
    action: string;
    title: string;
    text: string;
    options: unknown;
    fields: Record<string, string>;
    error?: string;
  },
) {
  return (
    <Layout {...p} title={p.title}>
      <p>{p.text}</p>
      <ErrorMessage text={p.error} />
      <WebAuthnForm
        t={p.t}
        action={p.action}
        mode="create"
        options={p.options}
        authRequest={p.authRequest}
        csrf={p.csrf}
        fields={p.fields}
        button={p.t.setupPasskeyCreate}
      >
        <label for="passkeyName">{p.t.passkeyNameLabel}</label>
        <input type="text" id="passkeyName" name="passkeyName" maxlength={200} autocomplete="off" />
      </WebAuthnForm>
      <WebAuthnScript />
    </Layout>
  );
}
