import type { PasswordComplexity } from '../../domain/instance/password-complexity';
import { Layout, type PageProps, StepForm } from './layout';
import { PASSWORD_RULES_ID, PasswordRules } from './password-rules';

export interface RegisterValues {
  givenName?: string;
  familyName?: string;
  email?: string;
  username?: string;
}

export function RegisterPage(
  p: PageProps & {
    authRequest: string;
    csrf: string;
    values: RegisterValues;
    rules: PasswordComplexity;
    error?: string;
  },
) {
  const field = (id: keyof RegisterValues, label: string, type: string, autocomplete: string, required = true) => (
    <>
      <label for={id}>{label}</label>
      <input type={type} id={id} name={id} value={p.values[id] ?? ''} autocomplete={autocomplete} required={required} />
    </>
  );
  return (
    <Layout {...p} title={p.t.registerTitle}>
      <StepForm action="/ui/login/register" authRequest={p.authRequest} csrf={p.csrf} error={p.error}>
        {field('givenName', p.t.givenName, 'text', 'given-name')}
        {field('familyName', p.t.familyName, 'text', 'family-name')}
        {field('email', p.t.email, 'email', 'email')}
        {field('username', p.t.username, 'text', 'username', false)}
        <label for="password">{p.t.passwordLabel}</label>
        <PasswordRules t={p.t} rules={p.rules} />
        <input
          type="password"
          id="password"
          name="password"
          autocomplete="new-password"
          minlength={p.rules.minLength}
          required
          aria-describedby={PASSWORD_RULES_ID}
        />
        <label for="passwordConfirm">{p.t.passwordConfirm}</label>
        <input type="password" id="passwordConfirm" name="passwordConfirm" autocomplete="new-password" required />
        <button type="submit">{p.t.register}</button>
      </StepForm>
    </Layout>
  );
}
