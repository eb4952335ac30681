import type { PasswordComplexity } from '../../domain/instance/password-complexity';
import { MainInput, type PageProps, StepForm } from './layout';
import { PASSWORD_RULES_ID, PasswordRules } from './password-rules';

/**
 * The password of a known user: the current one (the password page) or a new one, twice (a required
 * change). The login name is shown, and given to password managers in a hidden username field.
 */
export function PasswordForm(
  p: PageProps & {
    kind: 'current' | 'new';
    authRequest: string;
    csrf: string;
    loginName: string;
    /** the rules a new password must meet, shown before the user types (kind `new`) */
    rules?: PasswordComplexity;
    error?: string;
  },
) {
  const current = p.kind === 'current';
  return (
    <>
      <p>{p.loginName}</p>
      <StepForm
        action={current ? '/ui/login/password' : '/ui/login/password/change'}
        authRequest={p.authRequest}
        csrf={p.csrf}
        error={p.error}
      >
        <input type="text" name="username" value={p.loginName} autocomplete="username" hidden />
        {p.rules && <PasswordRules t={p.t} rules={p.rules} />}
        <MainInput
          id="password"
          label={current ? p.t.passwordLabel : p.t.newPassword}
          type="password"
          autocomplete={`${p.kind}-password`}
          error={p.error}
          hintId={p.rules ? `${PASSWORD_RULES_ID}${p.error ? ' form-error' : ''}` : undefined}
          extra={p.rules ? { minlength: String(p.rules.minLength) } : undefined}
        />
        {!current && (
          <>
            <label for="passwordConfirm">{p.t.passwordConfirm}</label>
            <input type="password" id="passwordConfirm" name="passwordConfirm" autocomplete="new-password" required />
          </>
        )}
        <button type="submit">{current ? p.t.signIn : p.t.changePassword}</button>
      </StepForm>
    </>
  );
}
