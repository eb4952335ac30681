import { ErrorMessage, Hidden, Layout, type PageProps } from './layout';

export function LoginNamePage(
  p: PageProps & { authRequest: string; csrf: string; loginName?: string; error?: string; canRegister: boolean },
) {
  return (
    <Layout {...p} title={p.t.title}>
      <ErrorMessage text={p.error} />
      <form method="post" action="/ui/login/login">
        <Hidden authRequest={p.authRequest} csrf={p.csrf} />
        <label for="loginName">{p.t.loginNameLabel}</label>
        <input
          type="text"
          id="loginName"
          name="loginName"
          value={p.loginName ?? ''}
          autocomplete="username"
          required
          autofocus
          aria-describedby="loginName-hint"
          aria-invalid={p.error ? 'true' : undefined}
        />
        <p class="hint" id="loginName-hint">
          {p.t.loginNameHint}
        </p>
        <button type="submit">{p.t.next}</button>
      </form>
      {p.canRegister && (
        <p>
          <a href={`/ui/login/register?authRequest=${encodeURIComponent(p.authRequest)}`}>{p.t.createAccount}</a>
        </p>
      )}
    </Layout>
  );
}
