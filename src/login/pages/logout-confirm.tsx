import { Layout, type PageProps } from './layout';

/**
 * End session without a valid id_token_hint: the user confirms with a POST, so that a link or an
 * image on another site cannot sign the browser out. The request's parameters ride along hidden.
 */
export function LogoutConfirmPage(p: PageProps & { csrf: string; params: Record<string, string> }) {
  return (
    <Layout {...p} title={p.t.logoutConfirmTitle}>
      <p>{p.t.logoutConfirmText}</p>
      <form method="post" action="/oidc/v1/end_session">
        <input type="hidden" name="csrf" value={p.csrf} />
        <input type="hidden" name="confirm" value="1" />
        {Object.entries(p.params).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <button type="submit">{p.t.logoutConfirmButton}</button>
      </form>
    </Layout>
  );
}
