import { Layout, MainInput, type PageProps, StepForm } from './layout';

interface FormProps extends PageProps {
  authRequest: string;
  csrf: string;
  error?: string;
}

/** A page that asks for one code: authenticator app, email or SMS code, recovery code. */
export function CodePage(
  p: FormProps & {
    path: string;
    title: string;
    text: string;
    label: string;
    numeric: boolean;
    notice?: string;
    /** `/ui/login/<path>/resend` for email and SMS codes */
    resend?: string;
    /** a link to another way in (the recovery code page) */
    alternative?: { href: string; text: string };
  },
) {
  return (
    <Layout {...p} title={p.title}>
      <p>{p.text}</p>
      {p.notice && <p role="status">{p.notice}</p>}
      <StepForm action={`/ui/login/${p.path}`} authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        <MainInput
          id="code"
          label={p.label}
          autocomplete="one-time-code"
          extra={
            p.numeric
              ? { inputmode: 'numeric', spellcheck: false }
              : { autocapitalize: 'characters', spellcheck: false }
          }
          error={p.error}
        />
        <button type="submit">{p.t.verify}</button>
      </StepForm>
      {p.resend && (
        <StepForm action={p.resend} authRequest={p.authRequest} csrf={p.csrf}>
          <button type="submit" class="link">
            {p.t.resendCode}
          </button>
        </StepForm>
      )}
      {p.alternative && (
        <p>
          <a href={p.alternative.href}>{p.alternative.text}</a>
        </p>
      )}
    </Layout>
  );
}

/** Setting up an authenticator app: the QR code, the key as text, and the first code. */
export function SetupTotpPage(p: FormProps & { qrCode: string; secret: string }) {
  return (
    <Layout {...p} title={p.t.setupTotpTitle}>
      <p>{p.t.setupTotpText}</p>
      <img src={p.qrCode} alt={p.t.setupTotpQrAlt} width="200" height="200" />
      <p>
        {p.t.setupTotpSecret} <code id="totp-secret">{p.secret}</code>
      </p>
      <StepForm action="/ui/login/setup-totp" authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        <MainInput
          id="code"
          label={p.t.otpCodeLabel}
          autocomplete="one-time-code"
          extra={{ inputmode: 'numeric', spellcheck: false }}
          error={p.error}
        />
        <button type="submit">{p.t.verify}</button>
      </StepForm>
    </Layout>
  );
}

/** Turning on email or SMS codes: where they will go, and one button (or why it cannot be turned on). */
export function SetupOtpPage(p: FormProps & { path: string; title: string; text: string; target?: string }) {
  return (
    <Layout {...p} title={p.title}>
      {p.target ? <p>{p.text.replace('{target}', p.target)}</p> : <p class="error">{p.t.setupOtpMissing}</p>}
      {p.target && (
        <StepForm action={`/ui/login/${p.path}`} authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
          <button type="submit">{p.t.enable}</button>
        </StepForm>
      )}
    </Layout>
  );
}
