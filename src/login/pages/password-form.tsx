import { MainInput, type PageProps, StepForm } from './layout';

/**
 * The password of a known user: the current one (the password page) or a new one, twice (a required
 * change). The login name is shown, and given to password managers in a hidden username field.
 */
export function PasswordForm(
  p: PageProps & { kind: 'current' | 'new'; authRequest: string; csrf: string; loginName: string; error?: string },
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
        <MainInput
          id="password"
          label={current ? p.t.passwordLabel : p.t.newPassword}
          type="password"
          autocomplete={`${p.kind}-password`}
          error={p.error}
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
