import { ErrorMessage, Hidden, Layout, type PageProps } from './layout';

export function PasswordPage(p: PageProps & { authRequest: string; csrf: string; loginName: string; error?: string }) {
  return (
    <Layout {...p} title={p.t.passwordTitle}>
      <p>{p.loginName}</p>
      <ErrorMessage text={p.error} />
      <form method="post" action="/ui/login/password">
        <Hidden authRequest={p.authRequest} csrf={p.csrf} />
        <input type="text" name="username" value={p.loginName} autocomplete="username" hidden />
        <label for="password">{p.t.passwordLabel}</label>
        <input
          type="password"
          id="password"
          name="password"
          autocomplete="current-password"
          required
          autofocus
          aria-invalid={p.error ? 'true' : undefined}
          aria-describedby={p.error ? 'form-error' : undefined}
        />
        <button type="submit">{p.t.signIn}</button>
      </form>
      <p>
        <a href={`/ui/login/login?authRequest=${encodeURIComponent(p.authRequest)}&other=1`}>{p.t.notYou}</a>
      </p>
    </Layout>
  );
}
