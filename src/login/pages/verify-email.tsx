import { Layout, MainInput, type PageProps, StepForm } from './layout';

/** After registration: the code from the verification email, or a new code. */
export function VerifyEmailPage(
  p: PageProps & { authRequest: string; csrf: string; email: string; error?: string; notice?: string },
) {
  return (
    <Layout {...p} title={p.t.verifyEmailTitle}>
      <p>{p.t.verifyEmailText.replace('{email}', p.email)}</p>
      {p.notice && <p role="status">{p.notice}</p>}
      <StepForm action="/ui/login/verify-email" authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        <MainInput
          id="code"
          label={p.t.codeLabel}
          autocomplete="one-time-code"
          extra={{ autocapitalize: 'characters', spellcheck: false }}
          error={p.error}
        />
        <button type="submit">{p.t.verify}</button>
      </StepForm>
      <StepForm action="/ui/login/verify-email/resend" authRequest={p.authRequest} csrf={p.csrf}>
        <button type="submit" class="link">
          {p.t.resendCode}
        </button>
      </StepForm>
    </Layout>
  );
}
