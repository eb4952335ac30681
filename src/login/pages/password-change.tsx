import type { PasswordComplexity } from '../../domain/instance/password-complexity';
import { Layout, type PageProps } from './layout';
import { PasswordForm } from './password-form';

/** A required password change (imported users, a generated admin password): new password twice. */
export function PasswordChangePage(
  p: PageProps & { authRequest: string; csrf: string; loginName: string; rules: PasswordComplexity; error?: string },
) {
  return (
    <Layout {...p} title={p.t.passwordChangeTitle}>
      <p>{p.t.passwordChangeText}</p>
      <PasswordForm {...p} kind="new" />
    </Layout>
  );
}
