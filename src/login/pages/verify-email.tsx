import { ErrorMessage, Hidden, Layout, type PageProps } from './layout';

/** After registration: the code from the verification email, or a new code. */
export function VerifyEmailPage(
  p: PageProps & { authRequest: string; csrf: string; email: string; error?: string; notice?: string },
) {
  return (
    <Layout {...p} title={p.t.verifyEmailTitle}>
      <p>{p.t.verifyEmailText.replace('{email}', p.email)}</p>
      {p.notice && <p role="status">{p.notice}</p>}
      <ErrorMessage text={p.error} />
      <form method="post" action="/ui/login/verify-email">
        <Hidden authRequest={p.authRequest} csrf={p.csrf} />
        <label for="code">{p.t.codeLabel}</label>
        <input
          type="text"
          id="code"
          name="code"
          autocomplete="one-time-code"
          autocapitalize="characters"
          spellcheck={false}
          required
          autofocus
          aria-invalid={p.error ? 'true' : undefined}
          aria-describedby={p.error ? 'form-error' : undefined}
        />
        <button type="submit">{p.t.verify}</button>
      </form>
      <form method="post" action="/ui/login/verify-email/resend">
        <Hidden authRequest={p.authRequest} csrf={p.csrf} />
        <button type="submit" class="link">
          {p.t.resendCode}
        </button>
      </form>
    </Layout>
  );
}
