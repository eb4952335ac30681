import { Layout, type PageProps } from './layout';
import { PasswordForm } from './password-form';

export function PasswordPage(p: PageProps & { authRequest: string; csrf: string; loginName: string; error?: string }) {
  return (
    <Layout {...p} title={p.t.passwordTitle}>
      <PasswordForm {...p} kind="current" />
      <p>
        <a href={`/ui/login/login?authRequest=${encodeURIComponent(p.authRequest)}&other=1`}>{p.t.notYou}</a>
      </p>
    </Layout>
  );
}
