import { ErrorMessage, Hidden, Layout, type PageProps } from './layout';

/** A required password change (imported users, a generated admin password): new password twice. */
export function PasswordChangePage(
  p: PageProps & { authRequest: string; csrf: string; loginName: string; error?: string },
) {
  return (
    <Layout {...p} title={p.t.passwordChangeTitle}>
      <p>{p.t.passwordChangeText}</p>
      <p>{p.loginName}</p>
      <ErrorMessage text={p.error} />
      <form method="post" action="/ui/login/password/change">
        <Hidden authRequest={p.authRequest} csrf={p.csrf} />
        <input type="text" name="username" value={p.loginName} autocomplete="username" hidden />
        <label for="password">{p.t.newPassword}</label>
        <input
          type="password"
          id="password"
          name="password"
          autocomplete="new-password"
          required
          autofocus
          aria-invalid={p.error ? 'true' : undefined}
          aria-describedby={p.error ? 'form-error' : undefined}
        />
        <label for="passwordConfirm">{p.t.passwordConfirm}</label>
        <input type="password" id="passwordConfirm" name="passwordConfirm" autocomplete="new-password" required />
        <button type="submit">{p.t.changePassword}</button>
      </form>
    </Layout>
  );
}
